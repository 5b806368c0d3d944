#!/bin/sh
# scripts/build-disk-image.sh DEBDIR OUTDIR: the installed-guest test image (issue 14), a raw
# disk with an MBR partition table, GRUB in the MBR and one ext4 root file system: Debian 12
# (linux-image-amd64 and linux-image-rt-amd64, grub-pc, systemd-sysv, tpm2-tools) with
# DEBDIR's vtboot package
# installed by dpkg inside it and update-grub's "with vtboot" entries. OUTDIR/disk.img links
# to it. Nothing is mounted and no loop device is used: mmdebstrap builds the tree (its proc
# and sys mounts live in a private mount namespace), mke2fs -d writes the file system into the
# image file, and everything that needs the installed system (grub-install, dpkg, update-grub)
# runs in one QEMU boot of the image's own kernel (scripts/disk-image/setup.sh).
#
# Three stages, each cached in $VTBOOT_CACHE/disk-image/ by its inputs and reused:
#   base-<key>:  mmdebstrap + the file system (key: this script, scripts/disk-image/*, suite,
#                mirror, mmdebstrap's version)
#   setup-<key>: the base + the setup boot (key: the base's and debian/ + packaging/, the
#                package's own files), with the vtboot .deb of the time
#   image-<key>: when the .deb changed since (vtboot, the tools): setup-<key> + one boot that
#                installs it over the old one (key: setup's and the .deb's SHA-256)
# Older entries of each stage are removed when a new one is made. A lock serializes builders.
# `build-disk-image.sh --base` makes stage A only: it needs no package, so `make disk-image`
# runs it beside the package build.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --base ]; then
    base_only=1 debdir= outdir=
else
    base_only= debdir=$1 outdir=$2
