/* SPDX-License-Identifier: MIT */
/*
 * Reading vtboot's D-RTM event log (TCG crypto-agile format, include/abi/tcg_eventlog.h: a
 * TCG_PCR_EVENT header holding the Spec ID event, then TCG_PCR_EVENT2 records) and replaying
 * it. Pure: no I/O; the replay hashes with OpenSSL.
 *
 * Parsing is strict (the log is outside input): the header must be a Spec ID Event03 (PCR 0,
 * EV_NO_ACTION, zero digest) naming 1 to EVLOG_MAX_ALGS distinct algorithms with digest sizes
 * of 1 to 64 bytes (SHA-1/256/384/512 must have their own sizes); every record must carry one
 * digest per algorithm of the header, each exactly once, a PCR below 24, and lie entirely
 * inside the buffer; the last record must end where the buffer ends.
 *
 * The replay models a dynamic launch: PCRs 17-22 start all-ones (as after a TPM reset); an
 * EV_TXT_MLE_HASH (0x404) event on PCR 17 is the launch: PCRs 17-22 become zero, then PCR 17
 * is extended with its digest (H(0 || H(MLE))). EV_NO_ACTION records extend nothing; every
 * other record extends its PCR. A log can therefore only replay to a launched PCR 17 if the TPM
 * was really reset by the launch (the host's locality-4 sequence): from all-ones no extend
 * reaches the value.
 *
 * An Intel TXT launch's log (evlog_parse_txt: the TXT heap's, the SINIT's records then the
 * MLE's, docs/txt-platform.md 3.4 step 7) differs in two ways. A record may carry the digests
 * of only some of the header's algorithms (at least one, each once): the algorithms extended
 * (Debian's tboot 1.10.5 after our SINIT extends SHA-256 only, "extend policy: 2"); a bank's
 * replay skips the records without its digest, as the TPM never saw them in that bank. And the
 * launch is the SINIT's first record, EV_TXT_HASH_START (0x402) on PCR 17 (the CPU's
 * _TPM_Hash_Start resets 17-22 before it), not 0x404, which is the MLE's measurement there.
 */
#ifndef HOST_EVLOG_H
#define HOST_EVLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EVLOG_MAX_ALGS 8
#define EVLOG_MAX_EVENTS 1024
#define EVLOG_MAX_SIZE (1u << 20)
#define EVLOG_MAX_DIGEST 64

struct evlog_event {
    uint32_t pcr;
    uint32_t type;
    const uint8_t *digest[EVLOG_MAX_ALGS];   /* in the header's algorithm order (a TXT log:
                                              * NULL for an algorithm the record lacks) */
    const uint8_t *data;
    uint32_t data_len;
};

struct evlog {
    bool txt;                                /* evlog_parse_txt's: a TXT launch's log */
    unsigned nalgs;
    uint16_t alg[EVLOG_MAX_ALGS];            /* TPM algorithm IDs, as the header lists them */
    uint16_t size[EVLOG_MAX_ALGS];
    unsigned nevents;
    struct evlog_event events[EVLOG_MAX_EVENTS];   /* the records after the header */
};

/* 0, or -1 with the reason (and the byte offset) in err. The events point into buf. */
int evlog_parse(const uint8_t *buf, size_t len, struct evlog *log, char *err, size_t errsz);
/* The same for a TXT launch's log (above): records with some of the header's digests. */
int evlog_parse_txt(const uint8_t *buf, size_t len, struct evlog *log, char *err, size_t errsz);
/* The launch event's type: EV_TXT_HASH_START in a TXT log, else EV_TXT_MLE_HASH. */
uint32_t evlog_launch_type(const struct evlog *log);

/* The index of alg in the header, or -1. */
int evlog_alg_index(const struct evlog *log, uint16_t alg);

/* PCR pcr (0-23) after replaying the log in bank alg, into out (the algorithm's size);
 * *launched tells whether a launch event was replayed. -1 if the log has no such bank or
 * OpenSSL does not know the algorithm. */
int evlog_replay(const struct evlog *log, uint16_t alg, unsigned pcr, uint8_t *out,
                 bool *launched);

#endif
