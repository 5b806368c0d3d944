# vtboot: top-level build. `make` builds everything into out/, `make run` boots the demo,
# `make test` runs every test. Each part has its own makefile fragment; this file only wires them.

OUT      ?= out
BIN      := $(OUT)/bin
# Where the kernel tree is unpacked and built (never inside the checkout).
VTBOOT_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/vtboot
export VTBOOT_CACHE

# Jobs side by side: the CPUs this machine has.
NPROC    := $(shell nproc 2>/dev/null || echo 1)

# Debian packages; each fragment appends what it needs.
DEPS := build-essential gcc make binutils gzip

.PHONY: all build deps run test clean
# Fragments append their artifacts to BUILD.
BUILD :=

# Side by side: the kernel, Xen and QEMU builds each run their own -j, but their unpacking
# and configure steps are single-threaded and overlap the others' compiles.
all: deps
	@$(MAKE) --no-print-directory -j$(NPROC) build

include src/vtboot.mk
include host/host.mk
include sinit/sinit.mk
include kernel/kernel.mk
include guest/guest.mk
include xen/xen.mk
include qemu/qemu.mk
include seabios/seabios.mk
include tests/tests.mk
include packaging/packaging.mk

build: $(BUILD)

deps:
	@scripts/ensure-deps.sh $(sort $(DEPS))

# `make run`, the demo: vtboot launches Debian's own kernel (fetched into the cache by
# scripts/fetch-dist-kernel.sh, never installed) with the demo initramfs, then compares the PCRs
# with vtboot-pcr's prediction (scripts/demo.sh). It installs and builds only what that needs:
# no kernel or Xen build, no disk image (`make`, `make test` build those).
RUN_DEPS := gcc make binutils gzip libc6-dev libssl-dev zlib1g-dev libtss2-dev \
	    qemu-system-x86 swtpm swtpm-tools tpm2-tools busybox-static cpio tboot
run:
	@scripts/ensure-deps.sh $(sort $(RUN_DEPS))
	@$(MAKE) --no-print-directory -j$(NPROC) $(OUT)/vtboot $(BIN)/vtboot-qemu $(BIN)/vtboot-pcr $(OUT)/initrd.img
	@OUT=$(OUT) scripts/demo.sh

clean:
	rm -rf $(OUT)
