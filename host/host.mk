# host/host.mk: the host-side tools (C, run on the build machine).
#
#   host/lib/*.c      -> $(OUT)/host/libvthost.a, linked into every tool
#   host/<tool>/*.c   -> $(BIN)/<tool>, for every directory host/<tool>/ except lib/ and tests/
#   host/tests/       -> the launcher's own tests (`make host-test`, part of `make test`)

DEPS += gcc make libssl-dev qemu-system-x86 swtpm swtpm-tools grub-pc-bin grub-common \
        xorriso mtools gzip python3 procps tpm2-tools

HOST_CC      ?= gcc
HOST_CFLAGS  := -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -MMD -MP -Ihost/lib -Iinclude
HOST_LDLIBS  := -lcrypto
HOST_OBJDIR  := $(OUT)/host
HOST_LIB     := $(HOST_OBJDIR)/libvthost.a

HOST_LIB_SRC := $(wildcard host/lib/*.c)
HOST_LIB_OBJ := $(patsubst host/%.c,$(HOST_OBJDIR)/%.o,$(HOST_LIB_SRC))
HOST_TOOLS   := $(filter-out lib tests,$(patsubst host/%/,%,$(dir $(wildcard host/*/*.c))))
HOST_TOOLS   := $(sort $(HOST_TOOLS))
HOST_BINS    := $(addprefix $(BIN)/,$(HOST_TOOLS))
# each tool's sources and objects: HOST_SRC.<tool>, HOST_OBJ.<tool>
$(foreach t,$(HOST_TOOLS),$(eval HOST_SRC.$(t) := $(wildcard host/$(t)/*.c)))
$(foreach t,$(HOST_TOOLS),$(eval HOST_OBJ.$(t) := $(patsubst host/%.c,$(HOST_OBJDIR)/%.o,$(HOST_SRC.$(t)))))

BUILD += $(HOST_BINS)

$(HOST_OBJDIR)/%.o: host/%.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -I$(<D) -Isrc -c -o $@ $<

$(HOST_LIB): $(HOST_LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# vtboot's pure sources (VTBOOT_PURE_SRCS, src/vtboot.mk: parsers of the same formats) built for
# the host, as an archive after libvthost.a: a tool links the objects it uses.
HOST_PURE_OBJ := $(patsubst src/%.c,$(HOST_OBJDIR)/pure/%.o,$(VTBOOT_PURE_SRCS))
HOST_PURE_LIB := $(HOST_OBJDIR)/libvtpure.a
HOST_LDLIBS.vtboot-pcr := -lz
DEPS += zlib1g-dev
# vtboot-attest: tpm2-tss (ESAPI, marshalling, the device and swtpm TCTIs); the guest runs it too
HOST_LDLIBS.vtboot-attest := -ltss2-esys -ltss2-mu -ltss2-tcti-device -ltss2-tcti-swtpm -lz
# swtpm_localca (swtpm-tools) makes the EK CA with gnutls-bin's certtool; the attestation tests
# forge a quote with python3-cryptography
DEPS += libtss2-dev gnutls-bin python3-cryptography

$(HOST_OBJDIR)/pure/%.o: src/%.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -Isrc -c -o $@ $<

$(HOST_PURE_LIB): $(HOST_PURE_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# One link rule per tool: $(BIN)/<tool> from HOST_OBJ.<tool>
define HOST_TOOL_RULE
$(BIN)/$(1): $(HOST_OBJ.$(1)) $(HOST_LIB) $(HOST_PURE_LIB)
	@mkdir -p $$(@D)
	$(HOST_CC) -o $$@ $$^ $(HOST_LDLIBS) $(HOST_LDLIBS.$(1))
endef
$(foreach t,$(HOST_TOOLS),$(eval $(call HOST_TOOL_RULE,$(t))))

-include $(HOST_LIB_OBJ:.o=.d) $(HOST_PURE_OBJ:.o=.d) $(foreach t,$(HOST_TOOLS),$(HOST_OBJ.$(t):.o=.d))

# The GRUB boot ISO of the default files (vtboot.gz, bzImage, initrd.img come from the other
# fragments); `vtboot-qemu --grub` boots it when it is up to date.
$(OUT)/vtboot.iso: $(BIN)/vtboot-qemu $(OUT)/vtboot.gz $(OUT)/bzImage $(OUT)/initrd.img
	$(BIN)/vtboot-qemu --make-iso $@

BUILD += $(OUT)/vtboot.iso

include host/tests/tests.mk
