#!/bin/sh
# The disk image's one setup boot (scripts/build-disk-image.sh boots the image's own kernel and
# initrd with init=/usr/local/sbin/vtboot-image-setup): what a user does in an installed
# guest, here as PID 1 without systemd. GRUB into the MBR, the vtboot package with dpkg (its
# postinst runs update-grub: an entry per kernel, the image has two), the vtboot package
# removed and installed again; /var/lib/vtboot-image/grub.cfg.<step> keeps
# grub.cfg after each step for tests/qemu/test_disk.py. With vtboot.setup=reinstall on the
# kernel command line only the vtboot package is installed (over the one the image has).
# Every line it prints starts with
# "VTBOOT-IMAGE-SETUP: "; the last one is "... ok" or "... FAILED: <step>".
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
state=/var/lib/vtboot-image
debs=/var/cache/vtboot-image

say() { echo "VTBOOT-IMAGE-SETUP: [$(cut -d' ' -f1 /proc/uptime)] $*"; }
end() {
    # a clean file system (no journal to replay): the builder writes into it with debugfs
    sync
    mount -o remount,ro / || { echo u > /proc/sysrq-trigger; sleep 2; }
    echo o > /proc/sysrq-trigger
    sleep 30
}
fail() {
    say "FAILED: $*"
    end
}
run() {
    # run "$@" with its output indented; exit status kept
    { "$@" 2>&1; echo "rc=$?" > /run/vtboot-setup.rc; } | sed 's/^/  | /'
    rc=$(sed -n 's/^rc=//p' /run/vtboot-setup.rc)
    return "$rc"
}
keep() { cp /boot/grub/grub.cfg "$state/grub.cfg.$1" || fail "keep grub.cfg.$1"; say "kept grub.cfg.$1"; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /run
mount -o remount,rw / || fail "remount / read-write"
mkdir -p "$state"
echo 1 > /proc/sys/kernel/sysrq
say "begin $(uname -r)"

# udev: /dev/disk/by-uuid, which grub-mkconfig needs to write root=UUID=...
/lib/systemd/systemd-udevd --daemon || fail "udevd"
udevadm trigger --action=add
udevadm settle --timeout=60

if grep -q 'vtboot.setup=reinstall' /proc/cmdline; then
    # a later vtboot package over an image made with an earlier one (same packaging): what a
    # user's upgrade does; its postrm and postinst run update-grub
    say "installing the vtboot package over the installed one"
    run dpkg -i "$debs"/vtboot_*.deb || fail "dpkg -i vtboot (over the installed one)"
    keep final
    dpkg-query -W -f='${Package} ${Version} ${Status}\n' vtboot | sed 's/^/  /'
    rm -f "$debs"/*.deb
    udevadm control --exit || true
    say "ok"
    end
fi

disk=/dev/vda
run grub-install --target=i386-pc "$disk" || fail "grub-install $disk"
say "GRUB installed in the MBR of $disk"
run update-grub || fail "update-grub"
keep initial

say "installing the vtboot package"
run dpkg -i "$debs"/vtboot_*.deb || fail "dpkg -i vtboot"
keep vtboot

say "removing the vtboot package"
run dpkg -r vtboot || fail "dpkg -r vtboot"
keep removed

say "installing the vtboot package again"
run dpkg -i "$debs"/vtboot_*.deb || fail "dpkg -i vtboot (again)"
keep final

dpkg-query -W -f='${Package} ${Version} ${Status}\n' vtboot 'linux-image-*' | sed 's/^/  /'
rm -f "$debs"/*.deb
udevadm control --exit || true
say "ok"
end
