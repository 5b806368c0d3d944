/* SPDX-License-Identifier: MIT */
#include "lib/format.h"
#include "lib/string.h"
#include "tboot/malform.h"

static const char *const names[] = {
    "uuid", "version4", "version7", "entry-outside", "entry-zero", "size-zero",
    "size-overflow", "unaligned", "region-ram", "first-page", "e820-split",
};
#define NR_NAMES (sizeof(names) / sizeof(names[0]))

unsigned malform_parse(const char *list, int *bad)
{
    unsigned mask = 0;
    *bad = 0;
    while (*list) {
        const char *c = strchr(list, ',');
        size_t n = c ? (size_t)(c - list) : strlen(list);
        unsigned i = 0;
        while (i < NR_NAMES && !(strlen(names[i]) == n && strncmp(names[i], list, n) == 0))
            i++;
        if (i == NR_NAMES) {
            *bad = 1;
            return 0;
        }
        mask |= 1u << i;
        list += n + (c ? 1 : 0);
    }
    return mask;
}

const char *malform_names(unsigned mask, char *buf, unsigned len)
{
    unsigned used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < NR_NAMES; i++)
        if (mask & (1u << i))
            used += (unsigned)fmt_snprintf(buf + used, used < len ? len - used : 0, "%s%s",
                                           used ? "," : "", names[i]);
    return buf;
}

void malform_shared_page(struct tboot_shared *sp, unsigned mask)
{
    if (mask & MALFORM_UUID)
        sp->uuid[15] ^= 0xff;
    if (mask & MALFORM_VERSION4)
        sp->version = 4;
    if (mask & MALFORM_VERSION7)
        sp->version = 7;
    if (mask & MALFORM_ENTRY_OUTSIDE)
        sp->shutdown_entry = sp->tboot_base + sp->tboot_size + 0x1000;
    if (mask & MALFORM_ENTRY_ZERO)
        sp->shutdown_entry = 0;
    if (mask & MALFORM_SIZE_ZERO)
        sp->tboot_size = 0;
    if (mask & MALFORM_SIZE_OVERFLOW)
        sp->tboot_size = 0xffffffffu - sp->tboot_base + 0x2000;
}

uint32_t malform_reserved_size(unsigned mask, uint32_t base, uint32_t size, uint32_t page)
{
    /* only [base, page + 4 KiB) reserved: the page is still strictly inside its entry */
    return (mask & MALFORM_REGION_RAM) ? page + 0x1000 - base : size;
}

int malform_e820(struct e820_map *m, unsigned mask, uint32_t base, uint32_t page)
{
    if ((mask & MALFORM_FIRST_PAGE) &&
        e820_set_range(m, base, page - base, E820_TYPE_NVS))
        return -1;
    for (unsigned i = 0; (mask & MALFORM_E820_SPLIT) && i < MALFORM_SPLIT_HOLES; i++)
        if (e820_set_range(m, MALFORM_SPLIT_BASE + i * 0x100000u, 0x1000, E820_TYPE_RESERVED))
            return -1;
    return 0;
}
