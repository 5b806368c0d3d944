#!/bin/sh
# The TXT disk image's one setup boot (scripts/build-disk-image-txt.sh boots the image's own
# kernel with init=/usr/local/sbin/vtboot-image-setup-txt), as PID 1 without systemd: what a
# user of a TXT machine does. Debian's tboot package with dpkg (its /etc/grub.d/20_linux_tboot),
# the platform's SINIT into /boot (the builder left it in /var/cache/vtboot-image/), tboot's and
# Linux's command lines in /etc/default/grub-tboot, the tboot entry of linux-image-amd64's
# kernel as GRUB's default, the report unit of the TXT tests, update-grub. Every line starts
# with "VTBOOT-IMAGE-SETUP: "; the last is "... ok" or "... FAILED: <step>".
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
debs=/var/cache/vtboot-image

say() { echo "VTBOOT-IMAGE-SETUP: [$(cut -d' ' -f1 /proc/uptime)] $*"; }
end() {
    sync
    mount -o remount,ro / || { echo u > /proc/sysrq-trigger; sleep 2; }
    echo o > /proc/sysrq-trigger
    sleep 30
}
step() {
    # "$1": what; the rest: the command, its output indented
    what=$1
    shift
    "$@" > /run/step.out 2>&1
    rc=$?
    sed 's/^/  | /' /run/step.out
    [ "$rc" = 0 ] || { say "FAILED: $what"; end; }
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /run
mount -o remount,rw / || { say "FAILED: remount / read-write"; end; }
echo 1 > /proc/sys/kernel/sysrq
say "begin $(uname -r)"
/lib/systemd/systemd-udevd --daemon || { say "FAILED: udevd"; end; }
udevadm trigger --action=add
udevadm settle --timeout=60

step "dpkg -i tboot" dpkg -i "$debs"/tboot_*.deb
step "the SINIT into /boot" install -m 644 "$debs/sinit.bin" /boot/vtboot-sinit.bin
# TCG has no VMX: tboot wakes APs with MWAIT; the kernel skips its timer check, which
# interrupt remapping fails under a loaded TCG host (tests/qemu/test_txt_launch.py LINUX_CMDLINE)
cat >> /etc/default/grub-tboot <<EOT

# vtboot's TXT test image (scripts/disk-image/setup-txt.sh)
GRUB_CMDLINE_TBOOT="logging=serial,memory loglvl=all ap_wake_mwait=true"
GRUB_CMDLINE_LINUX_TBOOT="no_timer_check"
EOT
cat > /etc/default/grub.d/60-vtboot-txt-image.cfg <<EOT
GRUB_DEFAULT="tboot 1.10.5>Debian GNU/Linux, with tboot 1.10.5 and Linux $(uname -r)"
EOT
ln -sf /etc/systemd/system/vtboot-txt-report.service \
    /etc/systemd/system/multi-user.target.wants/vtboot-txt-report.service
step "update-grub" update-grub
cp /boot/grub/grub.cfg /var/lib/vtboot-image/grub.cfg.tboot
dpkg-query -W -f='${Package} ${Version} ${Status}\n' tboot | sed 's/^/  /'
rm -f "$debs"/tboot_*.deb "$debs/sinit.bin"
udevadm control --exit || true
say "ok"
end
