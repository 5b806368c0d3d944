/* SPDX-License-Identifier: MIT */
/*
 * Writing the D-RTM TCG event log (crypto-agile format, include/abi/tcg_eventlog.h) into a
 * fixed buffer: the Spec ID event naming every bank, then one TCG_PCR_EVENT2 per extend with a
 * digest for every bank. The log never overruns its buffer; a full log refuses the event.
 */
#ifndef TPM_EVENTLOG_H
#define TPM_EVENTLOG_H

#include <stdint.h>

#include "tpm/tpm2.h"

struct event_log {
    uint8_t *buf;
    uint32_t cap;
    uint32_t used;
    struct tpm_banks banks;
};

/* Starts a log in [mem, mem + cap) for these banks; -1 if even the header does not fit. */
int evlog_init(struct event_log *log, void *mem, uint32_t cap, const struct tpm_banks *banks);

/* Appends one event; digests must hold one digest per bank of the log, in its order. */
int evlog_append(struct event_log *log, uint32_t pcr, uint32_t type,
                 const struct tpm_digest_list *digests, const void *data, uint32_t data_len);

#endif
