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

/* Starts every other CPU into the MLE's AP code (mle/ap_start.S) and waits, bounded,
 * until cpus - 1 have checked in; any other outcome halts (PCRs capped first). */
void mle_park_other_cpus(uint32_t cpus);

/* The same again, with the launch's count, before S3 MACs memory: every other CPU is then in
 * the MLE's park, none still in the kernel (see takeover.c). */
void mle_repark_other_cpus(void);

/* An AP's check-in, from ap_start.S on its own stack. */
void ap_checkin(uint32_t apic_id);

#endif
