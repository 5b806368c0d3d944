/* SPDX-License-Identifier: MIT */
/*
 * Test-only: deliberately malformed hand-overs (test_shared= on vtboot's command line), so the
 * kernel's checks of the shared page and the e820 map can be tested against a real loader.
 * The option is part of the measured command line, so PCR 17 shows that it was used, and
 * vtboot says so on every boot that uses it.
 */
#ifndef TBOOT_MALFORM_H
#define TBOOT_MALFORM_H

#include <stdint.h>

#include "abi/tboot_shared.h"
#include "mem/e820.h"

enum malform {
    MALFORM_UUID = 1u << 0,          /* one UUID byte changed */
    MALFORM_VERSION4 = 1u << 1,      /* version 4: too old for Linux */
    MALFORM_VERSION7 = 1u << 2,      /* version 7: newer than any tboot */
    MALFORM_ENTRY_OUTSIDE = 1u << 3, /* shutdown_entry past tboot_base + tboot_size */
    MALFORM_ENTRY_ZERO = 1u << 4,    /* shutdown_entry 0 */
    MALFORM_SIZE_ZERO = 1u << 5,     /* tboot_size 0 */
    MALFORM_SIZE_OVERFLOW = 1u << 6, /* tboot_base + tboot_size wraps past 4 GiB */
    MALFORM_UNALIGNED = 1u << 7,     /* boot_params.tboot_addr 0x100 into the page */
    MALFORM_REGION_RAM = 1u << 8,    /* vtboot's region is RAM but for the shared page's entry */
    MALFORM_FIRST_PAGE = 1u << 9,    /* the shared page starts its reserved e820 entry */
    MALFORM_E820_SPLIT = 1u << 10,   /* RAM cut into more than 32 entries (MAC regions) */
};

#define MALFORM_SPLIT_HOLES 40u
#define MALFORM_SPLIT_BASE 0x4000000u  /* 64 MiB: above the kernel, modules and vtboot */

/* Parses "uuid,version4,..." into a mask; 0 with *bad set if a name is unknown. */
unsigned malform_parse(const char *list, int *bad);
const char *malform_names(unsigned mask, char *buf, unsigned len);

void malform_shared_page(struct tboot_shared *sp, unsigned mask);

/* How much of vtboot's region [base, base + size) to reserve; page is the shared page. */
uint32_t malform_reserved_size(unsigned mask, uint32_t base, uint32_t size, uint32_t page);

/* Changes the map Linux gets, after vtboot's own regions are reserved. */
int malform_e820(struct e820_map *m, unsigned mask, uint32_t base, uint32_t page);

#endif
