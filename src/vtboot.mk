# The pre-kernel: freestanding 32-bit C, linked at its tboot-like address (src/arch/x86/vtboot.ld).
# Pure sources (parsers, builders, decisions) also build for the host: see tests/tests.mk.
# The layout says what runs where: src/prelaunch/ runs only before the launch (unmeasured),
# src/mle/ only in the MLE, src/common/ is the flow both halves run; drivers/ and arch/x86/
# touch hardware; every other directory is pure.

VTBOOT_PURE_SRCS := $(sort $(wildcard src/lib/*.c src/log/*.c src/boot/*.c src/mem/*.c \
                      src/linux/*.c src/tboot/*.c src/acpi/*.c src/tpm/*.c \
                      src/crypto/*.c src/mbkernel/*.c src/pci/*.c src/smp/*.c \
                      src/intc/*.c src/txt/*.c))
VTBOOT_PURE_SRCS := $(filter-out src/lib/libgcc.c,$(VTBOOT_PURE_SRCS))
# The hashes and the MAC with what they need, for the crypto benchmark (tests/tests.mk).
VTBOOT_CRYPTO_SRCS := $(filter src/crypto/%,$(VTBOOT_PURE_SRCS)) src/lib/string.c
VTBOOT_HW_SRCS   := $(sort $(wildcard src/common/*.c src/drivers/*.c src/arch/x86/*.c \
                      src/prelaunch/*.c src/mle/*.c)) src/lib/libgcc.c
VTBOOT_ASM_SRCS  := $(sort $(wildcard src/arch/x86/*.S src/prelaunch/*.S src/mle/*.S))

VTBOOT_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
VTBOOT_OBJDIR  := $(OUT)/obj/vtboot
VTBOOT_CFLAGS  := -m32 -march=i686 -std=gnu11 -O2 -g -ffreestanding -fno-pic -fno-pie \
                  -fno-stack-protector -mgeneral-regs-only -fno-asynchronous-unwind-tables \
                  -fno-tree-loop-distribute-patterns -fno-strict-aliasing -fno-common \
                  -ffunction-sections -fdata-sections \
                  -Wall -Wextra -Werror -Wno-address-of-packed-member -Iinclude -Isrc \
                  -DVTBOOT_VERSION='"$(VTBOOT_VERSION)"'
VTBOOT_LDFLAGS := -m32 -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-T,src/arch/x86/vtboot.ld \
                  -Wl,--gc-sections \
                  -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments

VTBOOT_OBJS := $(patsubst src/%.c,$(VTBOOT_OBJDIR)/%.o,$(VTBOOT_PURE_SRCS) $(VTBOOT_HW_SRCS)) \
               $(patsubst src/%.S,$(VTBOOT_OBJDIR)/%.o,$(VTBOOT_ASM_SRCS))

BUILD += $(OUT)/vtboot $(OUT)/vtboot.gz

# Objects depend on this file too: a change of flags rebuilds them.
$(VTBOOT_OBJDIR)/%.o: src/%.c src/vtboot.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(VTBOOT_CFLAGS) -MMD -MP -c $< -o $@

$(VTBOOT_OBJDIR)/%.o: src/%.S src/vtboot.mk
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@$(CC) $(VTBOOT_CFLAGS) -D__ASSEMBLY__ -MMD -MP -c $< -o $@

# The linker script refuses initialized writable data; vtboot-pcr check-mle then checks the
# result against its own MLE header: every byte the file loads is measured by the launch.
# --gc-sections leaves out what vtboot never calls (parsers' helpers only the tests use), and
# check-image-dead-code.sh fails the build if any such symbol still reaches the image.
$(OUT)/vtboot: $(VTBOOT_OBJS) src/arch/x86/vtboot.ld $(BIN)/vtboot-pcr scripts/check-image-dead-code.sh
	@echo "  LD      $@"
	@$(CC) $(VTBOOT_LDFLAGS) -o $@.tmp $(VTBOOT_OBJS)
	@scripts/check-image-dead-code.sh $@.tmp $(VTBOOT_OBJS)
	@$(BIN)/vtboot-pcr check-mle $@.tmp >/dev/null
	@mv -f $@.tmp $@

$(OUT)/vtboot.gz: $(OUT)/vtboot
	gzip -9 -n -c $< > $@

-include $(VTBOOT_OBJS:.o=.d)
