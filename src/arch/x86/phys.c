/* SPDX-License-Identifier: MIT */
/* Physical memory in the pre-kernel: paging is off, so an address is its own pointer. */
#include <stdint.h>

#include "lib/phys.h"

#define FOUR_GIB 0x100000000ull

void *phys_map(uint64_t addr, uint64_t len)
{
    if (!range_fits(addr, len, FOUR_GIB))
        return 0;
    /* 0 is a valid physical address (the IVT), but never one a loader should point us at */
    if (addr == 0)
        return 0;
    return (void *)(uintptr_t)addr;
}
