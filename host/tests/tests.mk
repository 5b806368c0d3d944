# host/tests/tests.mk: the launcher's own tests, with testk, a tiny multiboot test kernel.
# `make host-test` runs them; they are part of `make test`.

HOST_TESTK     := $(OUT)/host/tests/testk.elf
HOST_TESTK_CC  := $(HOST_CC) -m32 -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
                  -fno-asynchronous-unwind-tables -mno-sse -mno-mmx -mno-80387 -O2 -g \
                  -Wall -Wextra -Werror -Iinclude
HOST_TESTK_SRC := host/tests/guest/entry.S host/tests/guest/testk.c
HOST_TESTK_OBJ := $(OUT)/host/tests/entry.o $(OUT)/host/tests/testk.o

$(OUT)/host/tests/entry.o: host/tests/guest/entry.S include/abi/multiboot1.h include/abi/multiboot2.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -D__ASSEMBLY__ -c -o $@ $<

$(OUT)/host/tests/testk.o: host/tests/guest/testk.c include/abi/multiboot1.h include/abi/multiboot2.h include/abi/vsenter.h \
                           include/abi/mle.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

$(HOST_TESTK): $(HOST_TESTK_OBJ) host/tests/guest/link.ld
	ld -m elf_i386 -nostdlib -static -z noexecstack --no-warn-rwx-segments \
	   -T host/tests/guest/link.ld -o $@ $(HOST_TESTK_OBJ)

# the test guests' COM1 output (badload, getsec)
$(OUT)/host/tests/com1.o: host/tests/guest/com1.c host/tests/guest/com1.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

# getsec's DMA engine, QEMU's edu device
$(OUT)/host/tests/edu.o: host/tests/guest/edu.c host/tests/guest/edu.h host/tests/guest/com1.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

# badload: a loader that hands vtboot malformed input (tests/qemu/test_loader_faults.py) and
# arms event sources before the launch (tests/qemu/test_event_sources.py), with vtboot's ELF
# built in (it finds vtboot's symbols in that copy at run time: rebuilt with out/vtboot)
HOST_BADLOAD := $(OUT)/host/tests/badload.elf
$(OUT)/host/tests/badload.o: host/tests/guest/badload.c host/tests/guest/com1.h include/abi/acpi.h \
                             include/abi/multiboot1.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

$(OUT)/host/tests/badload-entry.o: host/tests/guest/badload.S include/abi/multiboot1.h $(OUT)/vtboot
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -D__ASSEMBLY__ -DVTBOOT_ELF='"$(OUT)/vtboot"' -c -o $@ $<

$(HOST_BADLOAD): $(OUT)/host/tests/badload-entry.o $(OUT)/host/tests/badload.o $(OUT)/host/tests/com1.o \
                 host/tests/guest/badload.ld
	ld -m elf_i386 -nostdlib -static -z noexecstack --no-warn-rwx-segments \
	   -T host/tests/guest/badload.ld -o $@ $(filter %.o,$^)
BUILD += $(HOST_BADLOAD)

# getsec: probes the emulated TXT CPU (SMX, CR4.SMXE, the TXT MSRs, GETSEC) on the patched
# QEMU (qemu/, tests/qemu/test_txt_cpu.py)
HOST_GETSEC := $(OUT)/host/tests/getsec.elf
$(OUT)/host/tests/getsec.o: host/tests/guest/getsec.c host/tests/guest/getsec.h host/tests/guest/com1.h \
                            include/abi/multiboot1.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

$(OUT)/host/tests/getsec-entry.o: host/tests/guest/getsec.S include/abi/multiboot1.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -D__ASSEMBLY__ -c -o $@ $<

$(OUT)/host/tests/getsec-chipset.o: host/tests/guest/getsec_chipset.c host/tests/guest/getsec.h \
                                    host/tests/guest/com1.h host/tests/guest/edu.h \
                                    include/abi/multiboot1.h include/abi/txt.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

$(OUT)/host/tests/getsec-pmr.o: host/tests/guest/getsec_pmr.c host/tests/guest/getsec.h host/tests/guest/com1.h \
                                host/tests/guest/edu.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

$(OUT)/host/tests/getsec-hpet.o: host/tests/guest/getsec_hpet.c host/tests/guest/getsec.h host/tests/guest/com1.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

$(OUT)/host/tests/getsec-tpm.o: host/tests/guest/getsec_tpm.c host/tests/guest/getsec.h host/tests/guest/com1.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

