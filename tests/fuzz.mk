# tests/fuzz.mk: libFuzzer targets for the pure parsers (clang, ASan, UBSan).
#
#   tests/fuzz/<target>_fuzz.c  ->  $(OUT)/tests/fuzz/<target>_fuzz, linked with every pure
#   source and tests/unit/support (phys_fake, builders), all built with coverage.
#   Seeds and regression inputs: tests/fuzz/corpus/<target>/ (seed-* from gen_corpus.c,
#   regress-* from crashes that were fixed). Runs grow a working corpus in
#   $(OUT)/tests/fuzz/corpus/<target>/; crashes land in $(OUT)/tests/fuzz/artifacts/.
#
#   The launcher's targets (host/tests/fuzz/, host/tests/tests.mk) run with these as
#   host/<name>: `make fuzz` and `make fuzz-smoke` run every target of both.
#
#   make fuzz           every target for FUZZ_SECONDS (60) each, then a table: executions,
#                       exec/s, coverage (edges reached of the instrumented ones, features),
#                       corpus size, and the executions of all runs so far (ledger.tsv)
#   make fuzz-smoke     every target for FUZZ_SMOKE_SECONDS (4) each (part of `make test`:
#                       about 70 s on 2 cores); fails on any crash
#   make fuzz-build     only build
#   make fuzz-corpus    regenerate the seed-* files
#   make fuzz-merge     minimise the working corpora (-merge=1) into the corpus dirs
#   FUZZ_JOBS=N         targets run N at a time (default: number of CPUs)
#   FUZZ_TARGETS="a host/b"  only these

DEPS += clang libclang-rt-14-dev

FUZZ_CC            ?= clang
FUZZ_SECONDS       ?= 60
FUZZ_SMOKE_SECONDS ?= 4
FUZZ_JOBS          ?= $(NPROC)
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS  := -std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
                -Iinclude -Isrc -Itests/unit/support -Itests/fuzz $(FUZZ_SAN) -MMD -MP
FUZZ_OBJDIR  := $(OUT)/tests/fuzz
FUZZ_SRCS    := $(sort $(wildcard tests/fuzz/*_fuzz.c))
FUZZ_SRC_ALL := $(patsubst tests/fuzz/%_fuzz.c,%,$(FUZZ_SRCS))
FUZZ_BINS    := $(patsubst %,$(FUZZ_OBJDIR)/%_fuzz,$(FUZZ_SRC_ALL))
FUZZ_ALL     := $(FUZZ_SRC_ALL) $(addprefix host/,$(HOST_FUZZ_ALL))
FUZZ_TARGETS ?= $(FUZZ_ALL)
# a target's binary: NAME -> $(FUZZ_OBJDIR)/NAME_fuzz, host/NAME -> $(HOST_FUZZ_DIR)/NAME_fuzz
fuzz_bin = $(foreach t,$(1),$(if $(filter host/%,$(t)),$(HOST_FUZZ_DIR)/$(patsubst host/%,%,$(t))_fuzz,$(FUZZ_OBJDIR)/$(t)_fuzz))
FUZZ_LIBSRCS := $(VTBOOT_PURE_SRCS) tests/unit/support/phys_fake.c tests/unit/support/builders.c \
                tests/unit/support/pci_fake.c
FUZZ_LIBOBJS := $(patsubst %.c,$(FUZZ_OBJDIR)/obj/%.o,$(FUZZ_LIBSRCS))
FUZZ_LIB     := $(FUZZ_OBJDIR)/libvtfuzz.a
FUZZ_GEN     := $(FUZZ_OBJDIR)/gen_corpus
# targets that link more: crypto compares every path with OpenSSL too
FUZZ_LDLIBS.crypto := -lcrypto

.PHONY: fuzz fuzz-smoke fuzz-build fuzz-corpus fuzz-merge

fuzz-build: $(FUZZ_BINS) host-fuzz-build

$(FUZZ_OBJDIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIBOBJS)
	@rm -f $@
	@ar rcs $@ $^

$(FUZZ_OBJDIR)/%_fuzz: tests/fuzz/%_fuzz.c $(FUZZ_LIB)
	@mkdir -p $(@D)
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MF $@.d $< $(FUZZ_LIB) $(FUZZ_LDLIBS.$*) -o $@

fuzz: $(call fuzz_bin,$(FUZZ_TARGETS))
	@HOST_FUZZ_DIR=$(HOST_FUZZ_DIR) tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_OBJDIR) $(FUZZ_TARGETS)

fuzz-smoke: $(call fuzz_bin,$(FUZZ_TARGETS))
	@HOST_FUZZ_DIR=$(HOST_FUZZ_DIR) tests/fuzz/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_JOBS) $(FUZZ_OBJDIR) $(FUZZ_TARGETS)

# the working corpus of each target (grown by runs in $(FUZZ_OBJDIR)/corpus/) minimised into
# its corpus dir in the repo: what is there plus what adds coverage; regress-* stay as they are
fuzz-merge: $(call fuzz_bin,$(FUZZ_TARGETS))
	@HOST_FUZZ_DIR=$(HOST_FUZZ_DIR) tests/fuzz/merge.sh $(FUZZ_OBJDIR) $(FUZZ_TARGETS)

$(FUZZ_GEN): tests/fuzz/gen_corpus.c tests/unit/support/builders.c tests/unit/support/builders.h \
             tests/unit/support/pci_fake.c tests/unit/support/pci_fake.h
	@mkdir -p $(@D)
	@$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Itests/unit/support -Isrc -o $@ \
		tests/fuzz/gen_corpus.c tests/unit/support/builders.c tests/unit/support/pci_fake.c

fuzz-corpus: $(FUZZ_GEN)
	@$(FUZZ_GEN) tests/fuzz/corpus
	@echo "fuzz-corpus: seeds written to tests/fuzz/corpus/"

-include $(FUZZ_LIBOBJS:.o=.d) $(FUZZ_BINS:=.d)

# txt_regs: QEMU's TXT register file (hw/misc/intel_txt_regs.c and its header) as the QEMU
# series leaves it (0004 creates it, 0011 adds the TXT reset), extracted from qemu/patches by
# scripts/series-file.sh: the fuzzer runs the patches' own code
TXT_REGS_PATCHES := qemu/patches/series $(wildcard qemu/patches/*.patch)
TXT_REGS_DIR   := $(FUZZ_OBJDIR)/txt_regs
TXT_REGS_GEN   := $(TXT_REGS_DIR)/hw/misc/intel_txt_regs.c \
                  $(TXT_REGS_DIR)/include/hw/misc/intel_txt_regs.h
$(TXT_REGS_GEN): $(TXT_REGS_PATCHES) scripts/series-file.sh
	@mkdir -p $(@D)
	@scripts/series-file.sh qemu/patches $(patsubst $(TXT_REGS_DIR)/%,%,$@) >$@.tmp
	@mv $@.tmp $@

$(FUZZ_OBJDIR)/txt_regs_fuzz: tests/fuzz/txt_regs_fuzz.c tests/fuzz/fuzz_common.h include/abi/txt.h \
                              $(TXT_REGS_GEN) $(FUZZ_LIB)
	@mkdir -p $(@D)
	@$(FUZZ_CC) $(filter-out -MMD -MP,$(FUZZ_CFLAGS)) -I$(TXT_REGS_DIR)/include -fsanitize=fuzzer \
		$< $(TXT_REGS_DIR)/hw/misc/intel_txt_regs.c $(FUZZ_LIB) -o $@
