# qemu/qemu.mk: QEMU's x86_64 system emulator with the emulated Intel TXT platform (issue 20,
# docs/txt-platform.md). Debian's own qemu-system-x86 stays the default for every other run;
# out/bin/qemu-system-x86_64-txt is built by qemu/build.sh from Debian's qemu source package
# with qemu/patches/series, the x86_64 softmmu target only, cached in
# $(VTBOOT_CACHE)/qemu-<key>/ (a cache hit only copies the binary). See qemu/README.md.

# the source package of the installed qemu-system-x86 (1:7.2+dfsg-7+deb12u18+b3 is a binNMU of it)
QEMU_DEB_VERSION := 1:7.2+dfsg-7+deb12u18
# sha256 of qemu_7.2+dfsg-7+deb12u18.dsc as Debian's archive serves it (apt checked it against the
# signed Sources index when it was first fetched; this pins it for every later build)
QEMU_DSC_SHA256  := 6b6bd27b947ec89e40a1d6b26d9c9f3c698ca691da13163e0483f6061bbb20b3

# configure needs glib, pixman, libfdt (x86_64-softmmu requires fdt), Debian's meson (the dfsg
# tarball has no meson submodule, no venv is made) and ninja; the binary
# takes SeaBIOS and the option ROMs from Debian's packages (--firmwarepath)
DEPS  += qemu-system-x86 dpkg-dev debian-archive-keyring apt patch xz-utils gcc make pkg-config \
	 python3 meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev \
	 zlib1g-dev seabios ipxe-qemu nettle-dev libgmp-dev
BUILD += $(OUT)/bin/qemu-system-x86_64-txt

QEMU_INPUTS := qemu/build.sh scripts/cache-lib.sh scripts/deb-source.sh qemu/qemu.mk \
	$(filter-out %~,$(wildcard qemu/patches/*))

# build.sh leaves an unchanged output's mtime alone, so make may re-run it (cheaply) after an
# input was touched without changing the binary.
$(OUT)/bin/qemu-system-x86_64-txt: $(QEMU_INPUTS)
	@QEMU_DEB_VERSION='$(QEMU_DEB_VERSION)' QEMU_DSC_SHA256='$(QEMU_DSC_SHA256)' \
		qemu/build.sh --out $(OUT)

# tests/qemu/test_txt_cpu.py runs it with getsec.elf
qemu-test-build: $(OUT)/bin/qemu-system-x86_64-txt $(OUT)/host/tests/getsec.elf
