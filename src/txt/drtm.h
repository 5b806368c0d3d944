/* SPDX-License-Identifier: MIT */
/*
 * The D-RTM measurements of a TXT launch on the emulated platform: what GETSEC[SENTER] and our
 * SINIT extend into PCRs 17 and 18 (docs/txt-platform.md 3.4 step 7), as one list that both
 * sides walk: the SINIT extends and logs it, vtboot-pcr predicts from it. An event's digest in
 * a bank is that bank's hash of the event's bytes; for the MLE the list names only the place
 * (the SINIT hashes the pages its page table reaches, vtboot-pcr the expanded ELF image).
 *
 * [departure] Intel's exact details/authorities event list for TPM 2.0 is not in our sources
 * (surface 6.2); this list is ours. tboot, Linux and Xen read none of these values back.
 */
#ifndef TXT_DRTM_H
#define TXT_DRTM_H

#include <stdbool.h>
#include <stdint.h>

#define TXT_DRTM_NR_EVENTS 7u
#define TXT_DRTM_ACM_DIGEST_SIZE 32u     /* SHA-256, what SENTER's signature check hashed */

struct txt_drtm_in {
    uint8_t acm_digest[TXT_DRTM_ACM_DIGEST_SIZE];  /* over acm_signed_ranges (src/txt/acm.h) */
    uint32_t senter_edx;                 /* GETSEC[SENTER]'s EDX (SinitMleData's copy) */
    uint32_t proc_scrtm_status;
    uint32_t os_sinit_caps;              /* OsSinitData.capabilities */
    uint32_t lcp_policy_control;         /* the PO (or PS) policy's control, 0 without one */
    uint8_t pubkey_hash[TXT_DRTM_ACM_DIGEST_SIZE];  /* SHA-256 of the ACM header's modulus as
                                          stored: the chipset's PUBLIC.KEY */
    const uint8_t *po_policy;            /* the PO policy's bytes; NULL: none */
    uint32_t po_policy_len;
};

struct txt_drtm_event {
    uint32_t pcr;
    uint32_t type;                       /* EV_TXT_* (include/abi/tcg_eventlog.h) */
    bool is_mle;                         /* the digest is the MLE's measurement; no data */
    const uint8_t *data;
    uint32_t len;
};

/* The events, in extend order; data points into the structure itself or into `in`'s buffers,
 * so both must outlive the list. */
struct txt_drtm_events {
    uint8_t hash_start[TXT_DRTM_ACM_DIGEST_SIZE + 4];
    uint8_t scrtm_status[4];
    uint8_t os_sinit_caps[4];
    uint8_t lcp_policy_control[4];
    uint8_t no_policy[32];
    struct txt_drtm_event ev[TXT_DRTM_NR_EVENTS];
};

void txt_drtm_events(const struct txt_drtm_in *in, struct txt_drtm_events *out);

/* PCR 17 in bank alg right after GETSEC[SENTER] measured an ACM with this digest and EDX: the
 * HASH_START event extended into the PCR SENTER reset to zero. Only SENTER (through locality 4)
 * leaves this value, so the SINIT compares the TPM's with it to know how it was entered.
 * pcr gets tpm_hash_size(alg) bytes; 0, or -1 if alg is not supported. */
int txt_drtm_senter_pcr17(const uint8_t acm_digest[TXT_DRTM_ACM_DIGEST_SIZE], uint32_t senter_edx,
                          uint16_t alg, uint8_t *pcr);

#endif
