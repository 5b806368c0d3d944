/* SPDX-License-Identifier: MIT */
/*
 * The launcher's page for the guest: named items (the verifier's nonce for --attest) that
 * vtboot-qemu hands to the guest OUTSIDE anything measured. The page is a file the launcher
 * writes and QEMU maps as the memory (BAR 2) of an ivshmem-plain PCI device (vendor 0x1af4,
 * device 0x1110); the guest tool vtboot-hostpage (guest/tools/) finds the device in sysfs,
 * maps BAR 2 and reads an item by name. Pure (libc only): linked into the launcher (writer),
 * compiled into the static guest tool (reader) and unit-tested (host/tests/unit/t_hostpage.c).
 *
 * Why not QEMU's fw_cfg (opt/...): the guest kernel has no CONFIG_X86_IOPL_IOPERM (iopl and
 * ioperm fail with ENOSYS, so user space cannot select an item on port 0x510, which takes only
 * 16-bit writes; /dev/port writes bytes) and no CONFIG_FW_CFG_SYSFS. Why not SMBIOS OEM
 * strings: SeaBIOS measures the SMBIOS tables into PCR 1. Nothing measures this page: vtboot
 * measures PCRs 17-19 from the policy, MLE and modules only; SeaBIOS measures PCI option ROMs,
 * and the device has none.
 *
 * Layout (little-endian), at most HOSTPAGE_SIZE bytes, zero after `used`:
 *   header  char magic[8] "VTBHOST1"; le32 used (header + entries, <= the page); le32 count
 *   entry   char name[24] (printable ASCII, NUL-terminated, zero-padded); le32 size;
 *           le32 reserved (0); then size bytes of data; entries follow each other, the last
 *           one ends exactly at `used`
 */
#ifndef HOST_HOSTPAGE_H
#define HOST_HOSTPAGE_H

#include <stddef.h>
#include <stdint.h>

#define HOSTPAGE_MAGIC "VTBHOST1"
#define HOSTPAGE_SIZE 4096u             /* the launcher's page (the device's BAR 2) */
#define HOSTPAGE_HDR 16u
#define HOSTPAGE_ENTRY_HDR 32u
#define HOSTPAGE_NAME_MAX 24u           /* including the NUL */
#define HOSTPAGE_MAX_ITEMS 64u

struct hostpage_item {
    char name[HOSTPAGE_NAME_MAX];
    const uint8_t *data;
    uint32_t size;
};

/* Writes the items into page (cap bytes, zero-filled after the used part). Returns the bytes
 * used, or 0 if a name is not valid (see the layout), a name is there twice, or they do not
 * fit. */
size_t hostpage_build(uint8_t *page, size_t cap, const struct hostpage_item *items, unsigned n);

/* Every item of the page (the first len bytes as read; data points into page). 0, or -1 with
 * the reason if the page is malformed. */
int hostpage_parse(const uint8_t *page, size_t len, struct hostpage_item *items,
                   unsigned max, unsigned *n, char *err, size_t errsz);

/* The item `name`: 0 (found), 1 (no such item: err lists what the page has), -1 (the page is
 * malformed: err says why). */
int hostpage_find(const uint8_t *page, size_t len, const char *name, const uint8_t **data,
                  uint32_t *size, char *err, size_t errsz);

#endif
