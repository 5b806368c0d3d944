/* SPDX-License-Identifier: MIT */
/*
 * The physical memory map vtboot receives from the loader and hands to Linux: sanitising
 * (sorted, non-overlapping, adjacent equal types merged; where types overlap the larger type
 * number wins, so RAM always loses) and carving vtboot's own regions out as reserved.
 */
#ifndef MEM_E820_H
#define MEM_E820_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/e820.h"

#define E820_MAP_MAX 128u

struct e820_entry {
    uint64_t addr;
    uint64_t size;
    uint32_t type;
};

struct e820_map {
    unsigned nr;
    struct e820_entry e[E820_MAP_MAX];
};

/* Appends one raw entry (zero-size entries are ignored). Fails when the map is full or the
 * range wraps past 2^64. */
int e820_append(struct e820_map *m, uint64_t addr, uint64_t size, uint32_t type);

/* True if the entries are in address order and none overlaps another, as a careful loader
 * hands them over (adjacent entries of one type are fine). Any other map is still used once
 * sanitised, but vtboot says so. */
bool e820_sorted_disjoint(const struct e820_map *m);

/* Rewrites the map into canonical form; fails if the result would not fit. */
int e820_sanitize(struct e820_map *m);

/* Marks [addr, addr + size) with `type` (which must outrank what is there) and re-sanitises. */
int e820_set_range(struct e820_map *m, uint64_t addr, uint64_t size, uint32_t type);

/* True if every byte of [addr, addr + size) lies in entries of `type` (map must be sanitised). */
bool e820_range_is(const struct e820_map *m, uint64_t addr, uint64_t size, uint32_t type);

const char *e820_type_name(uint32_t type);

#endif
