# guest/guest.mk: the guest initramfs, out/initrd.img (busybox-static, /init, Debian's txt-stat).
# Rebuilt only when one of its inputs changes; guest/mkinitrd.sh is reproducible.

DEPS  += busybox-static cpio gzip tboot
BUILD += $(OUT)/initrd.img

# Guest tools: static x86_64 programs, built from vtboot's pure sources (e.g. its TPM code, used
# through the kernel's /dev/tpm0) or on their own (vtboot-drain).
GUEST_TOOL_OBJDIR := $(OUT)/guest
GUEST_TOOLS := $(GUEST_TOOL_OBJDIR)/vtboot-seal $(GUEST_TOOL_OBJDIR)/vtboot-drain
GUEST_SRCS.vtboot-seal := guest/tools/vtboot-seal.c src/tpm/tpm2.c src/tpm/tpm2_seal.c \
	src/tpm/marshal.c src/crypto/hash.c src/crypto/sha1.c src/crypto/sha256.c \
	src/crypto/sha512.c src/lib/format.c src/lib/string.c
DEPS += libc6-dev

$(GUEST_TOOL_OBJDIR)/vtboot-seal: $(GUEST_SRCS.vtboot-seal) $(wildcard src/tpm/*.h src/crypto/*.h src/lib/*.h include/abi/*.h)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -static -Wall -Wextra -Werror -Iinclude -Isrc -o $@ $(GUEST_SRCS.vtboot-seal)

$(GUEST_TOOL_OBJDIR)/vtboot-drain: guest/tools/vtboot-drain.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -static -Wall -Wextra -Werror -o $@ $<

GUEST_INPUTS := guest/mkinitrd.sh guest/init guest/guest.mk $(GUEST_TOOLS) \
	$(wildcard /bin/busybox /usr/sbin/txt-stat /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2)

$(OUT)/initrd.img: $(GUEST_INPUTS)
	@GUEST_TOOLS="$(GUEST_TOOLS)" guest/mkinitrd.sh $@
