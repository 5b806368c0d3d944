/* SPDX-License-Identifier: MIT */
/*
 * src/tboot/integrity.c on a random shared page (its MAC region fields) and a random e820 map.
 * mac_regions_from_shared must accept exactly the valid tables (1..32 regions, none empty, at
 * 0, wrapping or reaching above 4 GiB), copy them unchanged, and name the first bad region.
 * For an accepted table: mac_regions_covered is the RAM the regions overlap; the MAC reads
 * only RAM (each RAM entry is its own phys_fake window and nothing else is addressable, so a
 * read of anything else misses; strict mode hands out exact-size copies, so ASan sees any
 * read past a request); verify accepts the computed tags; and after one RAM byte changes,
 * verify names the first region that holds it (or none).
 *
 * Input: flags (bit 0: regions raw, bits 1-2: where the 256 KiB address space starts),
 * key seed, memory seed, map entry count (low 4 bits), that many 5-byte entries { u8 type,
 * u16 addr in 4-byte units, u16 size in bytes }, the region count as the page has it, then
 * the regions (as many as the count says, at most 32): raw, 12 bytes { u64 start, u32 size }
 * as in the page; or 5 bytes { u8 kind, u16 start in 4-byte units, u16 size in bytes } (kind
 * bits 0-1 add to the start, bits 2-3 multiply the size by 1-4, bits 4-7 add to it, or, all
 * set, pick edge values from a table instead), then the RAM entry (u8) and the offset in it
 * (u16) of the byte to change.
 */
#include "fuzz_common.h"

#include "abi/tboot_shared.h"
#include "tboot/integrity.h"

#define UNIT 4u                          /* addresses in the 256 KiB space */
#define FOUR_GIB 0x100000000ull

struct input {
    const uint8_t *p;
    size_t left;
};

static uint8_t u8(struct input *in)
{
    if (!in->left)
        return 0;
    in->left--;
    return *in->p++;
}

static uint16_t u16(struct input *in)
{
    uint16_t lo = u8(in);
    return (uint16_t)(lo | u8(in) << 8);
}

static uint32_t u32(struct input *in)
{
    uint32_t lo = u16(in);
    return lo | (uint32_t)u16(in) << 16;
}

static uint64_t u64(struct input *in)
{
    uint64_t lo = u32(in);
    return lo | (uint64_t)u32(in) << 32;
}

static const uint64_t edge_start[8] = { 0, 1, 0xfffff000, 0xffffffff, FOUR_GIB,
                                        0xfffffffffffff000ull, 0xffffffffffffffffull,
                                        0x7ffff000 };
static const uint32_t edge_size[4] = { 0, 1, 0x1000, 0xffffffff };

static struct tboot_shared page;
static struct e820_map map;
static struct mac_regions regs;
static uint8_t tags[TBOOT_MAX_MAC_REGIONS][MAC_TAG_SIZE];

static bool region_valid(const struct tboot_mac_region *r)
{
    return r->size && r->start && r->start <= FOUR_GIB && r->size <= FOUR_GIB - r->start;
}

