/* SPDX-License-Identifier: MIT */
#include "lib/format.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "mbkernel/plan.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

#define FOUR_GIB 0x100000000ull
#define LOW_MEMORY_END 0x100000u

int mbk_plan(const struct elf_image *e, uint32_t entry, const struct e820_map *map,
             const struct mem_range *own, unsigned nown, const struct mem_range *mods,
             unsigned nmods, struct mbk_plan *p, char *err, unsigned errlen)
{
    static struct mem_range busy[8 + ELF_MAX_SEGMENTS + 2 * BOOT_MAX_MODULES];
    unsigned n = 0;

    memset(p, 0, sizeof(*p));
    if (nown > 8 || nmods > BOOT_MAX_MODULES)
        FAIL("%u own ranges and %u modules: too many", nown, nmods);

    bool entry_ok = false;
    for (unsigned i = 0; i < e->nr_segments; i++) {
        const struct elf_segment *s = &e->seg[i];
        const struct mem_range *c = place_conflict(own, nown, s->paddr, s->memsz);
        if (c)
            FAIL("ELF segment %u (0x%x+0x%x) overlaps %s (0x%llx+0x%llx)", s->index, s->paddr,
                 s->memsz, c->what, (unsigned long long)c->addr, (unsigned long long)c->size);
        if (!e820_range_is(map, s->paddr, s->memsz, E820_TYPE_RAM))
            FAIL("ELF segment %u (0x%x+0x%x) is not RAM in the loader's memory map", s->index,
                 s->paddr, s->memsz);
        if (entry >= s->paddr && entry - s->paddr < s->filesz)
            entry_ok = true;
    }
    if (!entry_ok)
        FAIL("entry point 0x%x is not in the file bytes of a loadable segment", entry);
    p->entry = entry;

    /* what no move may land on: vtboot, every module where it is now, the segments */
    for (unsigned i = 0; i < nown; i++)
        busy[n++] = own[i];
    for (unsigned i = 0; i < nmods; i++)
        busy[n++] = mods[i];
    for (unsigned i = 0; i < e->nr_segments; i++)
        busy[n++] = (struct mem_range){ e->seg[i].paddr, e->seg[i].memsz, "the kernel" };

    for (unsigned i = 0; i < nmods; i++) {
        const struct mem_range *m = &mods[i];
        bool in_the_way = false;
        for (unsigned k = 0; k < e->nr_segments; k++)
            if (ranges_overlap(m->addr, m->size, e->seg[k].paddr, e->seg[k].memsz))
                in_the_way = true;
        bool unaligned = i > 0 && (m->addr & (MBK_PAGE - 1));
        if (!in_the_way && !unaligned)
            continue;
        uint64_t to;
        if (m->size == 0) {
            to = m->addr & ~(uint64_t)(MBK_PAGE - 1);      /* nothing to copy */
        } else if (!place_highest(map, busy, n, LOW_MEMORY_END, FOUR_GIB, m->size, MBK_PAGE,
                                  &to)) {
            FAIL("no free RAM below 4 GiB to move module %u (0x%llx bytes) %s", i,
                 (unsigned long long)m->size,
                 in_the_way ? "out of the kernel's way" : "to a page boundary");
        }
        p->moves[p->nr_moves++] = (struct mbk_move){ i, (uint32_t)to };
        busy[n++] = (struct mem_range){ to, m->size, "a moved module" };
    }
    return 0;
}

int mbk_cmdline(char *dst, const char *modstr, uint32_t shared_page, char *err, unsigned errlen)
{
    size_t len = strlen(modstr);
    char suffix[24];
    int slen = fmt_snprintf(suffix, sizeof(suffix), " tboot=0x%x", shared_page);

    if (len + (size_t)slen + 1 > MBK_CMDLINE_MAX)
        FAIL("its command line is %u bytes with \"%s\"; at most %u are passed on",
             (unsigned)(len + (size_t)slen), suffix + 1, MBK_CMDLINE_MAX - 1);
    memcpy(dst, modstr, len);
    memcpy(dst + len, suffix, (size_t)slen + 1);
    return 0;
}
