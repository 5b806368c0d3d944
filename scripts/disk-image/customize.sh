#!/bin/sh
# mmdebstrap --customize-hook: the installed system's configuration (a user's VM would have
# the same from the installer), the test's report unit, and the directory the setup boot
# takes the vtboot package from (scripts/build-disk-image.sh writes it and the setup boot's
# init, setup.sh).
# Environment: ROOT_UUID, the root file system's UUID.
set -eu
root=$1
here=$(cd "$(dirname "$0")" && pwd)

cat > "$root/etc/fstab" <<EOT
UUID=$ROOT_UUID / ext4 errors=remount-ro 0 1
EOT
echo vtboot-guest > "$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tvtboot-guest\n' > "$root/etc/hosts"
chroot "$root" passwd -d root > /dev/null          # a test image: root logs in on ttyS0

version=$(basename "$(ls "$root"/boot/vmlinuz-*-amd64 | grep -v -e '-rt-amd64$')" | sed 's/^vmlinuz-//')
# GRUB on the serial console; the vtboot entry of linux-image-amd64's kernel by default
cat > "$root/etc/default/grub.d/50-vtboot-test-image.cfg" <<EOT
GRUB_DEFAULT="vtboot>vtboot-$version"
GRUB_TIMEOUT=0
GRUB_TERMINAL=serial
GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"
GRUB_CMDLINE_LINUX="console=ttyS0,115200"
GRUB_DISABLE_OS_PROBER=true
EOT

install -m 755 "$here/report.sh" "$root/usr/local/sbin/vtboot-report"
install -m 644 "$here/vtboot-report.service" "$root/etc/systemd/system/vtboot-report.service"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants" "$root/usr/lib/systemd/system-sleep"
ln -sf /etc/systemd/system/vtboot-report.service \
    "$root/etc/systemd/system/multi-user.target.wants/vtboot-report.service"
install -m 755 "$here/sleep-hook.sh" "$root/usr/lib/systemd/system-sleep/vtboot-report"

mkdir -p "$root/var/cache/vtboot-image"
