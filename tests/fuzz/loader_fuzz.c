/* SPDX-License-Identifier: MIT */
/*
 * linux_plan() on random kernels, maps and busy ranges. Whatever it returns must lie in RAM,
 * avoid every busy range and the kernel, respect alignment, pref_address, initrd_addr_max and
 * 4 GiB; and it must be optimal: the relocatable kernel at the lowest feasible address, a
 * moved initrd at the highest, and a failure only when nothing feasible exists. Optimality is
 * checked against the few candidates an optimum can be (aligned edges of RAM, limits and busy
 * ranges), each tested by an independent feasibility check.
 *
 * A non-relocatable kernel may overlap the last nr_movable busy ranges (modules): those in its
 * way must move, each to the highest free page-aligned room clear of everything planned before
 * it (checked against an independent replay); after the moves nothing overlaps the kernel or
 * a moved module, and no fixed range ever moves.
 *
 * Input: a 20-byte header, then up to 24 six-byte e820 records and up to 12 six-byte busy
 * records (counts in the header); addresses in 4 KiB pages, optionally near 4 GiB. Header
 * byte 18 is nr_movable (modulo the busy ranges + 2, so a bad count is tried too).
 */
#include "fuzz_common.h"

#include "linux/loader.h"
#include "mem/place.h"

#define FOUR_GIB 0x100000000ull

static struct e820_map map;
static struct mem_range busy[32];
static unsigned nbusy;

static bool in_ram(uint64_t a, uint64_t s)
{
    uint64_t end = a + s;
    if (!s || end < a)
        return false;
    while (a < end) {
        bool found = false;
        for (unsigned i = 0; i < map.nr; i++) {
            const struct e820_entry *e = &map.e[i];
            if (e->type == 1 && e->addr <= a && a < e->addr + e->size) {
                a = e->addr + e->size;
                found = true;
                break;
            }
        }
        if (!found)
            return false;
    }
    return true;
}

static bool hits(const struct mem_range *r, unsigned n, uint64_t a, uint64_t s)
{
    for (unsigned i = 0; i < n; i++)
        if (r[i].size && s && a < r[i].addr + r[i].size && r[i].addr < a + s)
            return true;
    return false;
}

static bool feasible(const struct mem_range *r, unsigned n, uint64_t min, uint64_t limit,
                     uint64_t a, uint64_t s, uint64_t align)
{
    return a >= min && a % align == 0 && a <= limit && s <= limit - a && in_ram(a, s) &&
           !hits(r, n, a, s);
}

static uint64_t up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
static uint64_t down(uint64_t v, uint64_t a) { return v / a * a; }

/* the lowest feasible address among the candidates, or ~0 */
static uint64_t ref_lowest(const struct mem_range *r, unsigned n, uint64_t min, uint64_t limit,
                           uint64_t s, uint64_t align)
{
    uint64_t best = ~0ull;
    for (unsigned i = 0; i < map.nr + n; i++) {
        uint64_t c = i < map.nr ? (map.e[i].addr > min ? map.e[i].addr : min)
                                : r[i - map.nr].addr + r[i - map.nr].size;
        if (c > ~0ull - align)
            continue;
        c = up(c, align);
        if (c < best && feasible(r, n, min, limit, c, s, align))
            best = c;
    }
    return best;
}

static uint64_t ref_highest(const struct mem_range *r, unsigned n, uint64_t min, uint64_t limit,
                            uint64_t s, uint64_t align, bool *found)
{
    uint64_t best = 0;
    *found = false;
    for (unsigned i = 0; i < map.nr + n; i++) {
        uint64_t e = i < map.nr ? map.e[i].addr + map.e[i].size : r[i - map.nr].addr;
        if (i < map.nr && e > limit)
            e = limit;
        if (e < s)
            continue;
        uint64_t c = down(e - s, align);
        if ((!*found || c > best) && feasible(r, n, min, limit, c, s, align)) {
            best = c;
            *found = true;
        }
    }
    return best;
}

