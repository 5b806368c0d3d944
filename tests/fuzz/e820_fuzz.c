/* SPDX-License-Identifier: MIT */
/*
 * e820_append / e820_sanitize / e820_set_range on random entry lists, against a model: the
 * list of every range that was accepted. After sanitising, the map must be canonical, every
 * byte must carry the strongest type of the accepted ranges covering it (RAM weakest, then
 * by type number), uncovered bytes must stay out, the result must not depend on the order of
 * the entries, and a failed call must leave the map as it was.
 *
 * Input: 10-byte records { u8 type, u8 op, u32 addr, u32 size }; op bit 7: set_range (else
 * append), bit 6: count addr down from 2^64, bits 0-5: shift applied to addr and size.
 */
#include "fuzz_common.h"

#define MAX_RECORDS 64

struct range { uint64_t addr, size; uint32_t type; };

static struct range model[MAX_RECORDS + E820_MAP_MAX];
static unsigned nmodel;
static struct e820_map m, before, rev;

static uint64_t rank(uint32_t t)
{
    return t == E820_TYPE_RAM ? 0 : (uint64_t)t + 1;
}

static void same_live(const struct e820_map *a, const struct e820_map *b, const char *what)
{
    FUZZ_ASSERT(a->nr == b->nr && memcmp(a->e, b->e, a->nr * sizeof(a->e[0])) == 0, "%s", what);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every elementary interval: the map's type equals the model's strongest (or both absent). */
static void check_against_model(void)
{
    static uint64_t bnd[2 * (MAX_RECORDS + 2 * E820_MAP_MAX)];
    unsigned nb = 0;
    for (unsigned i = 0; i < nmodel; i++) {
        bnd[nb++] = model[i].addr;
        bnd[nb++] = model[i].addr + model[i].size;
    }
    for (unsigned i = 0; i < m.nr; i++) {
        bnd[nb++] = m.e[i].addr;
        bnd[nb++] = m.e[i].addr + m.e[i].size;
    }
    qsort(bnd, nb, sizeof(bnd[0]), cmp_u64);
    unsigned j = 0;
    for (unsigned b = 0; b + 1 < nb; b++) {
        uint64_t lo = bnd[b], hi = bnd[b + 1];
        if (lo == hi)
            continue;
        bool want = false;
        uint32_t wt = 0;
        for (unsigned i = 0; i < nmodel; i++) {
            if (model[i].addr <= lo && hi <= model[i].addr + model[i].size &&
                (!want || rank(model[i].type) > rank(wt))) {
                want = true;
                wt = model[i].type;
            }
        }
        while (j < m.nr && m.e[j].addr + m.e[j].size <= lo)
            j++;
        bool have = j < m.nr && m.e[j].addr <= lo;
        if (have)
            FUZZ_ASSERT(hi <= m.e[j].addr + m.e[j].size, "interval straddles an entry");
        FUZZ_ASSERT(have == want, "[0x%llx, 0x%llx): map %s, model %s", (unsigned long long)lo,
                    (unsigned long long)hi, have ? "covers" : "does not cover",
                    want ? "covers" : "does not");
        if (have)
            FUZZ_ASSERT(m.e[j].type == wt, "[0x%llx, 0x%llx): type %u, strongest is %u",
                        (unsigned long long)lo, (unsigned long long)hi, m.e[j].type, wt);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned n = (unsigned)(size / 10);
    if (n > MAX_RECORDS)
        n = MAX_RECORDS;
    memset(&m, 0, sizeof(m));
    nmodel = 0;
    bool sanitized = true;

    for (unsigned r = 0; r < n; r++) {
        const uint8_t *p = data + 10 * r;
        uint32_t type = p[0];
        uint8_t op = p[1];
        unsigned shift = op & 0x3f;
        if (shift > 32)
            shift -= 32;
        uint64_t addr = (uint64_t)get32(p, 2) << shift;
        uint64_t len = (uint64_t)get32(p, 6) << shift;
        if (op & 0x40)
            addr = ~addr - len + 1;          /* ends at 2^64 - addr: exercises the top */
        bool wraps = len && addr + len < addr;

        if (op & 0x80) {
            if (!sanitized) {
                before = m;
                if (e820_sanitize(&m)) {
                    same_live(&m, &before, "failed sanitize changed the map");
                    return 0;
                }
                sanitized = true;
                check_canonical(&m);
            }
            before = m;
            int rc = e820_set_range(&m, addr, len, type);
            if (rc) {
                same_live(&m, &before, "failed set_range changed the map");
                FUZZ_ASSERT(wraps || m.nr > 0, "set_range failed on an empty map");
                continue;
            }
            FUZZ_ASSERT(!wraps, "set_range accepted a wrapping range");
            if (len)
                model[nmodel++] = (struct range){ addr, len, type };
            check_canonical(&m);
        } else {
            unsigned nr = m.nr;
            int rc = e820_append(&m, addr, len, type);
            FUZZ_ASSERT(rc == ((len && (wraps || nr == E820_MAP_MAX)) ? -1 : 0),
                        "append rc %d (len %llu, wraps %d, nr %u)", rc, (unsigned long long)len,
                        wraps, nr);
            FUZZ_ASSERT(m.nr == nr + (rc == 0 && len ? 1 : 0), "append count");
            if (rc == 0 && len) {
                model[nmodel++] = (struct range){ addr, len, type };
                sanitized = false;
            }
        }
    }

    /* the same raw entries in reverse order must give the same result */
    rev.nr = m.nr;
    for (unsigned i = 0; i < m.nr; i++)
        rev.e[i] = m.e[m.nr - 1 - i];
    before = m;
    int rc = e820_sanitize(&m);
    int rc2 = e820_sanitize(&rev);
    FUZZ_ASSERT(rc == rc2, "sanitize rc depends on order");
    if (rc) {
        same_live(&m, &before, "failed sanitize changed the map");
        return 0;
    }
    same_live(&m, &rev, "sanitize depends on the order of the entries");
    check_canonical(&m);
    check_against_model();
    /* sanitising is idempotent */
    before = m;
    FUZZ_ASSERT(e820_sanitize(&m) == 0, "re-sanitize failed");
    same_live(&m, &before, "sanitize is not idempotent");
    /* e820_range_is agrees with the map on each entry and just past it */
    for (unsigned i = 0; i < m.nr; i++) {
        FUZZ_ASSERT(e820_range_is(&m, m.e[i].addr, m.e[i].size, m.e[i].type), "range_is %u", i);
        uint64_t end = m.e[i].addr + m.e[i].size;
        if (end)
            FUZZ_ASSERT(!e820_range_is(&m, m.e[i].addr, m.e[i].size + 1, m.e[i].type),
                        "range_is past entry %u", i);
    }
    return 0;
}
