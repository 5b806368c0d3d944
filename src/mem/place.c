/* SPDX-License-Identifier: MIT */
#include "lib/phys.h"
#include "mem/place.h"

const struct mem_range *place_conflict(const struct mem_range *busy, unsigned nbusy,
                                       uint64_t addr, uint64_t size)
{
    for (unsigned i = 0; i < nbusy; i++)
        if (ranges_overlap(addr, size, busy[i].addr, busy[i].size))
            return &busy[i];
    return 0;
}

bool place_is_free(const struct e820_map *m, const struct mem_range *busy, unsigned nbusy,
                   uint64_t addr, uint64_t size)
{
    return e820_range_is(m, addr, size, E820_TYPE_RAM) && !place_conflict(busy, nbusy, addr, size);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

bool place_lowest(const struct e820_map *m, const struct mem_range *busy, unsigned nbusy,
                  uint64_t min, uint64_t limit, uint64_t size, uint64_t align, uint64_t *out)
{
    if (size == 0 || !align || (align & (align - 1)))
        return false;
    for (unsigned i = 0; i < m->nr; i++) {
        const struct e820_entry *e = &m->e[i];
        uint64_t end = e->addr + e->size < limit ? e->addr + e->size : limit;
        if (e->type != E820_TYPE_RAM)
            continue;
        uint64_t a = align_up(e->addr > min ? e->addr : min, align);
        while (a >= min && a < end && size <= end - a) {
            const struct mem_range *c = place_conflict(busy, nbusy, a, size);
            if (!c) {
                *out = a;
                return true;
            }
            uint64_t next = align_up(c->addr + c->size, align);
            if (next <= a)
                break;               /* wrapped */
            a = next;
        }
    }
    return false;
}

bool place_highest(const struct e820_map *m, const struct mem_range *busy, unsigned nbusy,
                   uint64_t min, uint64_t limit, uint64_t size, uint64_t align, uint64_t *out)
{
    if (size == 0 || !align || (align & (align - 1)))
        return false;
    for (unsigned i = m->nr; i-- > 0;) {
        const struct e820_entry *e = &m->e[i];
        uint64_t end = e->addr + e->size < limit ? e->addr + e->size : limit;
        uint64_t lo = e->addr > min ? e->addr : min;
        if (e->type != E820_TYPE_RAM || end <= lo || end - lo < size)
            continue;
        uint64_t a = (end - size) & ~(align - 1);
        while (a >= lo) {
            const struct mem_range *c = place_conflict(busy, nbusy, a, size);
            if (!c) {
                *out = a;
                return true;
            }
            if (c->addr < lo + size)
                break;
            a = (c->addr - size) & ~(align - 1);
        }
    }
    return false;
}
