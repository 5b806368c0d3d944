/* SPDX-License-Identifier: MIT */
/*
 * The other CPUs' check-in after the MLE starts them into its own code (mle/ap_start.S):
 * each counts itself on entry, records its APIC ID, and parks. The MLE goes on only if exactly
 * the CPUs the host named (EDX at the entry, the launching one included) checked in, each
 * once, none with the launching CPU's APIC ID.
 */
#ifndef SMP_CHECKIN_H
#define SMP_CHECKIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86/segments.h"

/* Shared by the CPUs (atomics only). `entered` comes first: ap_start.S counts on it by the
 * structure's own address, before it has a stack. */
struct ap_checkins {
    uint32_t entered;                   /* CPUs that entered the MLE's AP code */
    uint32_t checked_in;                /* of those, the ones that recorded their APIC ID */
    uint32_t repeated;                  /* check-ins of an APIC ID already recorded */
    uint32_t apic_ids[MAX_CPUS / 32];   /* one bit per APIC ID */
};

/* An AP's check-in (apic_id < MAX_CPUS: ap_start.S parks the others uncounted here). */
void checkin_record(struct ap_checkins *c, uint32_t apic_id);

/* Every AP that entered has recorded itself, and at least `expected` did: the wait is over. */
bool checkin_complete(const struct ap_checkins *c, uint32_t expected);

enum checkin_verdict {
    CHECKIN_OK,
    CHECKIN_BAD_CPU_COUNT,              /* the host's count is 0 or above MAX_CPUS */
    CHECKIN_TOO_FEW,
    CHECKIN_TOO_MANY,
    CHECKIN_UNRECORDED,                 /* entered, never recorded (APIC ID >= MAX_CPUS) */
    CHECKIN_REPEATED,                   /* one APIC ID checked in twice */
    CHECKIN_LAUNCHING_ID,               /* an AP with the launching CPU's APIC ID */
};

/* cpus: the host's count (EDX at the entry); bsp_apic_id: the launching CPU's. */
enum checkin_verdict checkin_verdict(const struct ap_checkins *c, uint32_t cpus,
                                     uint32_t bsp_apic_id);

/* The recorded APIC IDs, ascending, space-separated ("1 2 3"; "none"). */
void checkin_format_ids(const struct ap_checkins *c, char *buf, size_t size);

/* The error line for a verdict other than CHECKIN_OK: expected and arrived, and why. */
void checkin_describe(enum checkin_verdict v, const struct ap_checkins *c, uint32_t cpus,
                      uint32_t bsp_apic_id, char *buf, size_t size);

#endif
