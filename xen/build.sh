#!/bin/sh
# xen/build.sh: build the Xen hypervisor with tboot support from Debian's xen source package.
#
#   xen/build.sh [--out DIR]
#
# Debian's xen-hypervisor-4.17-amd64 is built without tboot support (CONFIG_TBOOT depends on
# CONFIG_UNSUPPORTED, which Debian leaves off). This script fetches the source package
# xen=$XEN_DEB_VERSION with apt-get source, through a private apt configuration (its own deb-src
# list and lists directory in the cache: the machine's sources are not touched), checks the
# .dsc against $XEN_DSC_SHA256, unpacks it (dpkg-source: Debian's patches applied), applies
# xen/patches/series, configures Debian's xen-kconfig plus xen/config/*.config (every fragment
# option must survive olddefconfig) and builds the hypervisor only (make -C xen, no tools) with
# at most 2 jobs. It installs DIR/xen-tboot.gz and DIR/xen-tboot.config.
#
# The tree lives in $VTBOOT_CACHE/xen-<key>/, where <key> is a sha256 over the package version,
# the .dsc's sha256, the config fragments, the patches applied (names and contents, in order),
# this script, scripts/cache-lib.sh and deb-source.sh. If xen-<key>/ exists its xen.gz is just
# copied. Builds run in a temporary directory next to it, renamed into place only on success. The
# source files are kept in $VTBOOT_CACHE/xen-src/<version>/ (a later build works offline).
# See xen/README.md.
set -eu

t_start=$(date +%s)
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
self="$here/build.sh"

out="${OUT:-$root/out}"
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift ;;
        --out=*) out="${1#--out=}" ;;
        -h|--help) sed -n '2,20p' "$self" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "xen/build.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done

cache="${VTBOOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vtboot}"
version="${XEN_DEB_VERSION:?XEN_DEB_VERSION is not set (xen/xen.mk sets it)}"
dsc_sha="${XEN_DSC_SHA256:?XEN_DSC_SHA256 is not set (xen/xen.mk sets it)}"
patchdir="$here/patches"
confdir="$here/config"
srcdir="$cache/xen-src/$version"
dsc="$srcdir/xen_$version.dsc"
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -le 2 ] || jobs=2          # the machines are shared: never more than 2 jobs

say() { echo "xen: $*"; }
die() { echo "xen: ERROR: $*" >&2; exit 1; }
# shellcheck source=../scripts/cache-lib.sh
. "$here/../scripts/cache-lib.sh"
# shellcheck source=../scripts/deb-source.sh
. "$here/../scripts/deb-source.sh"
elapsed() { echo "$(( $(date +%s) - t_start ))s"; }

patches=$(series_patches "$patchdir")
fragments=$(find "$confdir" -maxdepth 1 -name '*.config' -type f | LC_ALL=C sort)
[ -n "$fragments" ] || die "no config fragments in $confdir"

manifest() {
    echo "vtboot-xen-key v1"
    echo "package xen $version dsc $dsc_sha"
    for f in $fragments; do echo "config $(basename "$f") $(sha < "$f")"; done
    echo "build.sh $(sha < "$self")"
    echo "cache-lib.sh $(sha < "$here/../scripts/cache-lib.sh")"
    echo "deb-source.sh $(sha < "$here/../scripts/deb-source.sh")"
    for p in $patches; do echo "patch $p $(sha < "$patchdir/$p")"; done
}
key=$(manifest | sha)
final="$cache/xen-$key"

outputs() { install_outputs "$final" "$out" "xen/xen.gz:xen-tboot.gz" "xen/.config:xen-tboot.config"; }

if [ -f "$final/xen/xen.gz" ]; then
    outputs
    say "Xen with tboot support up to date: $out/xen-tboot.gz (cached $final) [$(elapsed)]"
    exit 0
fi

cache_lock "$cache" "xen-$key"
if [ -f "$final/xen/xen.gz" ]; then
    outputs
    say "Xen with tboot support up to date: $out/xen-tboot.gz (cached $final) [$(elapsed)]"
    exit 0
