/* SPDX-License-Identifier: MIT */
/*
 * mbk_plan() on random memory maps, segments, vtboot ranges and modules. Accepted: every
 * segment in RAM and clear of vtboot's ranges, the entry in a segment's file bytes; every
 * module that overlaps a segment, and every module after the first that is not page-aligned,
 * moved (and no other), each destination page-aligned RAM below 4 GiB (an empty module: its
 * own address rounded down), clear of vtboot, the segments, every module's current place and
 * the destinations before it. Refused: for the reason the input has (re-checked here).
 *
 * Input: an 8-byte header (counts, entry selector), then 6-byte records: e820 entries, own
 * ranges, segments, modules (addresses in 4 KiB pages, sizes in 256-byte units).
 */
#include "fuzz_common.h"

#include "mbkernel/plan.h"

static struct e820_map map;

static bool in_ram(uint64_t a, uint64_t s)
{
    return s == 0 || e820_range_is(&map, a, s, 1);
}

static bool hits(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
    return as && bs && a < b + bs && b < a + as;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    unsigned ne = data[0] % 12, no = 1 + data[1] % 3, ns = 1 + data[2] % 4, nm = data[3] % 6;
    const uint8_t *p = data + 8;
    if (size - 8 < 6u * (ne + no + ns + nm))
        return 0;
    memset(&map, 0, sizeof(map));
    for (unsigned i = 0; i < ne; i++, p += 6)
        e820_append(&map, (uint64_t)get16(p, 0) << 12, (uint64_t)(get16(p, 2) + 1) << 12,
                    p[4] % 4 ? 1 : 2);
    if (e820_sanitize(&map))
        return 0;
    struct mem_range own[3], mods[BOOT_MAX_MODULES];
    for (unsigned i = 0; i < no; i++, p += 6)
        own[i] = (struct mem_range){ (uint64_t)get16(p, 0) << 12, (uint64_t)(get16(p, 2) + 1) << 8,
                                     "own" };
    struct elf_image e;
    memset(&e, 0, sizeof(e));
    for (unsigned i = 0; i < ns; i++, p += 6) {
        uint32_t memsz = (uint32_t)(get16(p, 2) + 1) << 8;
        e.seg[i] = (struct elf_segment){ i, (uint32_t)get16(p, 0) << 12, memsz, 0,
                                         memsz >> (p[4] % 3) };
    }
    e.nr_segments = ns;
    for (unsigned i = 0; i < nm; i++, p += 6)
        mods[i] = (struct mem_range){ ((uint64_t)get16(p, 0) << 12) + (p[4] & 1 ? p[5] : 0),
                                      (uint64_t)get16(p, 2) << (p[4] & 2 ? 12 : 4), "mod" };
    uint32_t entry = e.seg[data[4] % ns].paddr + get16(data, 5);

    struct mbk_plan plan;
    char err[256];
    memset(err, 0, sizeof(err));
    int rc = mbk_plan(&e, entry, &map, own, no, mods, nm, &plan, err, sizeof(err));
    check_err(err, sizeof(err), rc);

    bool segs_ok = true, entry_ok = false;
    for (unsigned i = 0; i < ns; i++) {
        for (unsigned k = 0; k < no; k++)
            segs_ok &= !hits(e.seg[i].paddr, e.seg[i].memsz, own[k].addr, own[k].size);
        segs_ok &= in_ram(e.seg[i].paddr, e.seg[i].memsz);
        entry_ok |= entry >= e.seg[i].paddr && entry - e.seg[i].paddr < e.seg[i].filesz;
    }
    if (!segs_ok || !entry_ok) {
        FUZZ_ASSERT(rc == -1 && (strstr(err, "ELF segment") || strstr(err, "entry point")),
                    "bad segments accepted: '%s'", err);
        return 0;
    }
    if (rc) {
        FUZZ_ASSERT(strstr(err, "no free RAM below 4 GiB to move module"), "'%s'", err);
        return 0;
    }
    FUZZ_ASSERT(plan.entry == entry, "entry");
    unsigned k = 0;
    for (unsigned i = 0; i < nm; i++) {
        bool way = false;
        for (unsigned s = 0; s < ns; s++)
            way |= hits(mods[i].addr, mods[i].size, e.seg[s].paddr, e.seg[s].memsz);
        bool must = way || (i > 0 && (mods[i].addr & 0xfff));
        if (!must) {
            FUZZ_ASSERT(k == plan.nr_moves || plan.moves[k].module != i, "module %u moved", i);
            continue;
        }
        FUZZ_ASSERT(k < plan.nr_moves && plan.moves[k].module == i, "module %u not moved", i);
        uint64_t to = plan.moves[k].to, sz = mods[i].size;
        FUZZ_ASSERT(to % 0x1000 == 0, "unaligned destination");
        if (sz == 0) {
            FUZZ_ASSERT(to == (mods[i].addr & ~0xfffull), "empty module to 0x%llx",
                        (unsigned long long)to);
        } else {
            FUZZ_ASSERT(in_ram(to, sz) && to >= 0x100000 && to + sz <= 0x100000000ull,
                        "destination not RAM");
            for (unsigned o = 0; o < no; o++)
                FUZZ_ASSERT(!hits(to, sz, own[o].addr, own[o].size), "onto vtboot");
            for (unsigned s = 0; s < ns; s++)
                FUZZ_ASSERT(!hits(to, sz, e.seg[s].paddr, e.seg[s].memsz), "onto a segment");
            for (unsigned m = 0; m < nm; m++)
                FUZZ_ASSERT(!hits(to, sz, mods[m].addr, mods[m].size), "onto a module");
            for (unsigned j = 0; j < k; j++)
                FUZZ_ASSERT(!hits(to, sz, plan.moves[j].to, mods[plan.moves[j].module].size),
                            "onto an earlier move");
        }
        k++;
    }
    FUZZ_ASSERT(k == plan.nr_moves, "%u moves, %u expected", plan.nr_moves, k);
    return 0;
}
