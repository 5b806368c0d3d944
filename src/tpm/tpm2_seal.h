/* SPDX-License-Identifier: MIT */
/*
 * Sealing a small secret to PCR values (TPM 2.0 Part 3): a storage primary in the endorsement
 * hierarchy (recreated identically from its persistent seed on every boot and resume),
 * a KEYEDHASH data object whose only authorisation is a PolicyPCR policy, and unsealing it
 * through a policy session. Anyone can create an object with a given policy; what proves who
 * created a sealed object, and in which state, is its creation data (the PCRs and a caller's
 * digest at creation), bound to the object by the TPM's creation ticket, which only this
 * TPM can have made and TPM2_CertifyCreation checks. Same return convention as tpm2.h.
 */
#ifndef TPM_TPM2_SEAL_H
#define TPM_TPM2_SEAL_H

#include <stdint.h>

#include "tpm/tpm2.h"

#define TPM2_SEAL_MAX 128u               /* MAX_SYM_DATA: the largest sealed secret */
#define TPM2_SEALED_PRIVATE_MAX 512u
#define TPM2_SEALED_PUBLIC_MAX 256u
#define TPM2_POLICY_DIGEST_SIZE 32u      /* policies are SHA-256 */
#define TPM2_CREATION_DATA_MAX 256u
#define TPM2_NAME_MAX (2u + TPM2_MAX_DIGEST)  /* nameAlg and a digest */
#define TPM2_OUTSIDE_INFO_MAX 64u

struct tpm2_sealed {
    uint16_t private_size;
    uint8_t private_area[TPM2_SEALED_PRIVATE_MAX];
    uint16_t public_size;
    uint8_t public_area[TPM2_SEALED_PUBLIC_MAX];
};

/* What the creation data of a new object records: PCRs of one bank, and a caller's bytes. */
struct tpm2_creation_request {
    uint16_t bank;
    const unsigned *pcrs;                /* ascending, 0-23 */
    unsigned n;
    const uint8_t *outside_info;
    uint16_t outside_len;                /* at most TPM2_OUTSIDE_INFO_MAX */
};

/* TPMT_TK_CREATION */
struct tpm2_ticket {
    uint16_t tag;
    uint32_t hierarchy;
    uint16_t digest_size;
    uint8_t digest[TPM2_MAX_DIGEST];
};

/* What TPM2_Create said of the object's creation: TPMS_CREATION_DATA as the TPM marshalled
 * it, its SHA-256 hash, and the ticket binding that hash to the object's name. */
struct tpm2_creation {
    uint16_t data_size;
    uint8_t data[TPM2_CREATION_DATA_MAX];
    uint8_t hash[TPM2_POLICY_DIGEST_SIZE];
    struct tpm2_ticket ticket;
};

/* TPMS_CREATION_DATA, parsed: one PCR bank at most (what vtboot asks for). */
struct tpm2_creation_info {
    uint32_t pcr_banks;                  /* entries in pcrSelect */
    uint16_t pcr_bank;
    uint32_t pcr_mask;                   /* PCRs 0-23 selected in that bank */
    uint16_t pcr_digest_size;
    uint8_t pcr_digest[TPM2_MAX_DIGEST];
    uint8_t locality;                    /* TPMA_LOCALITY: bit n for locality n < 5 */
    uint16_t parent_name_alg;
    uint16_t parent_name_size;
    uint8_t parent_name[TPM2_NAME_MAX];
    uint16_t parent_qname_size;
    uint8_t parent_qname[TPM2_NAME_MAX];
    uint16_t outside_size;
    uint8_t outside[TPM2_OUTSIDE_INFO_MAX];
};

/* TPMS_CREATION_DATA bytes (all of them, nothing after) into *out; -1 with a reason in err. */
int tpm2_creation_parse(const uint8_t *data, size_t len, struct tpm2_creation_info *out,
                        char *err, unsigned errlen);

/* TPMS_TIME_INFO: the counts of TPM Resets (Startup(CLEAR) after a power loss) and of TPM
 * Restarts and Resumes (Startup after Shutdown(STATE), e.g. every S3 resume). */
