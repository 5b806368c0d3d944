/* SPDX-License-Identifier: MIT */
/*
 * The MLE takes the platform over, once PCR 17 confirms the launch (only then are the entry
 * registers the host's): nothing armed before the launch may reach a CPU, and every other CPU
 * runs the MLE's own code.
 */
#ifndef MLE_TAKEOVER_H
#define MLE_TAKEOVER_H

#include <stdint.h>

/* The PICs and the I/O APIC masked, this CPU's local APIC (vtboot's base, LVTs masked, timer
 * stopped), its debug registers cleared, the firmware's warm-reset path disarmed. */
void mle_take_over_platform(void);

/* EDX at the MLE's entry (mle/entry.S, at every launch and re-launch): the host's CPU count,
 * trusted once PCR 17 is. */
extern uint32_t mle_entry_cpus;

/* Starts every other CPU into the MLE's AP code (mle/ap_start.S) and waits, bounded, until
 * mle_entry_cpus - 1 have checked in; any other outcome halts (PCRs capped first). `who`
 * starts the log line: "MLE" at the launch, "S3" before S3 MACs memory, when every other CPU
 * must be in the MLE's park and none still in the kernel (see takeover.c). */
void mle_park_other_cpus(const char *who);

/* An AP's check-in, from ap_start.S on its own stack. */
void ap_checkin(uint32_t apic_id);

#endif
