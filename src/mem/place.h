/* SPDX-License-Identifier: MIT */
/*
 * Finding room in physical memory: a range of RAM (per a sanitised e820 map) that avoids
 * every busy range (vtboot, its logs, the modules, ...).
 */
#ifndef MEM_PLACE_H
#define MEM_PLACE_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/e820.h"

struct mem_range {
    uint64_t addr;
    uint64_t size;
    const char *what;
};

/* The first busy range that overlaps [addr, addr + size), or NULL. */
const struct mem_range *place_conflict(const struct mem_range *busy, unsigned nbusy,
                                       uint64_t addr, uint64_t size);

/* True if [addr, addr + size) is RAM and free of busy ranges. */
bool place_is_free(const struct e820_map *m, const struct mem_range *busy, unsigned nbusy,
                   uint64_t addr, uint64_t size);

/* Lowest `align`-aligned address >= min with [addr, addr + size) free and below limit. */
bool place_lowest(const struct e820_map *m, const struct mem_range *busy, unsigned nbusy,
                  uint64_t min, uint64_t limit, uint64_t size, uint64_t align, uint64_t *out);

/* Highest `align`-aligned address with [addr, addr + size) free and ending at or below limit. */
bool place_highest(const struct e820_map *m, const struct mem_range *busy, unsigned nbusy,
                   uint64_t min, uint64_t limit, uint64_t size, uint64_t align, uint64_t *out);

#endif
