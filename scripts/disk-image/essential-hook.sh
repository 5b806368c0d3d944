#!/bin/sh
# mmdebstrap --essential-hook (after the Essential packages, before the kernel): the initramfs
# holds the modules this VM's root needs (virtio disk, ext4), not MODULES=most's 30 MB, which
# takes ~2 minutes to build here and ~1 under TCG, and vtboot would measure on every boot.
set -eu
root=$1
mkdir -p "$root/etc/initramfs-tools/conf.d" "$root/usr/share/initramfs-tools/modules.d"
echo "MODULES=list" > "$root/etc/initramfs-tools/conf.d/vtboot-test-image"
printf '%s\n' virtio_pci virtio_blk ext4 crc32c_generic \
    > "$root/usr/share/initramfs-tools/modules.d/vtboot-test-image"