struct tpm2_clock {
    uint64_t time, clock;
    uint32_t reset_count, restart_count;
    uint8_t safe;
};

/* The policy digest of TPM2_PolicyPCR over `pcrs` (ascending, 0-23) of `bank`, whose values
 * are `values` (n digests of the bank's size, in PCR order), from an empty policy. A PCR
 * above 23 is left out of the selection (tpm2_policy_pcr refuses it, and an empty list). */
void tpm2_policy_pcr_digest(uint16_t bank, const unsigned *pcrs, unsigned n,
                            const uint8_t *values, uint8_t out[TPM2_POLICY_DIGEST_SIZE]);

/*
 * ECC P-256 restricted decryption key (AES-128-CFB) under TPM_RH_ENDORSEMENT, with that
 * hierarchy's empty password. Not the owner hierarchy: its authorization is the host's
 * (vtboot-qemu keeps it with the TPM state, so that the guest cannot rewrite or delete the
 * policy index). The endorsement seed survives TPM2_Clear and its authorization stays empty
 * (vtboot-attest's EK and AK live there too). The guest can set that authorization or disable
 * the hierarchy: this then fails and S3 fails closed, availability only (a sealed object's
 * origin is proven by its creation ticket, not by this key's secrecy). Not the null hierarchy
 * (tboot 1.10's): its seed changes at every TPM Reset, and vtboot-seal shows a seal failing
 * on its PCRs across a reboot. _named also returns the name (TPM2B_NAME bytes, at most
 * TPM2_NAME_MAX).
 */
int tpm2_create_storage_primary(struct tpm2 *t, uint32_t *handle);
int tpm2_create_storage_primary_named(struct tpm2 *t, uint32_t *handle, uint8_t *name,
                                      uint16_t *name_size);
int tpm2_seal(struct tpm2 *t, uint32_t parent, const uint8_t policy[TPM2_POLICY_DIGEST_SIZE],
              const void *data, uint16_t len, struct tpm2_sealed *out);
/* tpm2_seal with the creation data recording `req`, returned in *creation. */
int tpm2_seal_recorded(struct tpm2 *t, uint32_t parent,
                       const uint8_t policy[TPM2_POLICY_DIGEST_SIZE], const void *data,
                       uint16_t len, const struct tpm2_creation_request *req,
                       struct tpm2_sealed *out, struct tpm2_creation *creation);
/* TPM2_CertifyCreation without a signing key (TPM_RH_NULL): 0 if this TPM's ticket binds
 * c->hash to the loaded object `object` (TPM_RC_TICKET otherwise). c->hash is recomputed
 * from c->data first; a mismatch is refused without asking the TPM. */
int tpm2_certify_creation(struct tpm2 *t, uint32_t object, const struct tpm2_creation *c);
int tpm2_read_clock(struct tpm2 *t, struct tpm2_clock *out);
/* Zeroes the command and response buffers: after a command that carried a secret. */
void tpm2_wipe_buffers(void);
int tpm2_load(struct tpm2 *t, uint32_t parent, const struct tpm2_sealed *s, uint32_t *handle);
int tpm2_start_policy_session(struct tpm2 *t, uint32_t *session);
int tpm2_policy_pcr(struct tpm2 *t, uint32_t session, uint16_t bank, const unsigned *pcrs,
                    unsigned n);
int tpm2_unseal(struct tpm2 *t, uint32_t item, uint32_t session, uint8_t *out, uint16_t cap,
                uint16_t *len);
int tpm2_flush_context(struct tpm2 *t, uint32_t handle);
/* The loaded transient objects' handles (TPM2_GetCapability(TPM_CAP_HANDLES) from
 * TPM2_TRANSIENT_FIRST), at most cap of them into handles[], their number in *count; -1 if
 * the TPM lists more than cap, or a handle that is not a transient object's. */
int tpm2_transient_handles(struct tpm2 *t, uint32_t *handles, unsigned cap, unsigned *count);

#endif
