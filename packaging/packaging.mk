# packaging/packaging.mk: the Debian packages and the installed-guest test image (issue 14).
#
#   make pkg-files    what the packages ship, built here (debian/rules runs this in its copy)
#   make deb          out/deb/vtboot_*.deb and vtboot-host_*.deb: dpkg-buildpackage -b in a copy
#                     of the tree in a temp dir, then lintian (no errors allowed)
#   make disk-image   a Debian 12 disk image with the vtboot package installed, cached in
#                     $(VTBOOT_CACHE)/disk-image/ by its inputs; out/disk/disk.img links to it
#                     (tests/qemu/test_disk.py boots it)

DEPS += debhelper dpkg-dev help2man lintian libssl-dev zlib1g-dev libtss2-dev \
        mmdebstrap e2fsprogs fdisk qemu-utils qemu-system-x86 util-linux

PKG_DIR  := $(OUT)/pkg
PKG_CC   ?= $(CC)
# the version shown in GRUB's entries and in the man pages (debian/rules passes the package's)
DEB_VERSION ?= $(shell sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog)

# vtboot-stat: the guest's txt-stat-like reader (reads vtboot's ABI through /dev/mem)
$(PKG_DIR)/vtboot-stat: packaging/guest/vtboot-stat.c $(wildcard include/abi/*.h)
	@mkdir -p $(@D)
	$(PKG_CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -o $@ $<

$(PKG_DIR)/grub.d/20_linux_vtboot: packaging/grub.d/20_linux_vtboot debian/changelog
	@mkdir -p $(@D)
	sed 's/@VTBOOT_VERSION@/$(DEB_VERSION)/' $< > $@.tmp
	sh -n $@.tmp
	chmod 755 $@.tmp
	mv -f $@.tmp $@

# man pages: the OPTIONS are each tool's own --help (help2man), so they cannot drift from it;
# the rest is packaging/man/<tool>.h2m
PKG_MANS := $(OUT)/man/vtboot-qemu.1 $(OUT)/man/vtboot-pcr.1 $(OUT)/man/vtboot-attest.1 \
            $(OUT)/man/vtboot-stat.8
$(OUT)/man/vtboot-qemu.1 $(OUT)/man/vtboot-pcr.1: $(OUT)/man/%.1: $(BIN)/% packaging/man/%.h2m
	@mkdir -p $(@D)
	help2man -N -s 1 --version-string="$(DEB_VERSION)" -i packaging/man/$*.h2m -o $@ $<
# vtboot-attest's --help is its usage; each command has its own: help2man reads them all
# through packaging/man/vtboot-attest-help.sh, installed under the tool's name
$(PKG_DIR)/help/vtboot-attest: packaging/man/vtboot-attest-help.sh $(BIN)/vtboot-attest
	@mkdir -p $(@D)
	sed 's|@VTBOOT_ATTEST@|$(abspath $(BIN)/vtboot-attest)|' $< > $@.tmp
	chmod 755 $@.tmp
	mv -f $@.tmp $@
$(OUT)/man/vtboot-attest.1: $(PKG_DIR)/help/vtboot-attest packaging/man/vtboot-attest.h2m
	@mkdir -p $(@D)
	help2man -N -s 1 --version-string="$(DEB_VERSION)" -i packaging/man/vtboot-attest.h2m -o $@ $<
$(OUT)/man/vtboot-stat.8: $(PKG_DIR)/vtboot-stat packaging/man/vtboot-stat.h2m
	@mkdir -p $(@D)
	help2man -N -s 8 --version-string="$(DEB_VERSION)" -i packaging/man/vtboot-stat.h2m -o $@ $<

PKG_FILES := $(OUT)/vtboot.gz $(BIN)/vtboot-qemu $(BIN)/vtboot-pcr $(BIN)/vtboot-attest \
             $(PKG_DIR)/vtboot-stat \
             $(PKG_DIR)/grub.d/20_linux_vtboot $(PKG_MANS)
BUILD += $(PKG_DIR)/vtboot-stat $(PKG_DIR)/grub.d/20_linux_vtboot

.PHONY: pkg-files deb disk-image disk-image-base
pkg-files: $(PKG_FILES)

# Rebuilt when anything that goes into the packages changes.
DEB_INPUTS = $(shell find src include host debian packaging -type f -not -path 'host/tests/*' \
                  2>/dev/null) Makefile scripts/build-deb.sh
$(OUT)/deb/.stamp: $(DEB_INPUTS)
	scripts/build-deb.sh $(OUT)/deb
	@touch $@

deb: $(OUT)/deb/.stamp

# the image's Debian system needs no package: with -j2 it is made while the package builds
disk-image-base:
	scripts/build-disk-image.sh --base

disk-image: $(OUT)/deb/.stamp disk-image-base
	scripts/build-disk-image.sh $(OUT)/deb $(OUT)/disk
