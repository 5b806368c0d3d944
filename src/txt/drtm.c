/* SPDX-License-Identifier: MIT */
#include "txt/drtm.h"

#include "abi/tcg_eventlog.h"
#include "crypto/hash.h"
#include "lib/bytes.h"
#include "lib/string.h"

/* PCR 17 is reset by SENTER and extended from zero with the TPM's hash of what the CPU sent
 * through _TPM_Hash_Data: the ACM's digest and SENTER's EDX (surface 6.2, the SDG's words) */
static void hash_start_data(uint8_t out[TXT_DRTM_ACM_DIGEST_SIZE + 4],
                            const uint8_t acm_digest[TXT_DRTM_ACM_DIGEST_SIZE], uint32_t edx)
{
    memcpy(out, acm_digest, TXT_DRTM_ACM_DIGEST_SIZE);
    store_le32(out + TXT_DRTM_ACM_DIGEST_SIZE, edx);
}

int txt_drtm_senter_pcr17(const uint8_t acm_digest[TXT_DRTM_ACM_DIGEST_SIZE], uint32_t senter_edx,
                          uint16_t alg, uint8_t *pcr)
{
    uint8_t data[TXT_DRTM_ACM_DIGEST_SIZE + 4], digest[HASH_MAX_DIGEST_SIZE];
    hash_start_data(data, acm_digest, senter_edx);
    if (hash_buffer(alg, data, sizeof(data), digest))
        return -1;
    memset(pcr, 0, tpm_hash_size(alg));
    return hash_extend(alg, pcr, digest);
}

static void event(struct txt_drtm_events *out, unsigned i, uint32_t pcr, uint32_t type,
                  const uint8_t *data, uint32_t len)
{
    out->ev[i] = (struct txt_drtm_event){ .pcr = pcr, .type = type, .data = data, .len = len,
                                          .is_mle = false };
}

void txt_drtm_events(const struct txt_drtm_in *in, struct txt_drtm_events *out)
{
    memset(out, 0, sizeof(*out));

    hash_start_data(out->hash_start, in->acm_digest, in->senter_edx);
    store_le32(out->scrtm_status, in->proc_scrtm_status);
    store_le32(out->os_sinit_caps, in->os_sinit_caps);
    store_le32(out->lcp_policy_control, in->lcp_policy_control);

    /* details (PCR 17): what ran and how it was asked to run */
    event(out, 0, 17, EV_TXT_HASH_START, out->hash_start, sizeof(out->hash_start));
    event(out, 1, 17, EV_TXT_CPU_SCRTM_STAT, out->scrtm_status, 4);
    event(out, 2, 17, EV_TXT_OSSINITDATA_CAP_HASH, out->os_sinit_caps, 4);
    event(out, 3, 17, EV_TXT_LCP_CONTROL_HASH, out->lcp_policy_control, 4);
    event(out, 4, 17, EV_TXT_MLE_HASH, NULL, 0);
    out->ev[4].is_mle = true;
    /* authorities (PCR 18): who signed the SINIT (the key's hash, as PUBLIC.KEY holds it: an
     * event's data stays under 256 bytes, which tboot 1.10.5's log dump reads as one byte)
     * and which policy allowed the MLE; without a policy the hash of 32 zero bytes, so "no
     * policy" is a value of its own */
    event(out, 5, 18, EV_TXT_SINIT_PUBKEY_HASH, in->pubkey_hash, sizeof(in->pubkey_hash));
    if (in->po_policy)
        event(out, 6, 18, EV_TXT_LCP_HASH, in->po_policy, in->po_policy_len);
    else
        event(out, 6, 18, EV_TXT_LCP_HASH, out->no_policy, sizeof(out->no_policy));
}
