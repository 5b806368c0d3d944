/* SPDX-License-Identifier: MIT */
/* The local APIC, for the one thing vtboot does with it: stop the other CPUs. */
#ifndef DRIVERS_APIC_H
#define DRIVERS_APIC_H

/* Sends INIT to every CPU but this one (all-excluding-self): each waits for a SIPI, with
 * interrupts off, as after a reset, until the kernel starts it. xAPIC or x2APIC, whichever
 * mode the APIC is in; a globally disabled APIC is enabled first. */
void apic_init_others(void);

#endif
