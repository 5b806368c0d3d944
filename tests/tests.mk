# tests/tests.mk: `make test` runs everything: host unit tests (cmocka), a fuzz smoke run
# (libFuzzer), the launcher's own tests, and the QEMU tests (pytest, Debian's python3-pytest,
# run by /usr/bin/python3), which boot vtboot with stock Linux 6.1, swtpm and GRUB.

include tests/unit.mk
include tests/fuzz.mk

DEPS += python3-pytest python3-pytest-xdist python3-yaml python3-pyelftools tpm2-tools tboot \
        binutils dpkg

UNIT_LDLIBS.crypto/openssl_compare_test := -lcrypto

# QEMU tests run side by side; each boot is one QEMU under TCG (about 5 s).
QEMU_TEST_JOBS ?= $(NPROC)
PYTEST = VTBOOT_OUT=$(abspath $(OUT)) /usr/bin/python3 -m pytest -p no:cacheprovider -q

.PHONY: test test-build test-suites test-unit-suite qemu-test qemu-test-build
# Two steps. First everything the tests need is built side by side: `build`, the test programs
# and fuzzers, what the QEMU tests boot, and the installed-guest disk image
# (tests/qemu/test_disk.py). The image is a make of its own, started first and outside the job
# slots: its mmdebstrap waits on the network while the compilers use the CPUs (in a -j slot it
# waited for the kernel, Xen and QEMU builds, then ran alone; inside a pytest worker it held one
# of the two workers for 7 minutes). In the same make, the unit tests, the fuzz smoke run (a
# fixed time per target) and the launcher's tests (one QEMU at a time) take the job slots the
# QEMU and Xen builds leave, while the kernel build ends: each suite's output printed whole
# when it ends. Then the QEMU tests, which fill the CPUs.
# Every tool a test checks against was installed by deps: a skipped unit test fails.
test-build: build unit-test-build fuzz-build host-test-build qemu-test-build
# the suites as `make test` runs them beside the builds, each one's output printed whole when it
# ends (a make of their own with output sync); the unit tests also read the kernel and Xen built
test-suites: fuzz-build host-test-build
	@$(MAKE) --no-print-directory --output-sync=target fuzz-smoke host-test
test-unit-suite: unit-test-build $(OUT)/bzImage $(OUT)/xen-tboot.gz
	@$(MAKE) --no-print-directory --output-sync=target UNIT_NO_SKIP=1 unit-test
test: deps
	@mkdir -p $(OUT)
	@$(MAKE) --no-print-directory -j$(NPROC) disk-image > $(OUT)/disk-image.log 2>&1 & \
	 image=$$!; $(MAKE) --no-print-directory -j$(NPROC) test-build test-suites \
	     test-unit-suite; built=$$?; \
	 wait $$image; imaged=$$?; cat $(OUT)/disk-image.log; \
	 if [ $$imaged -ne 0 ]; then echo "make test: the disk image failed (its log above:" \
	     "$(OUT)/disk-image.log)" >&2; exit 1; fi; exit $$built
	@$(MAKE) --no-print-directory qemu-test

# the installed-guest image with Debian's tboot package and out/sinit.bin in /boot, its
# 20_linux_tboot entry the default (issue 39 item 6): tests/qemu/test_txt_disk.py makes it, as
# test_disk.py makes disk-image; cached as txt-<key> beside the image's stages
.PHONY: disk-image-txt
disk-image-txt: disk-image $(OUT)/sinit.bin
	scripts/build-disk-image-txt.sh $(OUT)/sinit.bin $(OUT)/disk

# what the QEMU tests boot besides `build` (each fragment adds its own); the 20 slowest tests
# are listed at the end, where the suite's time goes (issue 21). --dist loadgroup: the tests of
# one module-scoped boot go to one worker, which boots it once (tests/qemu/conftest.py)
qemu-test: qemu-test-build
	$(PYTEST) -n $(QEMU_TEST_JOBS) --dist loadgroup --durations=20 tests/qemu $(if $(QEMU_TESTS),-k "$(QEMU_TESTS)")

# `make soak`: S3 with CPU 1 offline and online before every suspend, SOAK_CYCLES cycles on each
# of GRUB multiboot2, multiboot1 and -kernel (one boot each, side by side), and on the TXT platform
# (Debian's tboot and kernel, our SINIT, --smp 2: tests/qemu/test_txt_smp.py), for hangs that show
# once in hundreds of cycles; a timed-out boot keeps its serial log (tests/qemu/vtb.py).
# SOAK_ROUNDS: that many times over, fresh boots each round (issue 21's hang showed early in a boot).
SOAK_CYCLES ?= 70
SOAK_ROUNDS ?= 1
.PHONY: soak
soak: all
	@set -e; for r in $$(seq 1 $(SOAK_ROUNDS)); do echo "soak: round $$r of $(SOAK_ROUNDS)"; \
	VTBOOT_SOAK_CYCLES=$(SOAK_CYCLES) $(PYTEST) -n $(QEMU_TEST_JOBS) tests/qemu/test_s3_holds.py \
	    tests/qemu/test_txt_smp.py -k "test_s3_through_grub_many_cycles_with_cpu_hotplug or \
	    test_s3_cycles_through_tboot_with_cpu_hotplug"; done

# `make bench`: measurement (SHA-1/256/384/512) and MAC (Poly1305) speed of vtboot's own code
# against OpenSSL, then boots in QEMU (vtboot against its own hashing, against QEMU's direct
# -kernel boot, the TXT platform's launch beside both, S3 with and without vtboot:
# tests/bench/boot_bench.py, about 6 minutes), each
# measured side by side in one run; prints ratios into out/bench.json, asserts nothing.
BENCH_BIN := $(OUT)/bench/crypto_bench
.PHONY: bench
bench: all $(BENCH_BIN)
	@$(BENCH_BIN) --json $(OUT)/bench.json
	@VTBOOT_OUT=$(OUT) /usr/bin/python3 tests/bench/boot_bench.py --json $(OUT)/bench.json

$(BENCH_BIN): tests/bench/crypto_bench.c $(VTBOOT_CRYPTO_SRCS) $(wildcard src/crypto/*.h)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Iinclude -Isrc $< $(VTBOOT_CRYPTO_SRCS) -lcrypto -o $@
