# guest/guest.mk: the guest initramfs, out/initrd.img (busybox-static, /init, Debian's txt-stat).
# Rebuilt only when one of its inputs changes; guest/mkinitrd.sh is reproducible.

DEPS  += busybox-static cpio gzip tboot
BUILD += $(OUT)/initrd.img

GUEST_INPUTS := guest/mkinitrd.sh guest/init guest/guest.mk \
	$(wildcard /bin/busybox /usr/sbin/txt-stat /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2)

$(OUT)/initrd.img: $(GUEST_INPUTS)
	@guest/mkinitrd.sh $@
