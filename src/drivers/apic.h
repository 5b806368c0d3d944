/* SPDX-License-Identifier: MIT */
/* This CPU's local APIC: made vtboot's, quiet, and the INIT and SIPI it sends the others. */
#ifndef DRIVERS_APIC_H
#define DRIVERS_APIC_H

#include <stdbool.h>
#include <stdint.h>

/* IA32_APIC_BASE := the xAPIC default base, enabled (intc/intc.h); every LVT masked and the
 * timer stopped (initial count 0), so that none of them fires what a loader armed. The other
 * functions below need it first: they write to the default base. */
void apic_take_over(void);

/* INIT to every CPU but this one (all-excluding-self): each waits for a SIPI, interrupts off,
 * its own local APIC reset (every LVT masked). */
void apic_init_others(void);

/* A SIPI to every CPU but this one: those in wait-for-SIPI start in real mode at page (a
 * page-aligned address below 1 MiB); the others ignore it. */
void apic_startup_others(uint32_t page);

/* True on the boot CPU (IA32_APIC_BASE's BSP flag, which INIT and S3 keep). */
bool apic_is_boot_cpu(void);

#endif