# authenticated-code mode's cases read the echo ACM's results (sinit/test/echo.h)
$(OUT)/host/tests/getsec-acmode.o: host/tests/guest/getsec_acmode.c host/tests/guest/getsec.h \
                                   host/tests/guest/com1.h host/tests/guest/edu.h sinit/test/echo.h \
                                   include/abi/multiboot1.h include/abi/txt.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -Isinit/test -c -o $@ $<

# a launch of our SINIT into getsec's own MLE (getsec.S's .mle)
$(OUT)/host/tests/getsec-launch.o: host/tests/guest/getsec_launch.c host/tests/guest/getsec.h \
                                   host/tests/guest/com1.h include/abi/txt.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

# the TXT reset, the scrub and the power cycle (qemu/patches 0011)
$(OUT)/host/tests/getsec-reset.o: host/tests/guest/getsec_reset.c host/tests/guest/getsec.h \
                                  host/tests/guest/com1.h include/abi/txt.h
	@mkdir -p $(@D)
	$(HOST_TESTK_CC) -c -o $@ $<

$(HOST_GETSEC): $(OUT)/host/tests/getsec-entry.o $(OUT)/host/tests/getsec.o $(OUT)/host/tests/getsec-chipset.o \
                $(OUT)/host/tests/getsec-pmr.o $(OUT)/host/tests/getsec-hpet.o \
                $(OUT)/host/tests/getsec-tpm.o \
                $(OUT)/host/tests/getsec-acmode.o $(OUT)/host/tests/getsec-reset.o \
                $(OUT)/host/tests/getsec-launch.o $(OUT)/host/tests/com1.o $(OUT)/host/tests/edu.o host/tests/guest/getsec.ld
	ld -m elf_i386 -nostdlib -static -z noexecstack --no-warn-rwx-segments \
	   -T host/tests/guest/getsec.ld -o $@ $(filter %.o,$^)
BUILD += $(HOST_GETSEC)

