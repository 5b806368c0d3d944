#!/bin/sh
# scripts/fetch-dist-kernel.sh: Debian's own distribution kernel for the demo (`make run`,
# tests/qemu/test_demo.py), fetched once into the cache; prints its vmlinuz's path.
#
#   scripts/fetch-dist-kernel.sh [--print-package]
#
# Which kernel: the linux-image-6.1.0-*-amd64 package that this machine's Debian release makes
# linux-image-amd64 depend on now (`apt-cache depends`, from apt's own lists), at that
# package's candidate version; VTBOOT_DIST_KERNEL=PACKAGE=VERSION pins another one instead.
# The package is fetched with `apt-get download` (verified by apt against the signed lists),
# only its /boot and msr.ko are unpacked (dpkg-deb --fsys-tarfile: the 400 MB of modules are not
# written) and it is never installed. Its config must have the TPM TIS driver, the 8250 serial
# console and Intel TXT (tboot) support built in: the demo's initramfs loads no modules. msr.ko
# (the /dev/cpu/N/msr driver, a module in Debian's config) is for the TXT tests, whose guest
# runs Debian's txt-acminfo: it reads IA32_PLATFORM_ID there. modules/ holds the virtio disk's
# modules, in the order they load (modules/order): the S4 tests' swap disk (issue 39).
#
# Cache: $VTBOOT_CACHE/dist-kernel/PACKAGE_VERSION/ (vmlinuz-ABI, config-ABI, msr.ko, modules/): a new
# version in the lists is a new directory, an old one is used again without the network.
# Offline: a cached version that the lists name needs nothing; if the lists name none apt knows
# (no lists, and `apt-get update` failed) or its download fails, the newest version already in
# the cache is used, with a warning; with an empty cache it fails and says what it needs.
# --print-package: print "PACKAGE VERSION" of the kernel it would use instead of its path.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
say() { echo "dist-kernel: $*" >&2; }
die() { echo "dist-kernel: ERROR: $*" >&2; exit 1; }
# shellcheck source=scripts/cache-lib.sh
. "$here/cache-lib.sh"

print_package=0
case "${1:-}" in
    --print-package) print_package=1 ;;
    "") ;;
    *) die "usage: scripts/fetch-dist-kernel.sh [--print-package]" ;;
esac

cache="${VTBOOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vtboot}/dist-kernel"
meta=linux-image-amd64
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

# resolve: sets pkg and ver from the pin or apt's lists; fails quietly when apt does not know
resolve() {
    if [ -n "${VTBOOT_DIST_KERNEL:-}" ]; then
        pkg=${VTBOOT_DIST_KERNEL%%=*}
        ver=${VTBOOT_DIST_KERNEL#*=}
        [ "$ver" != "$VTBOOT_DIST_KERNEL" ] || die "VTBOOT_DIST_KERNEL is PACKAGE=VERSION"
        return 0
    fi
    pkg=$(apt-cache depends "$meta" 2>/dev/null |
          sed -n 's/^ *Depends: \(linux-image-6\.1\.0-[0-9]*-amd64\)$/\1/p' | head -n 1)
    [ -n "$pkg" ] || return 1
    ver=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: //p')
    [ -n "$ver" ] && [ "$ver" != "(none)" ]
}

# newest_cached: the directory of the newest finished kernel in the cache, or nothing
newest_cached() {
    best=""
    for d in "$cache"/linux-image-*_*; do
        complete "$d" || continue
        if [ -z "$best" ] || dpkg --compare-versions "${d##*_}" gt "${best##*_}"; then best=$d; fi
    done
    echo "$best"
}

# an older cache had no msr.ko, or no modules/
complete() { [ -f "$1/.done" ] && [ -f "$1/msr.ko" ] && [ -f "$1/modules/order" ]; }

use() { # use DIR: print what is asked for and exit
    if [ "$print_package" = 1 ]; then
        b=$(basename "$1"); echo "${b%_*} ${b##*_}"
    else
        ls "$1"/vmlinuz-*
    fi
    exit 0
}

fallback() { # fallback WHY
    d=$(newest_cached)
    [ -n "$d" ] || die "$1, and no kernel is cached in $cache: the first run needs the network (apt-get download of $meta's kernel, about 70 MB)"
    say "WARNING: $1; using the newest cached kernel, $(basename "$d")"
    use "$d"
}

if ! resolve; then
    # apt has no lists (a fresh container): update them, as ensure-deps.sh does
    say "apt does not know $meta; running apt-get update"
    $sudo apt-get update -qq >&2 || true
    resolve || fallback "apt cannot resolve $meta"
fi

dir="$cache/${pkg}_$ver"
complete "$dir" && use "$dir"

mkdir -p "$cache"
cache_lock "$cache" dist-kernel
complete "$dir" && use "$dir"

tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
say "fetching $pkg $ver (apt-get download, about 70 MB) into $cache"
# as root, apt would try its _apt sandbox user, who cannot write here, and warn
sandbox=""
[ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
# shellcheck disable=SC2086
if ! (cd "$tmp" && apt-get download -q=2 $sandbox "$pkg=$ver" >&2); then
    rm -rf "$tmp"
    [ -z "${VTBOOT_DIST_KERNEL:-}" ] || die "cannot download the pinned $pkg=$ver"
    fallback "cannot download $pkg=$ver"
fi
deb=$(ls "$tmp"/*.deb)
mkdir "$tmp/x"
abi=${pkg#linux-image-}
msr="./lib/modules/$abi/kernel/arch/x86/kernel/msr.ko"
# the virtio disk: each module after those it depends on
virtio="virtio/virtio_ring virtio/virtio virtio/virtio_pci_legacy_dev virtio/virtio_pci_modern_dev
virtio/virtio_pci block/virtio_blk"
mods=""
for m in $virtio; do mods="$mods ./lib/modules/$abi/kernel/drivers/$m.ko"; done
# shellcheck disable=SC2086
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" --wildcards './boot/*' "$msr" $mods ||
    die "cannot unpack /boot, msr.ko and the virtio modules of $deb"

vmlinuz="$tmp/x/boot/vmlinuz-$abi"
config="$tmp/x/boot/config-$abi"
{ [ -f "$vmlinuz" ] && [ -f "$config" ]; } || die "$pkg has no /boot/vmlinuz-$abi and config-$abi"
for opt in CONFIG_TCG_TIS=y CONFIG_SERIAL_8250_CONSOLE=y CONFIG_INTEL_TXT=y CONFIG_RD_GZIP=y \
           CONFIG_X86_MSR=m CONFIG_MODULE_COMPRESS_NONE=y; do
    grep -qx "$opt" "$config" || die "$pkg's config lacks $opt (the demo and the TXT tests need it)"
done
mkdir "$tmp/done"
mv "$vmlinuz" "$config" "$tmp/done/"
mv "$tmp/x/$msr" "$tmp/done/msr.ko"
mkdir "$tmp/done/modules"
for m in $virtio; do
    mv "$tmp/x/lib/modules/$abi/kernel/drivers/$m.ko" "$tmp/done/modules/"
    basename "$m.ko" >> "$tmp/done/modules/order"
done
touch "$tmp/done/.done"
rm -rf "$dir"
mv "$tmp/done" "$dir"
say "cached $(basename "$dir") ($(wc -c < "$dir/vmlinuz-$abi") bytes of vmlinuz)"
use "$dir"
