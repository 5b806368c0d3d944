# vtboot: top-level build. `make` builds everything into out/, `make run` boots the demo,
# `make test` runs every test. Each part has its own makefile fragment; this file only wires them.

OUT      ?= out
BIN      := $(OUT)/bin
# Where the kernel tree is unpacked and built (never inside the checkout).
VTBOOT_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/vtboot
export VTBOOT_CACHE

# Debian packages; each fragment appends what it needs.
DEPS := build-essential gcc make binutils gzip

.PHONY: all build deps run test clean
# Fragments append their artifacts to BUILD.
BUILD :=

all: deps
	@$(MAKE) --no-print-directory build

include src/vtboot.mk
include host/host.mk
include kernel/kernel.mk
include guest/guest.mk
include xen/xen.mk
include tests/tests.mk
include packaging/packaging.mk

build: $(BUILD)

deps:
	@scripts/ensure-deps.sh $(sort $(DEPS))

run: all
	$(BIN)/vtboot-qemu --timeout 300

clean:
	rm -rf $(OUT)
