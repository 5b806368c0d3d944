/* SPDX-License-Identifier: MIT */
/* vtboot's regions, as the linker script (arch/x86/vtboot.ld) lays them out. */
#ifndef LAYOUT_H
#define LAYOUT_H

#include <stdint.h>

extern char _region_start[], _end[];
extern char _persist_start[], _persist_end[];
extern char _shared_page[];
extern char _evtlog_start[], _evtlog_end[];
extern char _mle_start[], _mle_end[];
extern char shutdown_entry[];

static inline uint32_t sym_addr(const void *p)
{
    return (uint32_t)(uintptr_t)p;
}

#endif
