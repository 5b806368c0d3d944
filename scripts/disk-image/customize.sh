#!/bin/sh
# mmdebstrap --customize-hook: the installed system's configuration (a user's VM would have
# the same from the installer), the test's report unit, the setup boot's init, and the second
# kernel package for it (scripts/build-disk-image.sh writes the setup boot's init, setup.sh;
# same version as linux-image-amd64, the PREEMPT_RT flavour: a
# different kernel with CONFIG_INTEL_TXT=y, which 20_linux_vtboot requires).
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

version=$(basename "$(ls "$root"/boot/vmlinuz-*-amd64 | head -n 1)" | sed 's/^vmlinuz-//')
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
chroot "$root" sh -c "cd /var/cache/vtboot-image && apt-get -q download linux-image-${version%-amd64}-rt-amd64" \
    2>&1 | grep -v '^W: Download is performed unsandboxed' || true
deb=$(ls "$root"/var/cache/vtboot-image/linux-image-*-rt-amd64_*.deb)
# the same package without compression: unpacking its xz data (400 MB, 80% modules) takes
# minutes under TCG, and the setup boot is what a changed vtboot package costs
dpkg-deb --raw-extract "$deb" "$root/var/cache/vtboot-image/x"
rm -f "$deb"
dpkg-deb --build -Znone "$root/var/cache/vtboot-image/x" "$deb" > /dev/null
rm -rf "$root/var/cache/vtboot-image/x"
