/* SPDX-License-Identifier: MIT */
#include "mem/e820.h"

int e820_append(struct e820_map *m, uint64_t addr, uint64_t size, uint32_t type)
{
    if (size == 0)
        return 0;
    if (addr + size < addr || m->nr >= E820_MAP_MAX)
        return -1;
    m->e[m->nr++] = (struct e820_entry){ addr, size, type };
    return 0;
}

bool e820_sorted_disjoint(const struct e820_map *m)
{
    for (unsigned i = 1; i < m->nr; i++)
        if (m->e[i].addr < m->e[i - 1].addr + m->e[i - 1].size)
            return false;
    return true;
}

static uint64_t type_rank(uint32_t type)
{
    /* RAM is the weakest claim; any other type (even an unknown one, even 0) keeps its range,
     * and ranks are unique, so the result does not depend on the order of the entries. */
    return type == E820_TYPE_RAM ? 0 : (uint64_t)type + 1;
}

/*
 * Boundary sweep: every entry start and end is a boundary; each interval between two
 * consecutive boundaries gets the strongest type of the entries covering it.
 */
int e820_sanitize(struct e820_map *m)
{
    static uint64_t bounds[2 * E820_MAP_MAX];
    static struct e820_entry out[E820_MAP_MAX];
    unsigned nb = 0, no = 0;

    for (unsigned i = 0; i < m->nr; i++) {
        bounds[nb++] = m->e[i].addr;
        bounds[nb++] = m->e[i].addr + m->e[i].size;
    }
    /* insertion sort: at most 256 values */
    for (unsigned i = 1; i < nb; i++) {
        uint64_t v = bounds[i];
        unsigned j = i;
        for (; j > 0 && bounds[j - 1] > v; j--)
            bounds[j] = bounds[j - 1];
        bounds[j] = v;
    }
    for (unsigned b = 0; b + 1 < nb; b++) {
        uint64_t lo = bounds[b], hi = bounds[b + 1];
        if (lo == hi)
            continue;
        bool covered = false;
        uint32_t type = 0;
        for (unsigned i = 0; i < m->nr; i++) {
            const struct e820_entry *e = &m->e[i];
            if (e->addr <= lo && hi <= e->addr + e->size) {
                if (!covered || type_rank(e->type) > type_rank(type))
                    type = e->type;
                covered = true;
            }
        }
        if (!covered)
            continue;
        if (no && out[no - 1].type == type && out[no - 1].addr + out[no - 1].size == lo) {
            out[no - 1].size += hi - lo;
            continue;
        }
        if (no >= E820_MAP_MAX)
            return -1;
        out[no++] = (struct e820_entry){ lo, hi - lo, type };
    }
    for (unsigned i = 0; i < no; i++)
        m->e[i] = out[i];
    m->nr = no;
    return 0;
}

int e820_set_range(struct e820_map *m, uint64_t addr, uint64_t size, uint32_t type)
{
    unsigned nr = m->nr;

    if (e820_append(m, addr, size, type))
        return -1;
    if (e820_sanitize(m)) {
        m->nr = nr;                  /* sanitize left the map alone: drop the raw entry */
        return -1;
    }
    return 0;
}

bool e820_range_is(const struct e820_map *m, uint64_t addr, uint64_t size, uint32_t type)
{
    uint64_t end = addr + size;

    if (size == 0 || end < addr)
        return false;
    for (unsigned i = 0; i < m->nr && addr < end; i++) {
        const struct e820_entry *e = &m->e[i];
        if (e->addr <= addr && addr < e->addr + e->size) {
            if (e->type != type)
                return false;
            addr = e->addr + e->size;
        }
    }
    return addr >= end;
}

const char *e820_type_name(uint32_t type)
{
    switch (type) {
    case E820_TYPE_RAM:
        return "usable";
    case E820_TYPE_RESERVED:
        return "reserved";
    case E820_TYPE_ACPI:
        return "ACPI data";
    case E820_TYPE_NVS:
        return "ACPI NVS";
    case E820_TYPE_UNUSABLE:
        return "unusable";
    case E820_TYPE_PMEM:
        return "persistent";
    default:
        return "unknown";
    }
}
