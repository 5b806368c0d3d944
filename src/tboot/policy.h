/* SPDX-License-Identifier: MIT */
/*
 * tboot's verified launch policy: parsing and validating the bytes read from TPM NV, the
 * default policy, matching modules to entries, and tboot's map from (policy type, error) to
 * what happens next.
 */
#ifndef TBOOT_POLICY_H
#define TBOOT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/tb_policy.h"

#define TB_POLICY_MAX_ENTRIES 255u

struct tb_policy_entry {
    uint8_t mod_num;
    uint8_t pcr;
    uint8_t hash_type;
    uint32_t nv_index;
    uint8_t num_hashes;
    const uint8_t *hashes;           /* num_hashes digests of the policy's algorithm */
};

struct tb_policy {
    uint8_t bytes[TB_POLICY_MAX_SIZE];   /* own copy: what is measured */
    uint32_t size;                       /* tboot's calc_policy_size */
    uint8_t type;
    uint16_t hash_alg;                   /* TPM algorithm ID */
    uint32_t control;
    unsigned nr_entries;
    struct tb_policy_entry entries[TB_POLICY_MAX_ENTRIES];
};

/* Validates `len` bytes of policy (trailing bytes beyond the policy are ignored, as tboot
 * does for an NV index larger than its policy); -1 with a reason in err. */
int tb_policy_parse(const uint8_t *buf, uint32_t len, struct tb_policy *p, char *err,
                    unsigned errlen);

enum pcr_map {
    PCR_MAP_DA,                      /* tboot's mapping with TPM 2.0: details/authorities */
    PCR_MAP_LEGACY,                  /* 17 launch, 18 kernel, 19 other modules */
};

/* tboot 1.10's default policy for the mapping: nonfatal, SHA-256, EXTEND_PCR17; module 0 in no
 * extra PCR, every other module in PCR 17 (DA) or 19 (legacy), NV_RAW 0x40000010 in PCR 22. */
void tb_policy_default(struct tb_policy *p, enum pcr_map map);

/* The first entry for module `mod_num` or for any module, or NULL. */
const struct tb_policy_entry *tb_policy_find(const struct tb_policy *p, unsigned mod_num);

/* True if the entry accepts `digest` (of the policy's hash algorithm). */
bool tb_policy_entry_accepts(const struct tb_policy *p, const struct tb_policy_entry *e,
                             const uint8_t *digest);

const char *tb_policy_type_name(uint8_t type);

enum tb_error {
    TB_ERR_NONE,
    TB_ERR_FATAL,
    TB_ERR_TPM_NOT_READY,
    TB_ERR_TXT_NOT_SUPPORTED,          /* no (virtual) SENTER answered */
    TB_ERR_POLICY_NOT_PRESENT,
    TB_ERR_POLICY_INVALID,
    TB_ERR_MODULE_VERIFICATION_FAILED,
    TB_ERR_MODULES_NOT_IN_POLICY,
    TB_ERR_S3_INTEGRITY,
};

enum tb_action {
    TB_ACT_CONTINUE,
    TB_ACT_UNMEASURED_LAUNCH,
    TB_ACT_HALT,
};

enum tb_action tb_policy_action(uint8_t policy_type, enum tb_error err);

/* What reading the policy's NV index gave: each step's result (0 success, > 0 the TPM's
 * response code, -1 transport or malformed response); later steps 0 if not reached. */
struct tb_policy_nv_read {
    int public_rc;                       /* TPM2_NV_ReadPublic */
    uint32_t attributes;
    int read_rc;                         /* TPM2_NV_Read */
    int parse_rc;                        /* tb_policy_parse */
};

enum tb_policy_source {
    TB_POLICY_FROM_NV,
    TB_POLICY_DEFAULT,                   /* the index does not exist */
    TB_POLICY_HALT,                      /* it exists (or may) and cannot be used */
};

/* Where the policy comes from. vtboot fails closed where tboot 1.10 falls back to its default
 * policy: once the index exists, any failure to read or parse it halts, whatever type the
 * policy in it would have had; an index the platform can write (PPWRITE) is not trusted. */
enum tb_policy_source tb_policy_source(const struct tb_policy_nv_read *r);
/*
 * Why an index whose source is TB_POLICY_HALT cannot be used, as the launch logs it (one line,
 * no newline) into out (n bytes, always terminated if n > 0), from the first failing step:
 *   "policy: cannot tell whether NV index 0x01200001 exists: <tpm_err>"
 *   "policy: NV index 0x01200001 is platform-writable (PPWRITE), not trusted"
 *   "policy: NV index 0x01200001 exists but cannot be read: <tpm_err>"
 *   "policy in NV index 0x01200001 is invalid: <parse_err>"
 * tpm_err: the TPM's reason for the failed NV_ReadPublic or NV_Read; parse_err:
 * tb_policy_parse's. Only r's steps decide; a read that did not fail gives the last line.
 */
void tb_policy_nv_problem(const struct tb_policy_nv_read *r, const char *tpm_err,
                          const char *parse_err, char *out, size_t n);
const char *tb_error_name(enum tb_error err);
const char *tb_action_name(enum tb_action act);

#endif