fi
rm -rf "$cache/tmp-xen-$key".*
[ ! -e "$final" ] || rm -rf "$final"

deb_source xen "$version" "$srcdir" "$dsc" "$dsc_sha" xen/xen.mk

say "building Xen $version with tboot support, key $key"
# shellcheck disable=SC2086 # one line
say "patches: $(echo ${patches:-none})"
temp_build_tree xen "$cache/tmp-xen-$key"

unpack_patched "$dsc" "$tmp/src" "$patchdir" "$patches"
manifest > "$tmp/vtboot-key.txt"

unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL CC LD CFLAGS 2>/dev/null || true
# reproducible: no date, user or host in the binary; Debian's banner patch reads DEB_*
export XEN_BUILD_DATE="Sat Jan  1 00:00:00 UTC 2000" XEN_BUILD_TIME=00:00:00
export XEN_WHOAMI=vtboot XEN_DOMAIN=vtboot
export DEB_VERSION="$version+vtboot" DEB_MAINTAINER="vtboot <vtboot@vtboot>"
xmake() { make -C "$tmp/src/xen" XEN_TARGET_ARCH=x86_64 PYTHON=/usr/bin/python3 "$@"; }

say "configuring: debian/xen-kconfig + $(for f in $fragments; do printf '%s ' "$(basename "$f")"; done)"
cp "$tmp/src/debian/xen-kconfig" "$tmp/src/xen/.config"
for f in $fragments; do
    printf '\n# ---- vtboot fragment %s\n' "$(basename "$f")"
    cat "$f"
done >> "$tmp/src/xen/.config"
xmake olddefconfig > "$tmp/olddefconfig.log" 2>&1 || {
    cat "$tmp/olddefconfig.log" >&2; die "olddefconfig failed"; }
for f in $fragments; do
    sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1 \2/p' \
           -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set.*$/\1 n/p' "$f" |
    while read -r opt val; do
        got=$(sed -n -e "s/^$opt=\\(.*\\)\$/\\1/p" -e "s/^# $opt is not set\$/n/p" "$tmp/src/xen/.config" | tail -n 1)
        [ -n "$got" ] || got=n
        if [ "$got" != "$val" ]; then
            echo "xen: ERROR: $opt=$val (from $(basename "$f")) did not survive olddefconfig: got $got" >&2
            echo bad
        fi
    done
done > "$tmp/config-check" 2>&1 || true
if grep -q bad "$tmp/config-check"; then
    grep -v '^bad$' "$tmp/config-check" >&2
    die "config fragments not satisfied (missing dependencies?)"
fi
say "config check: every fragment option survived"

say "make -C xen -j$jobs (hypervisor only; log: $tmp/build.log)"
t_build=$(date +%s)
if ! run make -C "$tmp/src/xen" XEN_TARGET_ARCH=x86_64 PYTHON=/usr/bin/python3 -j"$jobs" \
        > "$tmp/build.log" 2>&1; then
    tail -n 40 "$tmp/build.log" >&2
    keep_tmp=1
    die "Xen build failed"
fi
[ -f "$tmp/src/xen/xen.gz" ] || { keep_tmp=1; die "the build made no xen/xen.gz"; }
say "compiled in $(( $(date +%s) - t_build ))s ($(grep -c '^  CC ' "$tmp/build.log" || true) files)"

mv "$tmp/build.log" "$tmp/vtboot-key.txt" "$tmp/src/"
mv -T "$tmp/src" "$final"
rm -rf "$tmp"
tmp=""
outputs
say "Xen with tboot support built: $out/xen-tboot.gz ($(wc -c < "$final/xen/xen.gz") bytes), tree $final"
old=$(find "$cache" -maxdepth 1 -name 'xen-*' -type d ! -name "xen-$key" ! -name xen-src 2>/dev/null | LC_ALL=C sort)
# shellcheck disable=SC2086 # one path per word
[ -z "$old" ] || say "other cached Xen trees (safe to delete):$(printf '\n  %s' $old)"
say "build wall time $(elapsed)"