static uint64_t overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    uint64_t lo = a > b ? a : b, ae = a + alen, be = b + blen, hi = ae < be ? ae : be;
    return hi > lo ? hi - lo : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = { data, size };
    uint8_t flags = u8(&in), kseed = u8(&in), mseed = u8(&in);
    static const uint64_t bases[4] = { 0, 0x100000, 0x7ff00000, FOUR_GIB - 0x40000 };
    uint64_t base = bases[(flags >> 1) & 3];

    /* the map, sanitised as the one Linux was given */
    memset(&map, 0, sizeof(map));
    unsigned nmap = u8(&in) & 15;
    for (unsigned i = 0; i < nmap; i++) {
        uint32_t type = u8(&in) % 6;     /* 0 is a type nobody knows */
        uint64_t addr = base + (uint64_t)u16(&in) * UNIT, len = u16(&in);
        FUZZ_ASSERT(e820_append(&map, addr, len, type) == 0, "append");
    }
    FUZZ_ASSERT(e820_sanitize(&map) == 0, "sanitize");
    check_canonical(&map);

    /* the page */
    memset(&page, 0, sizeof(page));
    page.num_mac_regions = u8(&in);
    for (unsigned i = 0; i < page.num_mac_regions && i < TBOOT_MAX_MAC_REGIONS; i++) {
        struct tboot_mac_region *r = &page.mac_regions[i];
        if (flags & 1) {
            r->start = u64(&in);
            r->size = u32(&in);
        } else {
            uint8_t kind = u8(&in);
            uint16_t s = u16(&in), z = u16(&in);
            if (kind >> 4 == 15) {
                r->start = edge_start[s % 8];
                r->size = edge_size[z % 4];
            } else {
                r->start = base + (uint64_t)s * UNIT + (kind & 3);
                r->size = (uint32_t)z * (1u + ((kind >> 2) & 3)) + (kind >> 4);
            }
        }
    }

    /* validation against the definition */
    char err[160];
    memset(err, 0x55, sizeof(err));
    memset(&regs, 0xa5, sizeof(regs));
    int rc = mac_regions_from_shared(&page, &regs, err, sizeof(err));
    unsigned n = page.num_mac_regions, first_bad = n;
    if (n >= 1 && n <= TBOOT_MAX_MAC_REGIONS)
        for (unsigned i = 0; i < n && first_bad == n; i++)
            if (!region_valid(&page.mac_regions[i]))
                first_bad = i;
    bool valid = n >= 1 && n <= TBOOT_MAX_MAC_REGIONS && first_bad == n;
    FUZZ_ASSERT((rc == 0) == valid, "rc %d for a %s table of %u regions (first bad %u)", rc,
                valid ? "valid" : "invalid", n, first_bad);
    check_err(err, sizeof(err), rc);
    if (rc) {
        char want[160];
        const struct tboot_mac_region *r = &page.mac_regions[first_bad % TBOOT_MAX_MAC_REGIONS];
        if (n == 0)
            snprintf(want, sizeof(want), "the kernel gave no MAC regions");
        else if (n > TBOOT_MAX_MAC_REGIONS)
            snprintf(want, sizeof(want), "the kernel gave %u MAC regions, at most 32 fit the "
                     "shared page", n);
        else if (!r->size || !r->start || r->start + r->size < r->start)
            snprintf(want, sizeof(want), "MAC region %u (0x%llx+0x%x) is empty, at 0 or wraps",
                     first_bad, (unsigned long long)r->start, r->size);
        else
            snprintf(want, sizeof(want), "MAC region %u (0x%llx+0x%x) reaches above 4 GiB, "
                     "which vtboot cannot read", first_bad, (unsigned long long)r->start,
                     r->size);
        FUZZ_ASSERT(strcmp(err, want) == 0, "\"%s\", want \"%s\"", err, want);
        return 0;
    }
    FUZZ_ASSERT(regs.n == n, "%u regions copied of %u", regs.n, n);
    for (unsigned i = 0; i < n; i++)
        FUZZ_ASSERT(regs.r[i].start == page.mac_regions[i].start &&
                    regs.r[i].size == page.mac_regions[i].size, "region %u changed", i);

    /* memory: one window per RAM entry (up to what the fake has), nothing else */
    phys_fake_reset();
    unsigned nram = 0, ram_entry[PHYS_FAKE_MAX_WINDOWS];
    for (unsigned e = 0; e < map.nr; e++) {
        if (map.e[e].type != E820_TYPE_RAM)
            continue;
        if (nram == PHYS_FAKE_MAX_WINDOWS)
            return 0;                    /* more RAM entries than the fake has windows */
        ram_entry[nram++] = e;
    }
    for (unsigned w = 0; w < nram; w++) {
        const struct e820_entry *m = &map.e[ram_entry[w]];
        uint8_t *b = phys_fake_add(m->addr, (size_t)m->size);
        for (size_t i = 0; i < m->size; i++)
            b[i] = (uint8_t)((m->addr + i) * 131 + mseed + (i >> 9));
    }

    /* RAM bytes of the regions, above the first 64 KiB (the firmware's while resuming) */
    uint64_t model = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t start = regs.r[i].start, end = start + regs.r[i].size;
        if (start < MAC_LOW_BIOS_END)
            start = MAC_LOW_BIOS_END;
        for (unsigned e = 0; e < map.nr && end > start; e++)
            if (map.e[e].type == E820_TYPE_RAM)
                model += overlap(start, end - start, map.e[e].addr, map.e[e].size);
    }
    uint64_t covered = mac_regions_covered(&regs, &map);
    FUZZ_ASSERT(covered == model, "covered %llu, model %llu", (unsigned long long)covered,
                (unsigned long long)model);
    FUZZ_ASSERT(phys_fake_calls() == 0, "covered() read memory");

    uint8_t key[MAC_KEY_SIZE];
    for (unsigned i = 0; i < sizeof(key); i++)
        key[i] = (uint8_t)(kseed + 37 * i);
    mac_regions_compute(key, &regs, &map, tags, NULL);
    FUZZ_ASSERT(phys_fake_misses() == 0, "%lu reads outside RAM", phys_fake_misses());
    int bad = mac_regions_verify(key, &regs, &map, tags, NULL);
    FUZZ_ASSERT(bad == -1, "verify of the computed tags: region %d", bad);

    /* one RAM byte changed: the first region holding it, if any, is named */
    if (nram && covered <= (4u << 20)) {
        const struct e820_entry *m = &map.e[ram_entry[u8(&in) % nram]];
        uint64_t addr = m->addr + u16(&in) % m->size;
        uint8_t *p = phys_fake_ptr(addr);
        FUZZ_ASSERT(p, "no window at 0x%llx", (unsigned long long)addr);
        int want = -1;
        for (unsigned i = 0; i < n && want < 0 && addr >= MAC_LOW_BIOS_END; i++)
            if (addr >= regs.r[i].start && addr - regs.r[i].start < regs.r[i].size)
                want = (int)i;
        *p ^= 0x01;
        bad = mac_regions_verify(key, &regs, &map, tags, NULL);
        FUZZ_ASSERT(bad == want, "byte 0x%llx changed: region %d named, want %d",
                    (unsigned long long)addr, bad, want);
    }
    FUZZ_ASSERT(phys_fake_misses() == 0, "%lu reads outside RAM", phys_fake_misses());
    phys_fake_reset();
    return 0;
}
