# kernel/kernel.mk: the guest kernel, out/bzImage (patched: kernel/patches/series) and
# out/bzImage-stock (same config, no patches; needed by qemu-test). kernel/build.sh does the work
# and keeps finished trees in $(VTBOOT_CACHE)/linux-<key>/; when the key's tree exists it only
# copies (about a second).

DEPS  += linux-source-6.1 bc flex bison libelf-dev libssl-dev cpio xz-utils gcc make perl \
	 binutils util-linux coreutils patch
BUILD += $(OUT)/bzImage

STOCK_KERNEL_INPUTS := kernel/build.sh scripts/cache-lib.sh kernel/kernel.mk $(wildcard kernel/config/*.config) \
	$(wildcard /usr/src/linux-source-6.1.tar.xz)
KERNEL_INPUTS := $(STOCK_KERNEL_INPUTS) $(filter-out %~,$(wildcard kernel/patches/*))

# build.sh leaves an unchanged output's mtime alone, so make may re-run it (cheaply) after an input
# was touched without changing the kernel. The patched kernel is built on top of the stock tree, so
# building out/bzImage also builds (or finds) the stock kernel and installs out/bzImage-stock.
$(OUT)/bzImage: $(KERNEL_INPUTS)
	@kernel/build.sh --out $(OUT)

$(OUT)/bzImage-stock: $(STOCK_KERNEL_INPUTS)
	@kernel/build.sh --stock --out $(OUT)

# The kernel patch tests (tests/qemu/test_kernel_patches.py) boot both kernels.
qemu-test-build: $(OUT)/bzImage-stock
