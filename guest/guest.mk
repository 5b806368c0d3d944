# guest/guest.mk: the guest initramfs, out/initrd.img (busybox-static, /init, Debian's txt-stat).
# Rebuilt only when one of its inputs changes; guest/mkinitrd.sh is reproducible.

DEPS  += busybox-static cpio gzip tboot
BUILD += $(OUT)/initrd.img

# Guest tools: static x86_64 programs, built from vtboot's pure sources (e.g. its TPM code, used
# through the kernel's /dev/tpm0) or on their own (vtboot-drain).
GUEST_TOOL_OBJDIR := $(OUT)/guest
GUEST_TOOLS := $(GUEST_TOOL_OBJDIR)/vtboot-seal $(GUEST_TOOL_OBJDIR)/vtboot-drain \
	$(GUEST_TOOL_OBJDIR)/vtboot-keyscan
GUEST_SRCS.vtboot-seal := guest/tools/vtboot-seal.c guest/tools/tpmdev.c src/tpm/tpm2.c src/tpm/tpm2_seal.c \
	src/tpm/marshal.c src/crypto/hash.c src/crypto/sha1.c src/crypto/sha256.c \
	src/crypto/sha512.c src/crypto/sha2_k.c src/lib/format.c src/lib/string.c
DEPS += libc6-dev

$(GUEST_TOOL_OBJDIR)/vtboot-seal: $(GUEST_SRCS.vtboot-seal) $(wildcard src/tpm/*.h src/crypto/*.h src/lib/*.h include/abi/*.h) guest/tools/tpmdev.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -static -Wall -Wextra -Werror -Iinclude -Isrc -o $@ $(GUEST_SRCS.vtboot-seal)

# vtboot-tpm-attack: root's attempts on the host's TPM hierarchies (vtboot's TPM code over
# /dev/tpm0). Linked against the image's glibc (txt-stat's): 20 KB, not a static 900 KB that
# every boot would measure.
GUEST_LIBC_TOOLS := $(GUEST_TOOL_OBJDIR)/vtboot-tpm-attack $(GUEST_TOOL_OBJDIR)/vtboot-tpm-flush $(GUEST_TOOL_OBJDIR)/vtboot-txt-evlog \
	$(GUEST_TOOL_OBJDIR)/vtboot-mmio-race
GUEST_SRCS.vtboot-tpm-attack := guest/tools/vtboot-tpm-attack.c guest/tools/tpmdev.c src/tpm/tpm2.c \
	src/tpm/marshal.c src/lib/format.c src/lib/string.c

$(GUEST_TOOL_OBJDIR)/vtboot-tpm-attack: $(GUEST_SRCS.vtboot-tpm-attack) $(wildcard src/tpm/*.h src/lib/*.h include/abi/*.h) guest/tools/tpmdev.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude -Isrc -o $@ $(GUEST_SRCS.vtboot-tpm-attack)

# vtboot-tpm-flush: every transient object flushed (Debian's tboot leaks its S3 blobs;
# the tool says why); dynamic, as vtboot-tpm-attack
GUEST_SRCS.vtboot-tpm-flush := guest/tools/vtboot-tpm-flush.c guest/tools/tpmdev.c src/tpm/tpm2.c \
	src/tpm/tpm2_seal.c src/tpm/marshal.c src/crypto/hash.c src/crypto/sha1.c src/crypto/sha256.c \
	src/crypto/sha512.c src/crypto/sha2_k.c src/lib/format.c src/lib/string.c

$(GUEST_TOOL_OBJDIR)/vtboot-tpm-flush: $(GUEST_SRCS.vtboot-tpm-flush) $(wildcard src/tpm/*.h src/crypto/*.h src/lib/*.h include/abi/*.h) guest/tools/tpmdev.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude -Isrc -o $@ $(GUEST_SRCS.vtboot-tpm-flush)

$(GUEST_TOOL_OBJDIR)/vtboot-drain: guest/tools/vtboot-drain.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -static -Wall -Wextra -Werror -o $@ $<

# vtboot-txt-evlog: the TXT launch's event log from the heap, parsed by src/txt/heap.c;
# dynamic, as vtboot-tpm-attack
$(GUEST_TOOL_OBJDIR)/vtboot-txt-evlog: guest/tools/vtboot-txt-evlog.c src/txt/heap.c \
                                       src/txt/heap.h src/lib/format.c src/lib/string.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude -Isrc -o $@ \
	    guest/tools/vtboot-txt-evlog.c src/txt/heap.c src/lib/format.c src/lib/string.c

# vtboot-mmio-race: QEMU's routing of one CPU's MMIO while another changes the memory map
# (issue 21's lost EOI); dynamic, as vtboot-tpm-attack
$(GUEST_TOOL_OBJDIR)/vtboot-mmio-race: guest/tools/vtboot-mmio-race.c guest/tools/pcidev.c \
                                       guest/tools/pcidev.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ guest/tools/vtboot-mmio-race.c \
	    guest/tools/pcidev.c

$(GUEST_TOOL_OBJDIR)/vtboot-keyscan: guest/tools/vtboot-keyscan.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -static -Wall -Wextra -Werror -o $@ $<

# vtboot-hostpage: reads an item of the launcher's page (the --attest nonce) from its ivshmem
# device; its parser is host/lib/hostpage.c (pure, unit-tested on the host). Only in
# initrd-attest.img (below): the plain image stays as it was.
GUEST_ATTEST_TOOLS := $(GUEST_TOOL_OBJDIR)/vtboot-hostpage

$(GUEST_TOOL_OBJDIR)/vtboot-hostpage: guest/tools/vtboot-hostpage.c host/lib/hostpage.c host/lib/hostpage.h \
                                      guest/tools/pcidev.c guest/tools/pcidev.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -static -Wall -Wextra -Werror -Ihost/lib -Isrc -o $@ guest/tools/vtboot-hostpage.c \
	    host/lib/hostpage.c guest/tools/pcidev.c

GUEST_INPUTS := guest/mkinitrd.sh guest/init guest/guest.mk $(GUEST_TOOLS) \
	$(wildcard /bin/busybox /usr/sbin/txt-stat /usr/sbin/txt-acminfo /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2)

$(OUT)/initrd.img: $(GUEST_INPUTS) $(GUEST_LIBC_TOOLS)
	@GUEST_TOOLS="$(GUEST_TOOLS)" GUEST_DYN_TOOLS="$(GUEST_LIBC_TOOLS)" guest/mkinitrd.sh $@

# The same initramfs plus dynamically linked tools, copied with the libraries ldd names (as
# txt-stat): vtboot-attest (tpm2-tss and OpenSSL; /init's attest action runs its quote).
# vtboot-qemu --attest boots it. A separate image because vtboot measures every initrd byte in
# every bank: the 7 MB more (libcrypto alone is 4.7 MB) cost ~0.85 s per boot under TCG.
GUEST_DYN_TOOLS := $(BIN)/vtboot-attest
BUILD += $(OUT)/initrd-attest.img

$(OUT)/initrd-attest.img: $(GUEST_INPUTS) $(GUEST_ATTEST_TOOLS) $(GUEST_DYN_TOOLS) \
	$(GUEST_LIBC_TOOLS) $(wildcard /lib/x86_64-linux-gnu/libtss2-*.so.? /lib/x86_64-linux-gnu/libcrypto.so.3)
	@GUEST_TOOLS="$(GUEST_TOOLS) $(GUEST_ATTEST_TOOLS)" \
		GUEST_DYN_TOOLS="$(GUEST_LIBC_TOOLS) $(GUEST_DYN_TOOLS)" guest/mkinitrd.sh $@
