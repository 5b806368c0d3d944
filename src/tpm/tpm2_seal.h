/* SPDX-License-Identifier: MIT */
/*
 * Sealing a small secret to PCR values (TPM 2.0 Part 3): a storage primary in the owner
 * hierarchy (recreated identically from the persistent owner seed on every boot and resume),
 * a KEYEDHASH data object whose only authorisation is a PolicyPCR policy, and unsealing it
 * through a policy session. Same return convention as tpm2.h.
 */
#ifndef TPM_TPM2_SEAL_H
#define TPM_TPM2_SEAL_H

#include <stdint.h>

#include "tpm/tpm2.h"

#define TPM2_SEAL_MAX 128u               /* MAX_SYM_DATA: the largest sealed secret */
#define TPM2_SEALED_PRIVATE_MAX 512u
#define TPM2_SEALED_PUBLIC_MAX 256u
#define TPM2_POLICY_DIGEST_SIZE 32u      /* policies are SHA-256 */

struct tpm2_sealed {
    uint16_t private_size;
    uint8_t private_area[TPM2_SEALED_PRIVATE_MAX];
    uint16_t public_size;
    uint8_t public_area[TPM2_SEALED_PUBLIC_MAX];
};

/* The policy digest of TPM2_PolicyPCR over `pcrs` (ascending, 0-23) of `bank`, whose values
 * are `values` (n digests of the bank's size, in PCR order), from an empty policy. A PCR
 * above 23 is left out of the selection (tpm2_policy_pcr refuses it, and an empty list). */
void tpm2_policy_pcr_digest(uint16_t bank, const unsigned *pcrs, unsigned n,
                            const uint8_t *values, uint8_t out[TPM2_POLICY_DIGEST_SIZE]);

/* ECC P-256 restricted decryption key (AES-128-CFB) under TPM_RH_OWNER (empty owner auth). */
int tpm2_create_storage_primary(struct tpm2 *t, uint32_t *handle);
int tpm2_seal(struct tpm2 *t, uint32_t parent, const uint8_t policy[TPM2_POLICY_DIGEST_SIZE],
              const void *data, uint16_t len, struct tpm2_sealed *out);
int tpm2_load(struct tpm2 *t, uint32_t parent, const struct tpm2_sealed *s, uint32_t *handle);
int tpm2_start_policy_session(struct tpm2 *t, uint32_t *session);
int tpm2_policy_pcr(struct tpm2 *t, uint32_t session, uint16_t bank, const unsigned *pcrs,
                    unsigned n);
int tpm2_unseal(struct tpm2 *t, uint32_t item, uint32_t session, uint8_t *out, uint16_t cap,
                uint16_t *len);
int tpm2_flush_context(struct tpm2 *t, uint32_t handle);

#endif
