/* SPDX-License-Identifier: MIT */
/*
 * The multiboot headers of a kernel image (a multiboot1 header in the first 8 KiB, 4-aligned;
 * a multiboot2 header in the first 32 KiB, 8-aligned; each found as GRUB finds it: the first
 * magic whose checksum holds), and what they ask of the loader. vtboot loads such a kernel
 * itself, from its ELF program headers, and builds the boot information it asks for: a
 * requirement vtboot cannot meet (a.out address fields, a video mode, a framebuffer, EFI,
 * information vtboot does not provide) is refused here, with the reason.
 */
#ifndef MBKERNEL_MBHEADER_H
#define MBKERNEL_MBHEADER_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/bootinfo.h"

#define MBHDR_MB1_SEARCH 8192u
#define MBHDR_MB2_SEARCH 32768u

struct mb_kernel_header {
    bool mb1;                        /* a valid multiboot1 header */
    uint32_t mb1_offset;
    uint32_t mb1_flags;
    bool mb2;                        /* a valid multiboot2 header */
    uint32_t mb2_offset;
    uint32_t mb2_length;
    uint32_t mb2_info_required;      /* bit n: information tag type n (< 32) is required */
    uint32_t mb2_info_wanted;        /* ... asked for (required or optional) */
    bool mb2_entry_set;              /* an entry address tag overrides the ELF entry */
    uint32_t mb2_entry;
};

/* Bits of the information tags vtboot's multiboot2 builder provides (mbinfo.h). */
#define MBHDR_MB2_PROVIDED ((1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 6) | \
                            (1u << 14) | (1u << 15) | (1u << 21))

/*
 * Finds and checks the headers in the first bytes of img. Returns 0 with h filled (at least
 * one of mb1, mb2 set), 1 if there is no multiboot header at all (err says so), -1 with a
 * reason in err for a header that asks for what vtboot cannot do or is malformed.
 */
int mbhdr_scan(const uint8_t *img, uint32_t size, struct mb_kernel_header *h, char *err,
               unsigned errlen);

/* The boot information to hand the kernel: the loader's own kind if the kernel takes it (as
 * tboot passes on what it got), else the kind the kernel has a header for. */
enum boot_protocol mbhdr_protocol(const struct mb_kernel_header *h, enum boot_protocol loader);

#endif
