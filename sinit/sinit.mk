# sinit/sinit.mk: our SINIT ACMs (docs/txt-platform.md 3): the SINIT (sinit/*.c, entry.S, and
# the pure code and drivers of src/ it shares with vtboot) -> $(OUT)/sinit.bin, and the test ACM
# of the emulated GETSEC[ENTERACCS] (qemu/patches 0005): sinit/test/echo.S -> $(OUT)/test/echo.bin;
# both laid out and signed by vtboot-acm with the project key.
#
# The keys live in the cache, never in git (docs 3.3): project-key.pem signs out/sinit.bin and
# nothing else; test-key.pem signs the test ACMs (echo.bin, and the tests' own variants), whose
# hash only the tests' platforms hold, so that no module that writes what its caller asks from
# AC mode runs on a platform that trusts our SINIT; other-key.pem is the wrong key the tests
# sign with. Each is made once, when absent.

SINIT_KEYDIR     := $(VTBOOT_CACHE)/sinit
SINIT_KEY        := $(SINIT_KEYDIR)/project-key.pem
SINIT_OTHER_KEY  := $(SINIT_KEYDIR)/other-key.pem
SINIT_TEST_KEY   := $(SINIT_KEYDIR)/test-key.pem
SINIT_OBJDIR     := $(OUT)/sinit
SINIT_CC         := $(HOST_CC) -m32 -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
                    -fno-asynchronous-unwind-tables -mno-sse -mno-mmx -mno-80387 -O2 -g \
                    -Wall -Wextra -Werror -Iinclude
SINIT_TEST_SRC   := sinit/test/echo.S

# The SINIT proper: position-independent (it runs wherever GETSEC[SENTER] found it, entry.S
# relocates it), general registers only (CR4.OSFXSR is off in AC mode), no initialized
# writable data but what the relocations patch.
SINIT_SRCS := $(sort $(wildcard sinit/*.c)) \
              src/txt/acm.c src/txt/heap.c src/txt/drtm.c src/txt/lcp.c src/txt/mle_walk.c \
              src/txt/mtrr.c src/txt/sinit_mle.c src/txt/smram.c src/txt/vtd_units.c \
              src/acpi/acpi.c src/acpi/tables.c \
              src/crypto/hash.c src/crypto/sha1.c src/crypto/sha256.c src/crypto/sha512.c \
              src/crypto/sha2_k.c src/tpm/tpm2.c src/tpm/marshal.c src/tpm/eventlog.c \
              src/drivers/tis.c src/drivers/timer.c src/drivers/uart.c src/drivers/pci.c \
              src/pci/walk.c src/log/printk.c \
              src/log/memlog.c src/lib/string.c src/lib/format.c src/lib/libgcc.c \
              src/arch/x86/phys.c
SINIT_ASM_SRCS := sinit/entry.S
SINIT_CFLAGS := -m32 -march=i686 -std=gnu11 -O2 -g -ffreestanding -fpie -fvisibility=hidden \
                -fno-plt -fno-stack-protector -mgeneral-regs-only \
                -fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns \
                -fno-strict-aliasing -fno-common -ffunction-sections -fdata-sections \
                -Wall -Wextra -Werror -Wno-address-of-packed-member -Iinclude -Isrc -Isinit
SINIT_OBJS := $(patsubst %.c,$(SINIT_OBJDIR)/%.o,$(SINIT_SRCS)) \
              $(patsubst %.S,$(SINIT_OBJDIR)/%.o,$(SINIT_ASM_SRCS))

$(SINIT_OBJDIR)/%.o: %.c sinit/sinit.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $< (sinit)"
	@$(CC) $(SINIT_CFLAGS) -MMD -MP -c $< -o $@

$(SINIT_OBJDIR)/sinit/entry.o: sinit/entry.S sinit/sinit.mk
	@mkdir -p $(dir $@)
	@echo "  AS      $< (sinit)"
	@$(CC) $(SINIT_CFLAGS) -D__ASSEMBLY__ -MMD -MP -c $< -o $@

# -z text: no relocation in code; only R_386_RELATIVE ones, which entry.S applies. The image
# holds only code the SINIT runs (--gc-sections, then the check vtboot's image passes too).
$(SINIT_OBJDIR)/sinit.elf: $(SINIT_OBJS) sinit/sinit.ld scripts/check-image-dead-code.sh
	@echo "  LD      $@"
	@ld -m elf_i386 -pie --no-dynamic-linker -z text -z norelro -z noexecstack \
	   --no-warn-rwx-segments --gc-sections --build-id=none -T sinit/sinit.ld -o $@.tmp \
	   $(SINIT_OBJS)
	@LD_SCRIPT=sinit/sinit.ld scripts/check-image-dead-code.sh $@.tmp $(SINIT_OBJS)
	@mv -f $@.tmp $@

$(OUT)/sinit.bin: $(SINIT_OBJDIR)/sinit.elf $(BIN)/vtboot-acm $(SINIT_KEY)
	$(BIN)/vtboot-acm make $< --key $(SINIT_KEY) -o $@

-include $(SINIT_OBJS:.o=.d)

# keygen writes a temporary file, then a hard link publishes it: the link either appears whole
# or fails because another make (another OUT, the same cache) got there first, whose key then
# stands. keygen itself never overwrites.
$(SINIT_KEY) $(SINIT_OTHER_KEY) $(SINIT_TEST_KEY): | $(BIN)/vtboot-acm
	@mkdir -p $(@D)
	@$(BIN)/vtboot-acm keygen $@.$$$$.tmp && { ln $@.$$$$.tmp $@ 2>/dev/null || test -s $@; }; \
	 rc=$$?; rm -f $@.$$$$.tmp; exit $$rc

$(SINIT_OBJDIR)/test/%.o: sinit/test/%.S sinit/test/echo.h
	@mkdir -p $(@D)
	$(SINIT_CC) -D__ASSEMBLY__ -c -o $@ $<

$(SINIT_OBJDIR)/test/echo.elf: $(patsubst sinit/%.S,$(SINIT_OBJDIR)/%.o,$(SINIT_TEST_SRC)) \
                               sinit/test/echo.ld
	ld -m elf_i386 -nostdlib -static -z noexecstack --no-warn-rwx-segments \
	   -T sinit/test/echo.ld -o $@ $(filter %.o,$^)

$(OUT)/test/echo.bin: $(SINIT_OBJDIR)/test/echo.elf $(BIN)/vtboot-acm $(SINIT_TEST_KEY)
	@mkdir -p $(@D)
	$(BIN)/vtboot-acm make $< --key $(SINIT_TEST_KEY) -o $@

BUILD += $(OUT)/sinit.bin $(OUT)/test/echo.bin $(SINIT_OTHER_KEY) $(SINIT_TEST_KEY)
