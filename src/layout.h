/* SPDX-License-Identifier: MIT */
/* vtboot's regions, as the linker script (arch/x86/vtboot.ld) lays them out. */
#ifndef LAYOUT_H
#define LAYOUT_H

/* The MLE's command line area (arch/x86/mle_header.S): the pre-launch code copies vtboot's
 * command line into it, so that the launch measures it with the MLE, as tboot's g_cmdline. */
#define MLE_CMDLINE_SIZE 1024

#ifndef __ASSEMBLY__
#include <stdint.h>

#include "abi/mle.h"

struct handoff;

extern char _region_start[], _end[];
extern char _persist_start[], _persist_end[];
extern char _shared_page[];
extern char _evtlog_start[], _evtlog_end[];
extern char _mle_start[], _mle_end[];
extern char mle_cmdline[];
extern const struct mle_hdr mle_header;
extern struct handoff handoff;              /* prelaunch.c writes it, the MLE checks it */
extern char shutdown_entry[];

static inline uint32_t sym_addr(const void *p)
{
    return (uint32_t)(uintptr_t)p;
}
#endif

#endif