static uint64_t addr_of(const uint8_t *p)
{
    uint64_t a = (uint64_t)get16(p, 2) << 12;
    if (p[1] & 1)
        a += 0xf0000000ull;                  /* around 4 GiB */
    if (p[1] & 2)
        a += (uint64_t)(p[1] >> 4) << 8;     /* sub-page offsets */
    return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 20)
        return 0;
    struct bzimage bz;
    memset(&bz, 0, sizeof(bz));
    uint8_t flags = data[0];
    bz.relocatable = flags & 1;
    bz.alignment = 1u << (12 + data[1] % 13);
    bz.pref_address = ((uint64_t)get16(data, 2) << 12) + (flags & 2 ? 0xf0000000ull : 0);
    bz.pm_size = ((uint32_t)data[4] + 1) << 12;
    bz.init_size = bz.pm_size + ((uint32_t)get16(data, 5) << 12);
    bz.hdr.initrd_addr_max = get32(data, 7);
    uint32_t initrd_at = (uint32_t)addr_of(data + 10);   /* uses bytes 11-13 */
    uint32_t initrd_size = (uint32_t)get16(data, 14) << (flags & 4 ? 12 : 4);
    unsigned ne = data[16] % 25, nb = data[17] % 13;
    if (bz.pref_address + bz.init_size > FOUR_GIB)
        return 0;                            /* bzimage_parse refuses these */
    const uint8_t *p = data + 20;
    size_t left = size - 20;
    if (left < 6u * (ne + nb))
        return 0;

    memset(&map, 0, sizeof(map));
    for (unsigned i = 0; i < ne; i++, p += 6) {
        uint64_t len = (uint64_t)(get16(p, 4) + 1) << 12;
        e820_append(&map, addr_of(p), len, p[0] % 3 ? 1 : p[0] % 8);
    }
    if (e820_sanitize(&map))
        return 0;
    nbusy = 0;
    for (unsigned i = 0; i < nb; i++, p += 6)
        busy[nbusy++] = (struct mem_range){ addr_of(p), (uint64_t)get16(p, 4) << 8, "busy" };
    /* the caller's contract: the initrd is RAM, clear of the other busy ranges, and busy */
    if (initrd_size) {
        if (!in_ram(initrd_at, initrd_size) || hits(busy, nbusy, initrd_at, initrd_size))
            return 0;
        busy[nbusy++] = (struct mem_range){ initrd_at, initrd_size, "a module" };
    }

    unsigned nr_movable = data[18] % (nbusy + 2);
    struct linux_plan plan;
    char err[192];
    memset(err, 0, sizeof(err));             /* untouched on success, and strstr'd below */
    int rc = linux_plan(&bz, &map, busy, nbusy, nr_movable, initrd_at, initrd_size, &plan, err,
                        sizeof(err));
    check_err(err, sizeof(err), rc);
    if (nr_movable > nbusy) {
        FUZZ_ASSERT(rc == -1 && strstr(err, "movable ranges"), "%u movable of %u: '%s'",
                    nr_movable, nbusy, err);
        return 0;
    }
    unsigned nfixed = nbusy - nr_movable;
    /* where the busy ranges are after the moves */
    struct mem_range final[32];
    memcpy(final, busy, nbusy * sizeof(busy[0]));

    /* the kernel */
    struct mem_range kr[2];
    unsigned nk = 0;
    if (bz.relocatable) {
        uint64_t want = ref_lowest(busy, nbusy, bz.pref_address, FOUR_GIB, bz.init_size,
                                   bz.alignment);
        if (strstr(err, "no free RAM for the kernel")) {
            FUZZ_ASSERT(want == ~0ull, "kernel refused, but 0x%llx is free",
                        (unsigned long long)want);
            return 0;
        }
        FUZZ_ASSERT(rc == 0 || strstr(err, "initrd"), "unexpected failure '%s'", err);
        FUZZ_ASSERT(plan.kernel_load == want && plan.kernel_mem == want,
                    "kernel at 0x%x, lowest feasible 0x%llx", plan.kernel_load,
                    (unsigned long long)want);
        FUZZ_ASSERT(plan.nr_moves == 0, "%u moves for a relocatable kernel", plan.nr_moves);
        kr[nk++] = (struct mem_range){ plan.kernel_mem, bz.init_size, "kernel" };
    } else {
        /* only the fixed ranges (and non-RAM) can stop it */
        bool ok = in_ram(0x100000, bz.pm_size) && in_ram(bz.pref_address, bz.init_size) &&
                  !hits(busy, nfixed, 0x100000, bz.pm_size) &&
                  !hits(busy, nfixed, bz.pref_address, bz.init_size);
        if (strstr(err, "non-relocatable")) {
            FUZZ_ASSERT(!ok, "non-relocatable kernel refused, but fits: '%s'", err);
            return 0;
        }
        FUZZ_ASSERT(ok, "non-relocatable kernel accepted where it does not fit");
        kr[nk++] = (struct mem_range){ 0x100000, bz.pm_size, "kernel image" };
        kr[nk++] = (struct mem_range){ bz.pref_address, bz.init_size, "kernel" };

        /* replay the moves: each movable range in the kernel's way, in order, to the highest
         * room clear of the busy ranges, the kernel and the moves before it */
        struct mem_range taken[34 + LINUX_MAX_MOVES];
        unsigned nt = 0;
        memcpy(taken, busy, nbusy * sizeof(busy[0]));
        nt = nbusy;
        taken[nt++] = kr[0];
        taken[nt++] = kr[1];
        struct module_move want_moves[LINUX_MAX_MOVES];
        unsigned nwant = 0;
        bool stuck = false;
        for (unsigned i = nfixed; i < nbusy && !stuck; i++) {
            if (!hits(kr, nk, busy[i].addr, busy[i].size))
                continue;
            bool found;
            uint64_t to = ref_highest(taken, nt, 0x100000, FOUR_GIB, busy[i].size, 0x1000,
                                      &found);
            if (!found || nwant >= LINUX_MAX_MOVES) {
                stuck = true;
                break;
            }
            want_moves[nwant++] = (struct module_move){ i, (uint32_t)to };
            taken[nt++] = (struct mem_range){ to, busy[i].size, "moved" };
        }
        if (strstr(err, "no free RAM to move")) {
            FUZZ_ASSERT(stuck, "a move refused, but the replay found room: '%s'", err);
            return 0;
        }
        FUZZ_ASSERT(!stuck, "moves planned where the replay found no room");
        FUZZ_ASSERT(plan.kernel_load == 0x100000 && plan.kernel_mem == bz.pref_address, "load");
        FUZZ_ASSERT(plan.nr_moves == nwant, "%u moves, want %u", plan.nr_moves, nwant);
        for (unsigned k = 0; k < nwant; k++)
            FUZZ_ASSERT(plan.moves[k].busy_index == want_moves[k].busy_index &&
                        plan.moves[k].to == want_moves[k].to,
                        "move %u: range %u to 0x%x, want range %u to 0x%x", k,
                        plan.moves[k].busy_index, plan.moves[k].to, want_moves[k].busy_index,
                        want_moves[k].to);

        /* the moves on their own terms */
        for (unsigned k = 0; k < plan.nr_moves; k++) {
            const struct module_move *m = &plan.moves[k];
            FUZZ_ASSERT(m->busy_index >= nfixed && m->busy_index < nbusy,
                        "move %u of range %u: not movable (%u fixed)", k, m->busy_index, nfixed);
            FUZZ_ASSERT(k == 0 || m->busy_index > plan.moves[k - 1].busy_index, "move order");
            const struct mem_range *b = &busy[m->busy_index];
            FUZZ_ASSERT(hits(kr, nk, b->addr, b->size), "range %u moved, but not in the way",
                        m->busy_index);
            FUZZ_ASSERT(m->to % 0x1000 == 0 && m->to >= 0x100000 && in_ram(m->to, b->size) &&
                        (uint64_t)m->to + b->size <= FOUR_GIB, "move %u to 0x%x", k, m->to);
            FUZZ_ASSERT(!hits(busy, nbusy, m->to, b->size), "move %u onto a busy range", k);
            FUZZ_ASSERT(!hits(kr, nk, m->to, b->size), "move %u onto the kernel", k);
            final[m->busy_index].addr = m->to;
        }
        for (unsigned k = 0; k < plan.nr_moves; k++)
            for (unsigned j = 0; j < plan.nr_moves; j++) {
                const struct mem_range *a = &final[plan.moves[k].busy_index];
                FUZZ_ASSERT(j == k || !hits(&final[plan.moves[j].busy_index], 1, a->addr,
                                            a->size), "moves %u and %u overlap", k, j);
            }
        /* every movable range in the way moved */
        for (unsigned i = nfixed; i < nbusy; i++)
            FUZZ_ASSERT(!hits(kr, nk, final[i].addr, final[i].size),
                        "range %u still in the kernel's way", i);
    }
    FUZZ_ASSERT(in_ram(plan.kernel_mem, bz.init_size), "kernel not in RAM");
    for (unsigned i = 0; i < nk; i++)
        FUZZ_ASSERT(!hits(final, nbusy, kr[i].addr, kr[i].size), "kernel on a busy range");
    FUZZ_ASSERT((uint64_t)plan.kernel_mem + bz.init_size <= FOUR_GIB, "kernel above 4 GiB");

    /* the initrd */
    if (!initrd_size) {
        FUZZ_ASSERT(rc == 0 && plan.initrd_addr == 0 && plan.initrd_size == 0, "no initrd");
        return 0;
    }
    uint64_t limit = (uint64_t)bz.hdr.initrd_addr_max + 1;
    if (bz.hdr.initrd_addr_max == 0 || limit > FOUR_GIB)
        limit = FOUR_GIB;
    /* the busy ranges where they were, the kernel, and where modules moved to */
    struct mem_range all[34 + LINUX_MAX_MOVES];
    unsigned nall = 0;
    memcpy(all, busy, nbusy * sizeof(busy[0]));
    nall = nbusy;
    memcpy(all + nall, kr, nk * sizeof(kr[0]));
    nall += nk;
    for (unsigned k = 0; k < plan.nr_moves; k++)
        all[nall++] = final[plan.moves[k].busy_index];
    /* the initrd (the last busy range) may have moved out of the kernel's way */
    initrd_at = (uint32_t)final[nbusy - 1].addr;
    bool found;
    uint64_t want = ref_highest(all, nall, 0x100000, limit, initrd_size, 0x1000, &found);
    bool keep = initrd_at >= 0x100000 && initrd_at % 0x1000 == 0 &&
                (uint64_t)initrd_at + initrd_size <= limit && !hits(kr, nk, initrd_at, initrd_size);
    if (rc) {
        FUZZ_ASSERT(strstr(err, "initrd"), "unexpected failure '%s'", err);
        FUZZ_ASSERT(!keep && !found, "initrd refused, but %s", keep ? "it could stay" : "fits");
        return 0;
    }
    FUZZ_ASSERT(plan.initrd_size == initrd_size, "initrd size");
    if (keep) {
        FUZZ_ASSERT(plan.initrd_addr == initrd_at, "initrd moved from 0x%x, but could stay",
                    initrd_at);
    } else {
        FUZZ_ASSERT(found && plan.initrd_addr == want, "initrd at 0x%x, highest feasible 0x%llx",
                    plan.initrd_addr, (unsigned long long)want);
        FUZZ_ASSERT(!hits(all, nall, plan.initrd_addr, initrd_size), "initrd on busy");
    }
    FUZZ_ASSERT(in_ram(plan.initrd_addr, initrd_size), "initrd not in RAM");
    FUZZ_ASSERT(!hits(kr, nk, plan.initrd_addr, initrd_size), "initrd on the kernel");
    FUZZ_ASSERT(plan.initrd_addr >= 0x100000 && plan.initrd_addr % 0x1000 == 0 &&
                plan.initrd_addr + (uint64_t)initrd_size <= limit, "initrd bounds");
    return 0;
}
