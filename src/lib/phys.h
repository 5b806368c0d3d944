/* SPDX-License-Identifier: MIT */
/*
 * Access to guest-physical memory for code that parses what a loader left in memory.
 * In the pre-kernel (paging off) this is the identity; on the host, tests and fuzzers supply a
 * fake memory (tests/unit/support/phys_fake.c). Every caller asks for the exact range it will
 * touch, so a bad address from a loader becomes an error instead of a wild access.
 */
#ifndef LIB_PHYS_H
#define LIB_PHYS_H

#include <stdint.h>

/* Returns a pointer to [addr, addr + len) or NULL if the range is not addressable. */
void *phys_map(uint64_t addr, uint64_t len);

/* True if [addr, addr + len) does not wrap and ends at or below `limit`. */
static inline int range_fits(uint64_t addr, uint64_t len, uint64_t limit)
{
    return addr <= limit && len <= limit - addr;
}

/* True if [a, a + alen) and [b, b + blen) intersect; empty ranges never do. */
static inline int ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return alen && blen && a < b + blen && b < a + alen;
}

#endif
