/* SPDX-License-Identifier: MIT */
#include "crypto/hash.h"
#include "crypto/poly1305.h"
#include "lib/format.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "tboot/integrity.h"
#include "tboot/progress.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
#define FOUR_GIB 0x100000000ull
#define CHUNK (1u << 20)

int mac_regions_from_shared(const struct tboot_shared *sp, struct mac_regions *out, char *err,
                            unsigned errlen)
{
    out->n = 0;
    if (sp->num_mac_regions > TBOOT_MAX_MAC_REGIONS)
        FAIL("the kernel gave %u MAC regions, at most %u fit the shared page",
             sp->num_mac_regions, TBOOT_MAX_MAC_REGIONS);
    if (sp->num_mac_regions == 0)
        FAIL("the kernel gave no MAC regions");
    for (unsigned i = 0; i < sp->num_mac_regions; i++) {
        struct tboot_mac_region r = sp->mac_regions[i];
        if (r.size == 0 || r.start == 0 || r.start + r.size < r.start)
            FAIL("MAC region %u (0x%llx+0x%x) is empty, at 0 or wraps", i,
                 (unsigned long long)r.start, r.size);
        if (r.start + r.size > FOUR_GIB)
            FAIL("MAC region %u (0x%llx+0x%x) reaches above 4 GiB, which vtboot cannot read",
                 i, (unsigned long long)r.start, r.size);
        out->r[out->n++] = (struct mac_region){ r.start, r.size };
    }
    return 0;
}

/* One-time key of region i: SHA-256(key || "vtboot s3 region" || i). */
static void region_key(const uint8_t key[MAC_KEY_SIZE], unsigned i, uint8_t out[32])
{
    static const char label[] = "vtboot s3 region";
    struct hash_ctx h;
    uint8_t idx[4] = { (uint8_t)i, (uint8_t)(i >> 8), 0, 0 };
    hash_init(&h, TPM_ALG_SHA256);
    hash_update(&h, key, MAC_KEY_SIZE);
    hash_update(&h, label, sizeof(label) - 1);
    hash_update(&h, idx, sizeof(idx));
    hash_final(&h, out);
    memzero_explicit(&h, sizeof(h));     /* it held the key */
}

/* Feeds the RAM part of [start, end) to the MAC, in map order (the map is sanitised). */
static void mac_ram(struct poly1305_ctx *ctx, uint64_t start, uint64_t end,
                    const struct e820_map *ram, struct progress *prog)
{
    if (start < MAC_LOW_BIOS_END)
        start = MAC_LOW_BIOS_END;
    for (unsigned e = 0; e < ram->nr; e++) {
        const struct e820_entry *m = &ram->e[e];
        if (m->type != E820_TYPE_RAM)
            continue;
        uint64_t lo = start > m->addr ? start : m->addr;
        uint64_t hi = end < m->addr + m->size ? end : m->addr + m->size;
        for (uint64_t a = lo; a < hi;) {
            uint64_t n = hi - a < CHUNK ? hi - a : CHUNK;
            const void *p = phys_map(a, n);
            if (p)
                poly1305_update(ctx, p, (size_t)n);
            a += n;
            progress_advance(prog, n);
        }
    }
}

static void region_tag(const uint8_t key[MAC_KEY_SIZE], unsigned i, const struct mac_region *r,
                       const struct e820_map *ram, uint8_t tag[MAC_TAG_SIZE],
                       struct progress *prog)
{
    struct poly1305_ctx ctx;
    uint8_t k[32];
    region_key(key, i, k);
    poly1305_init(&ctx, k);
    memzero_explicit(k, sizeof(k));
    /* the region's identity is part of what is authenticated */
    uint8_t where[12];
    memcpy(where, &r->start, 8);
    memcpy(where + 8, &r->size, 4);
    poly1305_update(&ctx, where, sizeof(where));
    mac_ram(&ctx, r->start, r->start + r->size, ram, prog);
    poly1305_final(&ctx, tag);
    memzero_explicit(&ctx, sizeof(ctx)); /* the one-time key and its powers */
}

void mac_regions_compute(const uint8_t key[MAC_KEY_SIZE], const struct mac_regions *regs,
                         const struct e820_map *ram, uint8_t tags[][MAC_TAG_SIZE],
                         const struct progress_cb *cb)
{
    struct progress prog;
    progress_start(&prog, cb, 0, cb ? mac_regions_covered(regs, ram) : 0);
    for (unsigned i = 0; i < regs->n; i++)
        region_tag(key, i, &regs->r[i], ram, tags[i], &prog);
}

int mac_regions_verify(const uint8_t key[MAC_KEY_SIZE], const struct mac_regions *regs,
                       const struct e820_map *ram, const uint8_t tags[][MAC_TAG_SIZE],
                       const struct progress_cb *cb)
{
    struct progress prog;
    int bad = -1;
    progress_start(&prog, cb, 0, cb ? mac_regions_covered(regs, ram) : 0);
    for (unsigned i = 0; i < regs->n; i++) {
        uint8_t tag[MAC_TAG_SIZE];
        region_tag(key, i, &regs->r[i], ram, tag, &prog);
        if (!poly1305_verify(tag, tags[i]) && bad < 0)
            bad = (int)i;
    }
    return bad;
}

uint64_t mac_regions_covered(const struct mac_regions *regs, const struct e820_map *ram)
{
    uint64_t total = 0;
    for (unsigned i = 0; i < regs->n; i++) {
        uint64_t start = regs->r[i].start, end = start + regs->r[i].size;
        if (start < MAC_LOW_BIOS_END)
            start = MAC_LOW_BIOS_END;
        for (unsigned e = 0; e < ram->nr; e++) {
            const struct e820_entry *m = &ram->e[e];
            uint64_t lo = start > m->addr ? start : m->addr;
            uint64_t hi = end < m->addr + m->size ? end : m->addr + m->size;
            if (m->type == E820_TYPE_RAM && hi > lo)
                total += hi - lo;
        }
    }
    return total;
}
