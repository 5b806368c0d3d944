# kernel/kernel.mk: the guest kernel, out/bzImage (patched: kernel/patches/series) and, on request,
# out/bzImage-stock (same config, no patches). kernel/build.sh does the work and keeps finished trees
# in $(VTBOOT_CACHE)/linux-<key>/; when the key's tree exists it only copies (about a second).

DEPS  += linux-source-6.1 bc flex bison libelf-dev libssl-dev cpio xz-utils gcc make perl \
	 binutils util-linux coreutils patch
BUILD += $(OUT)/bzImage

KERNEL_INPUTS := kernel/build.sh kernel/kernel.mk $(wildcard kernel/config/*.config) \
	$(filter-out %~,$(wildcard kernel/patches/*)) $(wildcard /usr/src/linux-source-6.1.tar.xz)

# build.sh leaves an unchanged output's mtime alone, so make may re-run it (cheaply) after an input
# was touched without changing the kernel.
$(OUT)/bzImage: $(KERNEL_INPUTS)
	@kernel/build.sh --out $(OUT)

$(OUT)/bzImage-stock: $(KERNEL_INPUTS)
	@kernel/build.sh --stock --out $(OUT)
