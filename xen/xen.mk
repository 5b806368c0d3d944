# xen/xen.mk: the Xen hypervisors for vtboot's Xen launch (issue 12).
# Debian's own binary (package xen-hypervisor-4.17-amd64: /boot/xen-4.17-amd64.gz, no tboot
# support) comes from DEPS; out/xen-tboot.gz is built by xen/build.sh from Debian's xen source
# package with CONFIG_TBOOT and xen/patches/series, hypervisor only, cached in
# $(VTBOOT_CACHE)/xen-<key>/ (a cache hit only copies, well under a second).

XEN_DEB_VERSION := 4.17.5+72-g01140da4e8-1
# sha256 of xen_$(XEN_DEB_VERSION).dsc as Debian's archive serves it (apt checked it against the
# signed Sources index when it was first fetched; this pins it for every later build)
XEN_DSC_SHA256  := f13956b67fb7a65707c2b0620d89b41ee5d203434dd7bb913017356791ee66c1

DEPS  += xen-hypervisor-4.17-amd64 dpkg-dev debian-archive-keyring apt flex bison python3 \
	 gcc make binutils patch gzip xz-utils util-linux
BUILD += $(OUT)/xen-tboot.gz

XEN_INPUTS := xen/build.sh scripts/cache-lib.sh scripts/deb-source.sh xen/xen.mk $(wildcard xen/config/*.config) \
	$(filter-out %~,$(wildcard xen/patches/*))

# build.sh leaves an unchanged output's mtime alone, so make may re-run it (cheaply) after an
# input was touched without changing Xen.
$(OUT)/xen-tboot.gz: $(XEN_INPUTS)
	@XEN_DEB_VERSION='$(XEN_DEB_VERSION)' XEN_DSC_SHA256='$(XEN_DSC_SHA256)' \
		xen/build.sh --out $(OUT)

# tests/qemu/test_xen.py boots both Xens.
qemu-test-build: $(OUT)/xen-tboot.gz