fi
cache=${VTBOOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vtboot}/disk-image
suite=bookworm
mirror=${VTBOOT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
size_mib=3072
part_start=2048                      # sectors: the partition at 1 MiB, GRUB's core.img before it
# Two kernels of the same version, both with CONFIG_INTEL_TXT=y (20_linux_vtboot's rule): the
# PREEMPT_RT flavour is the second, so that update-grub writes a vtboot entry per kernel. It
# is installed here, at native speed: as a package in the setup boot, its unpacking, initramfs
# and update-grub took half of that boot's 13 minutes under TCG.
packages=linux-image-amd64,linux-image-rt-amd64,grub-pc,systemd-sysv,udev,tpm2-tools,zstd,e2fsprogs
# dpkg leaves out documentation and every kernel module but those this VM uses (its disk,
# ext4, fw_cfg, autofs): the kernel packages are 80% modules for hardware a q35 VM does not
# have, and unpacking them (and depmod) takes minutes in the setup boot under TCG. The
# setting stays in the image (/etc/dpkg/dpkg.cfg.d/99mmdebstrap), so later kernels get it
excludes="/usr/share/man/* /usr/share/locale/* /usr/share/doc/* /usr/share/info/*
/lib/modules/*/kernel/*"
includes="/usr/share/doc/*/copyright /lib/modules/*/kernel/drivers/virtio/*
/lib/modules/*/kernel/drivers/block/virtio_blk.ko /lib/modules/*/kernel/fs/ext4/*
/lib/modules/*/kernel/fs/jbd2/* /lib/modules/*/kernel/fs/mbcache.ko
/lib/modules/*/kernel/lib/crc16.ko /lib/modules/*/kernel/crypto/crc32c_generic.ko
/lib/modules/*/kernel/arch/x86/crypto/crc32c-intel.ko
/lib/modules/*/kernel/drivers/firmware/qemu_fw_cfg.ko /lib/modules/*/kernel/fs/autofs/*
/lib/modules/*/kernel/drivers/md/dm-mod.ko"

log() { echo "disk-image: $*" >&2; }
now() { date +%s; }

mkdir -p "$cache" ${outdir:+"$outdir"}
exec 9> "$cache/.lock"
flock 9

key_a=$( { cat "$0" "$here"/disk-image/essential-hook.sh "$here"/disk-image/customize.sh \
             "$here"/disk-image/report.sh "$here"/disk-image/sleep-hook.sh \
             "$here"/disk-image/vtboot-report.service; echo "$suite $mirror $size_mib $packages";
           mmdebstrap --version; } | sha256sum | cut -c1-16)
base=$cache/base-$key_a
uuid=$(echo "$key_a" | sed 's/^\(........\)\(....\)\(...\).*/\1-\2-4\3-8000-000000000000/')

cleanup_tmp() { if [ -n "${tmp:-}" ]; then rm -rf "$tmp"; fi; }
trap cleanup_tmp EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- stage A: the Debian system, without vtboot ---------------------------------------------
if [ ! -e "$base/disk.img" ]; then
    t0=$(now)
    tmp=$(mktemp -d "$cache/tmp.XXXXXX")
    log "building the base system ($suite from $mirror) in $tmp"
    set -- --mode=root --variant=apt --include="$packages" \
        --aptopt='Acquire::Languages "none"' --dpkgopt=force-unsafe-io
    set -f                      # the patterns are dpkg's, not the shell's
    for p in $excludes; do set -- "$@" --dpkgopt="path-exclude=$p"; done
    for p in $includes; do set -- "$@" --dpkgopt="path-include=$p"; done
    set +f
    if ! ROOT_UUID=$uuid unshare --mount --propagation private mmdebstrap "$@" \
            --essential-hook="$here/disk-image/essential-hook.sh \"\$1\"" \
            --customize-hook="$here/disk-image/customize.sh \"\$1\"" \
            "$suite" "$tmp/rootfs" "$mirror" > "$tmp/mmdebstrap.log" 2>&1; then
        tail -n 40 "$tmp/mmdebstrap.log" >&2
        log "mmdebstrap failed (the last 40 lines are above)"
        exit 1
    fi
    t1=$(now)
    # the setup boot's kernel: linux-image-amd64's (the one that is not -rt-)
    kver=$(basename "$(ls "$tmp"/rootfs/boot/vmlinuz-*-amd64 | grep -v -e '-rt-amd64$')" \
        | sed 's/^vmlinuz-//')
    cp "$tmp/rootfs/boot/vmlinuz-$kver" "$tmp/vmlinuz"
    cp "$tmp/rootfs/boot/initrd.img-$kver" "$tmp/initrd.img"
    echo "$kver" > "$tmp/kernel-version"
    # the disk: an MBR partition table with one bootable Linux partition at 1 MiB, and the
    # tree as an ext4 file system in it (GRUB 2.06 reads neither metadata_csum_seed nor
    # orphan_file, which mke2fs 1.47 may turn on)
    truncate -s "${size_mib}M" "$tmp/disk.img"
    printf 'label: dos\nstart=%s, type=83, bootable\n' "$part_start" \
        | sfdisk --quiet "$tmp/disk.img"
    blocks=$(( (size_mib * 1024 * 1024 - part_start * 512) / 4096 ))
    mke2fs -q -F -t ext4 -b 4096 -O ^metadata_csum_seed,^orphan_file -L vtboot-root -U "$uuid" \
        -E offset=$((part_start * 512)) -d "$tmp/rootfs" "$tmp/disk.img" "$blocks"
    rm -rf "$tmp/rootfs"
    echo "$uuid" > "$tmp/root-uuid"
    rm -rf "$cache"/base-*
    mv "$tmp" "$base"
    tmp=
    log "base system ready: kernel $kver, $(du -m "$base/disk.img" | cut -f1) MiB used" \
        "(mmdebstrap $((t1 - t0)) s, file system $(($(now) - t1)) s)"
fi

[ -z "$base_only" ] || exit 0

# ---- stages B and C: the vtboot package installed in the system, by the system -------------
deb=$(ls "$debdir"/vtboot_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { log "no vtboot_*_amd64.deb in $debdir (make deb)"; exit 1; }
deb_sha=$(sha256sum < "$deb" | cut -c1-64)

# setup_boot SRC DIR MODE: DIR/disk.img is a copy of SRC with the package in
# /var/cache/vtboot-image/, booted once with setup.sh as init (MODE: full or reinstall)
setup_boot() {
    cp --sparse=always "$1" "$2/disk.img"
    fs="$2/disk.img?offset=$((part_start * 512))"
    # the package and the setup boot's init into the file system (clean: setup.sh unmounts)
    if debugfs -R features "$fs" 2>/dev/null | grep -q needs_recovery; then
        log "$1: the file system was not unmounted cleanly"
        exit 1
    fi
    debugfs -w -f - "$fs" > /dev/null 2>&1 <<EOT
write $deb /var/cache/vtboot-image/vtboot_0_amd64.deb
rm /usr/local/sbin/vtboot-image-setup
write $here/disk-image/setup.sh /usr/local/sbin/vtboot-image-setup
sif /usr/local/sbin/vtboot-image-setup mode 0100755
EOT
    debugfs -R "stat /var/cache/vtboot-image/vtboot_0_amd64.deb" "$fs" 2>/dev/null \
        | grep -q "Size: $(stat -c %s "$deb")" || { log "debugfs: cannot write the package"; exit 1; }
    debugfs -R "cat /usr/local/sbin/vtboot-image-setup" "$fs" 2>/dev/null \
        | cmp -s - "$here/disk-image/setup.sh" || { log "debugfs: cannot write setup.sh"; exit 1; }
    # the image's own kernel and initrd, root on the disk, the setup script as init; TCG on one
    # thread, as vtboot-qemu (host/README.md: QEMU 7.2's memory map race)
    set +e
    timeout 1500 qemu-system-x86_64 -nodefaults -no-user-config -machine q35 -accel tcg,thread=single \
        -cpu max -m 1024 -smp 2 -display none -no-reboot \
        -kernel "$base/vmlinuz" -initrd "$base/initrd.img" \
        -append "root=UUID=$(cat "$base/root-uuid") rw console=ttyS0,115200 panic=-1 init=/usr/local/sbin/vtboot-image-setup vtboot.setup=$3" \
        -drive file="$2/disk.img",format=raw,if=none,id=d0 -device virtio-blk-pci,drive=d0 \
        -serial file:"$2/setup.log" < /dev/null
    rc=$?
    set -e
    if [ $rc != 0 ] || ! grep -q '^VTBOOT-IMAGE-SETUP: \[[0-9.]*\] ok' "$2/setup.log"; then
        tail -n 60 "$2/setup.log" >&2
        log "the setup boot failed (QEMU exit $rc; the last 60 lines of its console are above)"
        exit 1
    fi
    echo "$deb_sha" > "$2/deb.sha256"
}

# B, keyed by the base and the package's own files (debian/, packaging/: the GRUB script, its
# defaults, the maintainer scripts): grub-install, update-grub, dpkg -i vtboot, dpkg -r vtboot,
# dpkg -i vtboot (about 5 minutes under TCG)
key_b=$( { echo "$key_a"; sha256sum < "$here/disk-image/setup.sh"; cd "$here/.." &&
           find debian packaging -type f | LC_ALL=C sort | xargs sha256sum; } \
         | sha256sum | cut -c1-16)
setup=$cache/setup-$key_b
if [ ! -e "$setup/disk.img" ]; then
    t0=$(now)
    tmp=$(mktemp -d "$cache/tmp.XXXXXX")
    log "installing $(basename "$deb") in a copy of the base ($tmp)"
    setup_boot "$base/disk.img" "$tmp" full
    rm -rf "$cache"/setup-* "$cache"/image-*
    mv "$tmp" "$setup"
    tmp=
    log "image ready: vtboot installed, setup boot $(($(now) - t0)) s"
fi

# C, when only the package's build changed since B (vtboot itself, the tools): that package
# installed over B's, by dpkg in one more boot (about 2 minutes)
if [ "$(cat "$setup/deb.sha256")" = "$deb_sha" ]; then
    image=$setup
else
    image=$cache/image-$(echo "$key_b $deb_sha" | sha256sum | cut -c1-16)
    if [ ! -e "$image/disk.img" ]; then
        t0=$(now)
        tmp=$(mktemp -d "$cache/tmp.XXXXXX")
        log "installing $(basename "$deb") over the image's vtboot package ($tmp)"
        setup_boot "$setup/disk.img" "$tmp" reinstall
        cp "$setup/setup.log" "$tmp/setup-first.log"
        mv "$tmp" "$image"
        tmp=
        log "image ready: vtboot package replaced, setup boot $(($(now) - t0)) s"
    fi
    # the three images used last stay: two checkouts that share the cache (or one and a clean
    # clone of it) each boot their own, and removing every other image on each build failed
    # the other checkout's disk tests as they ran
    touch "$image"
    ls -dt "$cache"/image-* | tail -n +4 | xargs -r rm -rf
fi

ln -sfn "$image/disk.img" "$outdir/disk.img"
ln -sfn "$image/setup.log" "$outdir/setup.log"
echo "$outdir/disk.img -> $image/disk.img"
