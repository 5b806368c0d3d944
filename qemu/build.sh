#!/bin/sh
# qemu/build.sh: build QEMU's x86_64 system emulator with vtboot's TXT patches (issue 20).
#
#   qemu/build.sh [--out DIR]      the cached build: installs DIR/bin/qemu-system-x86_64-txt
#   qemu/build.sh --dev DIR        a developer tree in DIR for iterating on a patch (README.md):
#                                  DIR/src (git), DIR/build, DIR/out/bin/qemu-system-x86_64-txt
#
# Stock Debian QEMU (package qemu-system-x86) stays the default for every other run; this binary
# is the emulated Intel TXT platform (docs/txt-platform.md). The script fetches the source
# package qemu=$QEMU_DEB_VERSION with apt-get source through a private apt configuration (its
# own deb-src list and lists directory in the cache: the machine's sources are not touched),
# checks the .dsc against $QEMU_DSC_SHA256, unpacks it (dpkg-source: Debian's patches applied),
# applies qemu/patches/series, configures the x86_64 softmmu target only (the configure line is
# below, in qemu_configure) and builds qemu-system-x86_64 with at most 2 ninja jobs.
#
# The result lives in $VTBOOT_CACHE/qemu-<key>/ (the binary, the key's manifest, the configure
# and build logs; not the 600 MB object tree), where <key> is a sha256 over the package version,
# the .dsc's sha256, the configure flags, this script, scripts/cache-lib.sh and deb-source.sh and
# the series' patches (names and contents, in order). A cache hit only copies the binary. Builds
# run in a temporary directory next to it, renamed into place only on success. The downloaded
# source is kept in $VTBOOT_CACHE/qemu-src/<version>/ (a later build works offline).
set -eu

t_start=$(date +%s)
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
self="$here/build.sh"

out="${OUT:-$root/out}"
dev=""
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift ;;
        --out=*) out="${1#--out=}" ;;
        --dev) dev="$2"; shift ;;
        --dev=*) dev="${1#--dev=}" ;;
        -h|--help) sed -n '2,21p' "$self" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "qemu/build.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done

cache="${VTBOOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vtboot}"
version="${QEMU_DEB_VERSION:?QEMU_DEB_VERSION is not set (qemu/qemu.mk sets it)}"
dsc_sha="${QEMU_DSC_SHA256:?QEMU_DSC_SHA256 is not set (qemu/qemu.mk sets it)}"
upstream_version=${version#*:}          # the epoch is not in the file names
patchdir="$here/patches"
srcdir="$cache/qemu-src/$upstream_version"
dsc="$srcdir/qemu_$upstream_version.dsc"
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -le 2 ] || jobs=2          # the machines are shared: never more than 2 jobs

say() { echo "qemu: $*"; }
die() { echo "qemu: ERROR: $*" >&2; exit 1; }
# shellcheck source=../scripts/cache-lib.sh
. "$here/../scripts/cache-lib.sh"
# shellcheck source=../scripts/deb-source.sh
. "$here/../scripts/deb-source.sh"
elapsed() { echo "$(( $(date +%s) - t_start ))s"; }

# The configure line (part of the key). --without-default-features turns every optional library
# off; the launcher needs TCG, the TPM emulator backend and tpm-tis, chardevs, QMP and the
# gdbstub; nettle is QEMU's crypto for GETSEC[ENTERACCS] (the ACM's SHA-256 and RSA signature,
# patch 0005). --without-default-devices with vtboot's device set (patch 0001:
# configs/devices/x86_64-softmmu/vtboot.mak) builds q35 and the devices vtboot-qemu uses only.
# --firmwarepath is Debian's own, so that the binary finds SeaBIOS and the option ROMs of the
# installed packages without -L.
QEMU_CONFIGURE_FLAGS="--target-list=x86_64-softmmu --without-default-features \
--without-default-devices --with-devices-x86_64=vtboot \
--enable-tcg --enable-tpm --enable-nettle --disable-docs --disable-user --disable-install-blobs \
--disable-werror --enable-fdt=system --disable-slirp --disable-guest-agent --disable-tools \
--audio-drv-list= --prefix=/nonexistent \
--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu"
# the cached build has no debug info (smaller objects, a faster link); --dev trees have it
QEMU_DEBUG_FLAG="--disable-debug-info"

patches=$(series_patches "$patchdir")

manifest() {
    echo "vtboot-qemu-key v1"
    echo "package qemu $version dsc $dsc_sha"
    echo "configure $QEMU_CONFIGURE_FLAGS $QEMU_DEBUG_FLAG"
    echo "build.sh $(sha < "$self")"
    echo "cache-lib.sh $(sha < "$here/../scripts/cache-lib.sh")"
    echo "deb-source.sh $(sha < "$here/../scripts/deb-source.sh")"
    for p in $patches; do echo "patch $p $(sha < "$patchdir/$p")"; done
}

get_source() { deb_source qemu "$version" "$srcdir" "$dsc" "$dsc_sha" qemu/qemu.mk; }

# qemu_configure SRC BUILD EXTRA...: configure in BUILD (the flags above), log in BUILD/../
qemu_configure() {
    src=$1 bld=$2
    shift 2
    mkdir -p "$bld"
    # shellcheck disable=SC2086 # the flags are words
    (cd "$bld" && "$src/configure" $QEMU_CONFIGURE_FLAGS "$@") > "$bld/../configure.log" 2>&1 || {
        tail -n 30 "$bld/../configure.log" >&2; return 1; }
}

unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL CC LD CFLAGS 2>/dev/null || true

# ---- --dev DIR: a git tree to iterate in --------------------------------------------------------
if [ -n "$dev" ]; then
    get_source
    if [ ! -d "$dev/src/.git" ]; then
        command -v git >/dev/null || die "--dev needs git"
        mkdir -p "$dev"
        dev=$(cd "$dev" && pwd)
        say "unpacking $dsc into $dev/src"
        dpkg-source -q -x "$dsc" "$dev/src" > "$dev/unpack.log" 2>&1 || {
            cat "$dev/unpack.log" >&2; die "dpkg-source -x failed"; }
        git -C "$dev/src" init -q
        git -C "$dev/src" add -A -f .
        git -C "$dev/src" -c user.name=vtboot -c user.email=vtboot@vtboot \
            commit -q -m "qemu $version (Debian's source package, its patches applied)"
        git -C "$dev/src" tag debian
        for p in $patches; do
            say "git am $p"
            git -C "$dev/src" -c user.name=vtboot -c user.email=vtboot@vtboot \
                am -q --committer-date-is-author-date "$patchdir/$p" || die "patch $p does not apply"
        done
        say "configuring $dev/build (with debug info)"
        qemu_configure "$dev/src" "$dev/build" --enable-debug-info || die "configure failed"
    fi
    dev=$(cd "$dev" && pwd)
    say "ninja -j$jobs qemu-system-x86_64 in $dev/build"
    ninja -C "$dev/build" -j"$jobs" qemu-system-x86_64 || die "build failed"
    # a copy, not a link: run from its build tree, QEMU looks for its firmware there only
    mkdir -p "$dev/out/bin"
    install_outputs "$dev/build" "$dev/out/bin" "qemu-system-x86_64:qemu-system-x86_64-txt"
    chmod 755 "$dev/out/bin/qemu-system-x86_64-txt"
    say "built $dev/out/bin/qemu-system-x86_64-txt [$(elapsed)]"
    say "export the series: git -C $dev/src format-patch -o $patchdir debian.. (then fix series)"
    exit 0
fi

# ---- the cached build ----------------------------------------------------------------------------
key=$(manifest | sha)
final="$cache/qemu-$key"
outputs() {
    mkdir -p "$out/bin"
    install_outputs "$final" "$out/bin" "qemu-system-x86_64:qemu-system-x86_64-txt"
    chmod 755 "$out/bin/qemu-system-x86_64-txt"
}

if [ -x "$final/qemu-system-x86_64" ]; then
    outputs
    say "QEMU with TXT up to date: $out/bin/qemu-system-x86_64-txt (cached $final) [$(elapsed)]"
    exit 0
fi

cache_lock "$cache" "qemu-$key"
if [ -x "$final/qemu-system-x86_64" ]; then
    outputs
    say "QEMU with TXT up to date: $out/bin/qemu-system-x86_64-txt (cached $final) [$(elapsed)]"
    exit 0
fi
rm -rf "$cache/tmp-qemu-$key".*
[ ! -e "$final" ] || rm -rf "$final"

get_source
say "building QEMU $version (x86_64-softmmu), key $key"
# shellcheck disable=SC2086 # one word per patch
say "patches: $(printf '%s ' ${patches:-none})"
temp_build_tree qemu "$cache/tmp-qemu-$key"

unpack_patched "$dsc" "$tmp/src" "$patchdir" "$patches"
manifest > "$tmp/vtboot-key.txt"

say "configure (log: $tmp/configure.log)"
t_conf=$(date +%s)
qemu_configure "$tmp/src" "$tmp/build" $QEMU_DEBUG_FLAG || { keep_tmp=1; die "configure failed"; }
steps=$(ninja -C "$tmp/build" -t commands qemu-system-x86_64 | wc -l)
say "configured in $(( $(date +%s) - t_conf ))s; ninja -j$jobs qemu-system-x86_64: $steps steps (log: $tmp/build.log)"
t_build=$(date +%s)
if ! run ninja -C "$tmp/build" -j"$jobs" qemu-system-x86_64 > "$tmp/build.log" 2>&1; then
    tail -n 40 "$tmp/build.log" >&2
    keep_tmp=1
    die "QEMU build failed"
fi
[ -x "$tmp/build/qemu-system-x86_64" ] || { keep_tmp=1; die "the build made no qemu-system-x86_64"; }
t_done=$(date +%s)
say "compiled in $(( t_done - t_build ))s ($steps steps)"
echo "steps $steps compile_s $(( t_done - t_build )) configure_s $(( t_build - t_conf ))" > "$tmp/build-stats.txt"

mkdir "$tmp/result"
mv "$tmp/build/qemu-system-x86_64" "$tmp/vtboot-key.txt" "$tmp/configure.log" "$tmp/build.log" \
   "$tmp/build-stats.txt" "$tmp/result/"
mv -T "$tmp/result" "$final"
rm -rf "$tmp"
tmp=""
outputs
say "QEMU with TXT built: $out/bin/qemu-system-x86_64-txt ($(wc -c < "$final/qemu-system-x86_64") bytes), result $final"
old=$(find "$cache" -maxdepth 1 -name 'qemu-*' -type d ! -name "qemu-$key" ! -name qemu-src 2>/dev/null | LC_ALL=C sort)
# shellcheck disable=SC2086 # one path per word
[ -z "$old" ] || say "other cached QEMU builds (safe to delete):$(printf '\n  %s' $old)"
say "build wall time $(elapsed)"
