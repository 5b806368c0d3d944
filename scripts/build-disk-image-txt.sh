#!/bin/sh
# scripts/build-disk-image-txt.sh SINIT OUTDIR: the installed-guest image for the TXT platform
# (issue 39 item 6): a copy of make disk-image's system (its stage B, the one setup-<key> in the
# cache: the vtboot package's later builds do not matter here) with
# Debian's tboot package installed by dpkg inside it, SINIT as /boot/vtboot-sinit.bin (the
# name 20_linux_tboot's /boot/*sinit* glob finds), tboot's 20_linux_tboot entry as GRUB's
# default and a report unit for the tests (txt-report.sh:
# txt-stat, PCRs 17-19 of both banks) (scripts/disk-image/setup-txt.sh, one QEMU boot of
# the image's own kernel, ~2 minutes under TCG). OUTDIR/disk-txt.img links to it.
#
# Cached in $VTBOOT_CACHE/disk-image/txt-<key>, the key: the setup-<key> entry, the tboot package,
# SINIT and this stage's files; older txt-* entries but the three used last are removed. The
# tboot package is the one installed on this machine (its /boot/tboot.gz is the one the TXT
# tests boot): from apt's cache, else `apt-get download`. Nothing is mounted.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sinit=$1 outdir=$2
cache=${VTBOOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vtboot}/disk-image
part_start=2048
log() { echo "disk-image-txt: $*" >&2; }

mkdir -p "$cache" "$outdir"
exec 9> "$cache/.lock-txt"
flock 9
# make disk-image (build-disk-image.sh) keeps one stage B, under its own lock
image_in=$(flock "$cache/.lock" sh -c 'ls -d "$0"/setup-*/disk.img 2>/dev/null' "$cache")
[ "$(echo "$image_in" | wc -w)" = 1 ] && [ -e "$image_in" ] ||
    { log "no single setup-*/disk.img in $cache: make disk-image first"; exit 1; }

version=$(dpkg-query -W -f='${Version}' tboot 2>/dev/null) || { log "tboot is not installed"; exit 1; }
deb=/var/cache/apt/archives/tboot_${version}_amd64.deb
if [ ! -e "$deb" ]; then
    deb=$cache/tboot_${version}_amd64.deb
    [ -e "$deb" ] || (cd "$cache" && apt-get download "tboot=$version" >&2) ||
        { log "cannot get tboot_${version}_amd64.deb"; exit 1; }
fi
key=$( { echo "$(basename "$(dirname "$image_in")")"; sha256sum < "$deb"; sha256sum < "$sinit";
         cat "$0" "$here/disk-image/setup-txt.sh" "$here/disk-image/txt-report.sh" \
             "$here/disk-image/vtboot-txt-report.service"; } \
       | sha256sum | cut -c1-16)
dir=$cache/txt-$key
if [ ! -e "$dir/disk.img" ]; then
    t0=$(date +%s)
    tmp=$(mktemp -d "$cache/tmp-txt.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    cp --sparse=always "$image_in" "$tmp/disk.img"
    fs="$tmp/disk.img?offset=$((part_start * 512))"
    # the setup boot's kernel and initrd: linux-image-amd64's, from the image itself
    kver=$(debugfs -R "ls -p /boot" "$fs" 2>/dev/null | tr '/' '\n' | sed -n 's/^vmlinuz-//p' \
           | grep -v -e '-rt-amd64$' | head -n 1)
    uuid=$(debugfs -R "cat /etc/fstab" "$fs" 2>/dev/null | sed -n 's/^UUID=\([^ ]*\) \/ .*/\1/p')
    [ -n "$kver" ] && [ -n "$uuid" ] || { log "$image_in: no kernel or root UUID found"; exit 1; }
    debugfs -R "dump /boot/vmlinuz-$kver $tmp/vmlinuz" "$fs" 2>/dev/null
    debugfs -R "dump /boot/initrd.img-$kver $tmp/initrd.img" "$fs" 2>/dev/null
    debugfs -w -f - "$fs" > /dev/null 2>&1 <<EOT
write $deb /var/cache/vtboot-image/$(basename "$deb")
write $sinit /var/cache/vtboot-image/sinit.bin
write $here/disk-image/setup-txt.sh /usr/local/sbin/vtboot-image-setup-txt
sif /usr/local/sbin/vtboot-image-setup-txt mode 0100755
write $here/disk-image/vtboot-txt-report.service /etc/systemd/system/vtboot-txt-report.service
write $here/disk-image/txt-report.sh /usr/local/sbin/vtboot-txt-report
sif /usr/local/sbin/vtboot-txt-report mode 0100755
EOT
    debugfs -R "cat /usr/local/sbin/vtboot-image-setup-txt" "$fs" 2>/dev/null \
        | cmp -s - "$here/disk-image/setup-txt.sh" || { log "debugfs: cannot write setup-txt.sh"; exit 1; }
    log "installing $(basename "$deb") and $(basename "$sinit") in a copy of $image_in ($tmp)"
    set +e
    timeout 1500 qemu-system-x86_64 -nodefaults -no-user-config -machine q35 \
        -accel tcg,thread=single -cpu max -m 1024 -smp 2 -display none -no-reboot \
        -kernel "$tmp/vmlinuz" -initrd "$tmp/initrd.img" \
        -append "root=UUID=$uuid rw console=ttyS0,115200 panic=-1 init=/usr/local/sbin/vtboot-image-setup-txt" \
        -drive file="$tmp/disk.img",format=raw,if=none,id=d0 -device virtio-blk-pci,drive=d0 \
        -serial file:"$tmp/setup.log" < /dev/null
    rc=$?
    set -e
    if [ $rc != 0 ] || ! grep -q '^VTBOOT-IMAGE-SETUP: \[[0-9.]*\] ok' "$tmp/setup.log"; then
        tail -n 60 "$tmp/setup.log" >&2
        log "the setup boot failed (QEMU exit $rc; the last 60 lines of its console are above)"
        exit 1
    fi
    rm -f "$tmp/vmlinuz" "$tmp/initrd.img"
    mv "$tmp" "$dir"
    trap - EXIT
    log "TXT image ready: tboot $version installed, setup boot $(($(date +%s) - t0)) s"
fi
touch "$dir"
ls -dt "$cache"/txt-* | tail -n +4 | xargs -r rm -rf
ln -sfn "$dir/disk.img" "$outdir/disk-txt.img"
ln -sfn "$dir/setup.log" "$outdir/setup-txt.log"
echo "$outdir/disk-txt.img -> $dir/disk.img"
