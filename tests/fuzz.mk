# tests/fuzz.mk: libFuzzer targets for the pure parsers (clang, ASan, UBSan).
#
#   tests/fuzz/<target>_fuzz.c  ->  $(OUT)/tests/fuzz/<target>_fuzz, linked with every pure
#   source and tests/unit/support (phys_fake, builders), all built with coverage.
#   Seeds and regression inputs: tests/fuzz/corpus/<target>/ (seed-* from gen_corpus.c,
#   regress-* from crashes that were fixed). Runs grow a working corpus in
#   $(OUT)/tests/fuzz/corpus/<target>/; crashes land in $(OUT)/tests/fuzz/artifacts/.
#
#   make fuzz           every target for FUZZ_SECONDS (60) each
#   make fuzz-smoke     every target for FUZZ_SMOKE_SECONDS (10) each; fails on any crash
#   make fuzz-build     only build
#   make fuzz-corpus    regenerate the seed-* files
#   FUZZ_JOBS=N         targets run N at a time (default: number of CPUs)
#   FUZZ_TARGETS="a b"  only these

DEPS += clang libclang-rt-14-dev

FUZZ_CC            ?= clang
FUZZ_SECONDS       ?= 60
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_JOBS          ?= $(shell nproc 2>/dev/null || echo 1)
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS  := -std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
                -Iinclude -Isrc -Itests/unit/support -Itests/fuzz $(FUZZ_SAN) -MMD -MP
FUZZ_OBJDIR  := $(OUT)/tests/fuzz
FUZZ_SRCS    := $(sort $(wildcard tests/fuzz/*_fuzz.c))
FUZZ_TARGETS ?= $(patsubst tests/fuzz/%_fuzz.c,%,$(FUZZ_SRCS))
FUZZ_ALL     := $(patsubst tests/fuzz/%_fuzz.c,%,$(FUZZ_SRCS))
FUZZ_BINS    := $(patsubst %,$(FUZZ_OBJDIR)/%_fuzz,$(FUZZ_ALL))
FUZZ_LIBSRCS := $(VTBOOT_PURE_SRCS) tests/unit/support/phys_fake.c tests/unit/support/builders.c
FUZZ_LIBOBJS := $(patsubst %.c,$(FUZZ_OBJDIR)/obj/%.o,$(FUZZ_LIBSRCS))
FUZZ_LIB     := $(FUZZ_OBJDIR)/libvtfuzz.a
FUZZ_GEN     := $(FUZZ_OBJDIR)/gen_corpus
# targets that link more: crypto compares every path with OpenSSL too
FUZZ_LDLIBS.crypto := -lcrypto

.PHONY: fuzz fuzz-smoke fuzz-build fuzz-corpus

fuzz-build: $(FUZZ_BINS)

$(FUZZ_OBJDIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIBOBJS)
	@rm -f $@
	@ar rcs $@ $^

$(FUZZ_OBJDIR)/%_fuzz: tests/fuzz/%_fuzz.c $(FUZZ_LIB)
	@mkdir -p $(@D)
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MF $@.d $< $(FUZZ_LIB) $(FUZZ_LDLIBS.$*) -o $@

fuzz: $(patsubst %,$(FUZZ_OBJDIR)/%_fuzz,$(FUZZ_TARGETS))
	@tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_OBJDIR) $(FUZZ_TARGETS)

fuzz-smoke: $(patsubst %,$(FUZZ_OBJDIR)/%_fuzz,$(FUZZ_TARGETS))
	@tests/fuzz/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_JOBS) $(FUZZ_OBJDIR) $(FUZZ_TARGETS)

$(FUZZ_GEN): tests/fuzz/gen_corpus.c tests/unit/support/builders.c tests/unit/support/builders.h
	@mkdir -p $(@D)
	@$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Itests/unit/support -o $@ \
		tests/fuzz/gen_corpus.c tests/unit/support/builders.c

fuzz-corpus: $(FUZZ_GEN)
	@$(FUZZ_GEN) tests/fuzz/corpus
	@echo "fuzz-corpus: seeds written to tests/fuzz/corpus/"

-include $(FUZZ_LIBOBJS:.o=.d) $(FUZZ_BINS:=.d)
