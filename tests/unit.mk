# tests/unit.mk: host unit tests of the pure sources, with cmocka, ASan and UBSan.
#
#   tests/unit/<dir>/<name>_test.c  ->  $(OUT)/tests/unit/<dir>/<name>_test, one binary each,
#   linked with every pure source (VTBOOT_PURE_SRCS, from src/vtboot.mk) and tests/unit/support,
#   through an archive, so a test pulls in only the objects it uses; every pure source must
#   still compile for the host.
#
#   make unit-test        build and run them all; one summary line when green
#   make unit-test-build  only build
#   UNIT_VERBOSE=1        print every test's output, not only the failing ones'
#   UNIT_NO_SKIP=1        a skipped test (a missing tool) fails the run; `make test` sets it
#
# A test that needs more libraries sets UNIT_LDLIBS.<dir>/<name>_test (e.g.
# UNIT_LDLIBS.crypto/openssl_compare_test := -lcrypto) in its own fragment.

DEPS += libcmocka-dev clang libclang-rt-14-dev gcc python3
# the TPM, event-log and policy tests: OpenSSL for reference hashes; swtpm, tpm2-tools and
# tb_polgen (tboot) as the real things they check against (each skipped, saying so, if absent)
DEPS += libssl-dev swtpm tpm2-tools tboot

UNIT_LDLIBS.tpm/swtpm_test     := -lcrypto
UNIT_LDLIBS.tpm/eventlog_test  := -lcrypto
UNIT_LDLIBS.tboot/policy_test  := -lcrypto
UNIT_LDLIBS.tboot/measure_test := -lcrypto
UNIT_LDLIBS.tpm/tpm2_seal_test := -lcrypto
UNIT_LDLIBS.tpm/seal_swtpm_test := -lcrypto
UNIT_LDLIBS.tboot/integrity_test := -lcrypto
UNIT_LDLIBS.tboot/progress_test := -lcrypto
UNIT_LDLIBS.txt/drtm_test := -lcrypto
UNIT_LDLIBS.txt/lcp_test := -lcrypto

UNIT_CC      ?= cc
UNIT_CFLAGS  := -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
                -fno-sanitize-recover=all -fno-omit-frame-pointer -Iinclude -Isrc \
                -Itests/unit/support -MMD -MP
UNIT_LDLIBS  := -lcmocka
UNIT_OBJDIR  := $(OUT)/tests/unit
UNIT_SRCS    := $(sort $(shell find tests/unit -name '*_test.c' -not -path 'tests/unit/support/*'))
UNIT_SUPPORT := $(sort $(wildcard tests/unit/support/*.c))
UNIT_BINS    := $(patsubst tests/unit/%.c,$(UNIT_OBJDIR)/%,$(UNIT_SRCS))
UNIT_LIBOBJS := $(patsubst %.c,$(UNIT_OBJDIR)/obj/%.o,$(VTBOOT_PURE_SRCS) $(UNIT_SUPPORT))
UNIT_LIB     := $(UNIT_OBJDIR)/libvtunit.a
# vtboot's crypto built with vtboot's own flags (-m32, general registers outside the SIMD
# functions) and run as a 32-bit program, natively and under QEMU TCG: m32_selfcheck.c
DEPS         += qemu-user
UNIT_M32     := $(UNIT_OBJDIR)/crypto/m32_selfcheck
UNIT_BINS    += $(UNIT_M32)
# Where tests find files they read (the real-image test uses $(OUT)/bzImage if it exists).
UNIT_ENV     := VTBOOT_OUT=$(OUT) UNIT_NO_SKIP=$(UNIT_NO_SKIP) ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: unit-test unit-test-build

unit-test-build: $(UNIT_BINS)

$(UNIT_OBJDIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	@$(UNIT_CC) $(UNIT_CFLAGS) -c $< -o $@

$(UNIT_LIB): $(UNIT_LIBOBJS)
	@rm -f $@
	@ar rcs $@ $^

$(UNIT_OBJDIR)/%_test: tests/unit/%_test.c $(UNIT_LIB)
	@mkdir -p $(@D)
	@$(UNIT_CC) $(UNIT_CFLAGS) -MF $@.d $< $(UNIT_LIB) $(UNIT_LDLIBS) $(UNIT_LDLIBS.$*_test) -o $@

$(UNIT_M32).elf: tests/unit/crypto/m32_selfcheck.c $(wildcard src/crypto/*.c src/crypto/*.h) \
                 src/lib/string.c src/lib/libgcc.c
	@mkdir -p $(@D)
	@$(CC) $(VTBOOT_CFLAGS) -static -nostdlib -no-pie -Wl,--build-id=none -o $@ \
		$(filter %.c,$^)

$(UNIT_M32): tests/unit/crypto/m32_selfcheck.sh $(UNIT_M32).elf
	@sed 's|@ELF@|$(abspath $(UNIT_M32).elf)|' $< > $@ && chmod +x $@

unit-test: $(UNIT_BINS)
	@$(UNIT_ENV) tests/unit/run.sh $(if $(UNIT_VERBOSE),-v) $(UNIT_BINS)

-include $(UNIT_LIBOBJS:.o=.d) $(UNIT_BINS:=.d)
