#!/bin/sh
# seabios/build.sh: SeaBIOS as the TXT platform's firmware (issue 38): Debian's seabios source
# package with seabios/patches/series, built as Debian builds bios-256k.bin (QEMU=y ROM_SIZE=256),
# installed as $out/bios-txt.bin.
#
#   seabios/build.sh [--out DIR]
#
# Only vtboot-qemu --txt and the TXT tests boot it (QEMU's -bios); every other run keeps Debian's
# own SeaBIOS. Cached like qemu/ and xen/: $VTBOOT_CACHE/seabios-<key>/ holds the ROM and its
# manifest, where <key> is a sha256 over the package version, the .dsc's sha256, the config, this
# script, the shared shell helpers and the series' patches; a cache hit only copies the ROM.
set -eu

t_start=$(date +%s)
here=$(cd "$(dirname "$0")" && pwd)
self="$here/build.sh"
out="${OUT:-$(dirname "$here")/out}"
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift ;;
        --out=*) out="${1#--out=}" ;;
        -h|--help) sed -n '2,11p' "$self" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "seabios/build.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done

cache="${VTBOOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vtboot}"
version="${SEABIOS_DEB_VERSION:?SEABIOS_DEB_VERSION is not set (seabios/seabios.mk sets it)}"
dsc_sha="${SEABIOS_DSC_SHA256:?SEABIOS_DSC_SHA256 is not set (seabios/seabios.mk sets it)}"
patchdir="$here/patches"
srcdir="$cache/seabios-src/$version"
dsc="$srcdir/seabios_$version.dsc"
# debian/rules' bios-256k-config: the ROM QEMU's q35 loads
SEABIOS_CONFIG="CONFIG_QEMU=y CONFIG_ROM_SIZE=256"

say() { echo "seabios: $*"; }
die() { echo "seabios: ERROR: $*" >&2; exit 1; }
# shellcheck source=../scripts/cache-lib.sh
. "$here/../scripts/cache-lib.sh"
# shellcheck source=../scripts/deb-source.sh
. "$here/../scripts/deb-source.sh"

patches=$(series_patches "$patchdir")
manifest() {
    echo "vtboot-seabios-key v1"
    echo "package seabios $version dsc $dsc_sha"
    echo "config $SEABIOS_CONFIG"
    echo "build.sh $(sha < "$self")"
    echo "cache-lib.sh $(sha < "$here/../scripts/cache-lib.sh")"
    echo "deb-source.sh $(sha < "$here/../scripts/deb-source.sh")"
    for p in $patches; do echo "patch $p $(sha < "$patchdir/$p")"; done
}
key=$(manifest | sha)
final="$cache/seabios-$key"
outputs() {
    install_outputs "$final" "$out" "bios.bin:bios-txt.bin"
    say "TXT firmware up to date: $out/bios-txt.bin (cached $final) [$(( $(date +%s) - t_start ))s]"
}

[ ! -f "$final/bios.bin" ] || { outputs; exit 0; }
cache_lock "$cache" "seabios-$key"
[ ! -f "$final/bios.bin" ] || { outputs; exit 0; }
rm -rf "$cache/tmp-seabios-$key".* "$final"

deb_source seabios "$version" "$srcdir" "$dsc" "$dsc_sha" seabios/seabios.mk
say "building SeaBIOS $version, key $key"
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL CC LD CFLAGS 2>/dev/null || true
temp_build_tree seabios "$cache/tmp-seabios-$key"
unpack_patched "$dsc" "$tmp/src" "$patchdir" "$patches"
mkdir "$tmp/build" "$tmp/result"
for c in $SEABIOS_CONFIG; do echo "$c"; done > "$tmp/build/.config"
# the shipped .hex ACPI tables are used as they are (Debian's rules regenerate them with iasl;
# QEMU supplies its own ACPI tables, so SeaBIOS's are never loaded on q35)
set -- PYTHON="python3 -B" KCONFIG_CONFIG="$tmp/build/.config" OUT="$tmp/build/"
if ! (cd "$tmp/src" && run make "$@" oldnoconfig && run make "$@" EXTRAVERSION="-vtboot-txt" \
        "$tmp/build/bios.bin") > "$tmp/result/build.log" 2>&1; then
    tail -n 30 "$tmp/result/build.log" >&2
    keep_tmp=1
    die "SeaBIOS build failed"
fi
manifest > "$tmp/result/vtboot-key.txt"
mv "$tmp/build/bios.bin" "$tmp/build/.config" "$tmp/result/"
mv -T "$tmp/result" "$final"
rm -rf "$tmp"
tmp=""
outputs