HOST_UNIT := $(OUT)/host/tests/host-unit
# tpmfault_test.c and attest_test.c are binaries of their own (host-unit-tpmfault, -attest)
HOST_UNIT_SRC := $(filter-out host/tests/unit/tpmfault_test.c host/tests/unit/attest_test.c,\
                              $(wildcard host/tests/unit/*.c))
# (t_expectopt reaches the TXT expectation: vtboot's pure parsers and zlib, as vtboot-pcr)
$(HOST_UNIT): $(patsubst host/%.c,$(HOST_OBJDIR)/%.o,$(HOST_UNIT_SRC)) $(HOST_LIB) $(HOST_PURE_LIB)
	$(HOST_CC) -o $@ $^ $(HOST_LDLIBS) -lz

HOST_UNIT_TPMFAULT := $(OUT)/host/tests/host-unit-tpmfault
$(HOST_UNIT_TPMFAULT): $(HOST_OBJDIR)/tests/unit/tpmfault_test.o $(HOST_LIB)
	$(HOST_CC) -o $@ $^ $(HOST_LDLIBS)

# vtboot-attest's parsers and crypto (tpm2-tss's marshalling, OpenSSL)
HOST_UNIT_ATTEST := $(OUT)/host/tests/host-unit-attest
$(HOST_UNIT_ATTEST): $(HOST_OBJDIR)/tests/unit/attest_test.o $(HOST_LIB)
	$(HOST_CC) -o $@ $^ $(HOST_LDLIBS) -ltss2-mu

-include $(patsubst host/%.c,$(HOST_OBJDIR)/%.d,$(wildcard host/tests/unit/*.c))

.PHONY: host-test host-test-build host-unit
host-unit: $(HOST_UNIT) $(HOST_UNIT_TPMFAULT) $(HOST_UNIT_ATTEST)
	$(HOST_UNIT)
	$(HOST_UNIT_TPMFAULT)
	$(HOST_UNIT_ATTEST)

# vtboot-acm's ACMs as Debian's txt-acminfo and OpenSSL read them, and vtboot-pcr's prediction
# of a TXT launch with them, and the build's SINIT and test ACM (host/tests/acm-tests.sh);
# vtboot-pcr audit-mle on Debian's /boot/tboot.gz against binutils' readelf and nm, with
# vtboot as the control (host/tests/mle-audit-tests.py)
DEPS += tboot openssl xxd binutils
host-test-build: $(HOST_UNIT) $(HOST_UNIT_TPMFAULT) $(HOST_UNIT_ATTEST) $(BIN)/vtboot-qemu $(HOST_TESTK) \
                 $(BIN)/vtboot-acm $(BIN)/vtboot-pcr $(OUT)/test/echo.bin $(OUT)/sinit.bin \
                 $(OUT)/vtboot
host-test: host-unit host-test-build
	host/tests/run-tests.sh $(BIN)/vtboot-qemu $(HOST_TESTK)
	host/tests/acm-tests.sh $(BIN)/vtboot-acm $(BIN)/vtboot-pcr $(OUT)/test/echo.bin $(SINIT_KEY) \
	    $(OUT)/sinit.bin $(SINIT_TEST_KEY)
	host/tests/mle-audit-tests.py $(BIN)/vtboot-pcr $(OUT)/vtboot

# libFuzzer targets for the launcher's parsers of outside input (clang, ASan, UBSan): what the
# guest, QEMU, swtpm or a file hands the host tools. `make fuzz` and `make fuzz-smoke` run them
# with the pre-kernel's (as host/<name>, tests/fuzz.mk); `make host-fuzz` runs only these:
#   make host-fuzz                 each target for HOST_FUZZ_SECONDS (60)
#   make host-fuzz HOST_FUZZ_SECONDS=10 HOST_FUZZ_TARGETS=cpustate
# host/tests/fuzz/<t>_fuzz.c -> $(OUT)/host/tests/fuzz/<t>_fuzz; seeds and regress-* inputs in
# host/tests/fuzz/corpus/<t>/; the growing corpus, logs and crashes in $(OUT)/tests/fuzz/.
HOST_FUZZ_CC      ?= clang
HOST_FUZZ_SECONDS ?= 60
HOST_FUZZ_DIR     := $(OUT)/host/tests/fuzz
HOST_FUZZ_ALL     := $(patsubst host/tests/fuzz/%_fuzz.c,%,$(wildcard host/tests/fuzz/*_fuzz.c))
HOST_FUZZ_TARGETS ?= $(HOST_FUZZ_ALL)
HOST_FUZZ_CFLAGS  := -std=gnu11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -Wall -Wextra \
                     -Werror -Ihost/lib -Iinclude -Isrc -fsanitize=address,undefined \
                     -fno-sanitize-recover=all -MMD -MP
HOST_FUZZ_LDLIBS  := -ltss2-mu -lcrypto -lz
# host/lib built again with the sanitizers, as an archive: a target links what it uses
HOST_FUZZ_LIBOBJ  := $(patsubst host/%.c,$(HOST_FUZZ_DIR)/obj/%.o,$(HOST_LIB_SRC))
HOST_FUZZ_LIB     := $(HOST_FUZZ_DIR)/libvthost.a

$(HOST_FUZZ_DIR)/obj/%.o: host/%.c
	@mkdir -p $(@D)
	@$(HOST_FUZZ_CC) $(HOST_FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(HOST_FUZZ_LIB): $(HOST_FUZZ_LIBOBJ)
	@rm -f $@
	@ar rcs $@ $^

$(HOST_FUZZ_DIR)/%_fuzz: host/tests/fuzz/%_fuzz.c $(HOST_FUZZ_LIB)
	@mkdir -p $(@D)
	@$(HOST_FUZZ_CC) $(HOST_FUZZ_CFLAGS) -MF $@.d -fsanitize=fuzzer $(filter %.c %.a,$^) -o $@ $(HOST_FUZZ_LDLIBS)

# the objects are built by a pattern rule only: keep them (make would delete them as intermediates)
.SECONDARY: $(HOST_FUZZ_LIBOBJ)

-include $(HOST_FUZZ_LIBOBJ:.o=.d) $(patsubst %,$(HOST_FUZZ_DIR)/%_fuzz.d,$(HOST_FUZZ_ALL))

.PHONY: host-fuzz host-fuzz-build
host-fuzz-build: $(patsubst %,$(HOST_FUZZ_DIR)/%_fuzz,$(HOST_FUZZ_ALL))

host-fuzz: $(patsubst %,$(HOST_FUZZ_DIR)/%_fuzz,$(HOST_FUZZ_TARGETS))
	@HOST_FUZZ_DIR=$(HOST_FUZZ_DIR) tests/fuzz/run.sh $(HOST_FUZZ_SECONDS) 1 $(OUT)/tests/fuzz \
	    $(addprefix host/,$(HOST_FUZZ_TARGETS))
