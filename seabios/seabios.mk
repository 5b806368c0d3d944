# seabios/seabios.mk: the TXT platform's firmware (issue 38, seabios/README.md): Debian's seabios
# source package with seabios/patches/series, built by seabios/build.sh, cached in
# $(VTBOOT_CACHE)/seabios-<key>/. Only the TXT runs boot it (vtboot-qemu --txt passes -bios).

# the source package of the installed seabios
SEABIOS_DEB_VERSION := 1.16.2-1
# sha256 of seabios_1.16.2-1.dsc as Debian's archive serves it (apt checked it against the signed
# Sources index when it was first fetched; this pins it for every later build)
SEABIOS_DSC_SHA256  := 32bcfddb7c78fab3d983ab3c557398a4013a11e55dcd8a9c3de273e74a56b9c3

DEPS  += seabios dpkg-dev debian-archive-keyring apt patch gcc make python3
BUILD += $(OUT)/bios-txt.bin

SEABIOS_INPUTS := seabios/build.sh scripts/cache-lib.sh scripts/deb-source.sh seabios/seabios.mk \
	$(filter-out %~,$(wildcard seabios/patches/*))

$(OUT)/bios-txt.bin: $(SEABIOS_INPUTS)
	@SEABIOS_DEB_VERSION='$(SEABIOS_DEB_VERSION)' SEABIOS_DSC_SHA256='$(SEABIOS_DSC_SHA256)' \
		seabios/build.sh --out $(OUT)

# the TXT tests boot it
qemu-test-build: $(OUT)/bios-txt.bin
