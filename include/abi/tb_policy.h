/* SPDX-License-Identifier: MIT */
/*
 * tboot's verified launch policy (tboot 1.10 include/tb_policy.h, as Debian's tb_polgen 1.10.5
 * writes it): a packed little-endian header and entries, each entry followed by num_hashes
 * digests of the policy's hash algorithm. With a TPM 2.0 it lives in NV index 0x01200001, or
 * 0x01C10131 when the platform's SINIT sets tpm_nv_index_set (tboot common/tpm_20.c).
 */
#ifndef ABI_TB_POLICY_H
#define ABI_TB_POLICY_H

#include <stdint.h>
#include <stddef.h>

#define TB_POLICY_VERSION 2u
#define TB_POLICY_NV_INDEX_TPM2 0x01200001u     /* tb_policy_index, ACM tpm_nv_index_set = 0 */
#define TB_POLICY_NV_INDEX_TPM2_SET1 0x01C10131u /* ... with an ACM whose tpm_nv_index_set = 1 */

enum tb_policy_type {
    TB_POLTYPE_CONT_NON_FATAL = 0,      /* tb_polgen "nonfatal" */
    TB_POLTYPE_CONT_VERIFY_FAIL = 1,    /* tb_polgen "continue" */
    TB_POLTYPE_HALT = 2,                /* tb_polgen "halt" */
    TB_POLTYPE_MAX = 3,
};

enum tb_hash_type {
    TB_HTYPE_ANY = 0,
    TB_HTYPE_IMAGE = 1,
};

#define TB_POLCTL_EXTEND_PCR17 0x1u

#define TB_POL_MAX_MOD_NUM 127u
#define TB_POL_MOD_NUM_ANY 129u
#define TB_POL_MOD_NUM_NV 130u
#define TB_POL_MOD_NUM_NV_RAW 131u
#define TB_POL_MAX_PCR 23u
#define TB_POL_PCR_NONE 255u

/* hash_alg is a u8 holding the low byte of the TPM algorithm ID; 0 means SHA-1 (TPM 1.2 tools) */
#define TB_HALG_SHA1_LEGACY 0x00u

struct tb_policy_header {
    uint8_t version;
    uint8_t policy_type;
    uint8_t hash_alg;
    uint32_t policy_control;
    uint32_t reserved;
    uint8_t num_entries;
} __attribute__((packed));

struct tb_policy_entry_header {
    uint8_t mod_num;
    uint8_t pcr;
    uint8_t hash_type;
    uint32_t nv_index;
    uint8_t num_hashes;
} __attribute__((packed));

/* 8 entries of 4 SHA-512 hashes: tboot's MAX_TB_POLICY_SIZE */
#define TB_POLICY_MAX_SIZE (sizeof(struct tb_policy_header) + \
                            8 * (sizeof(struct tb_policy_entry_header) + 4 * 64))

_Static_assert(sizeof(struct tb_policy_header) == 12, "tb_policy_t header");
_Static_assert(offsetof(struct tb_policy_header, policy_control) == 3, "policy_control");
_Static_assert(offsetof(struct tb_policy_header, num_entries) == 11, "num_entries");
_Static_assert(sizeof(struct tb_policy_entry_header) == 8, "tb_policy_entry_t header");
_Static_assert(offsetof(struct tb_policy_entry_header, nv_index) == 3, "nv_index");
_Static_assert(offsetof(struct tb_policy_entry_header, num_hashes) == 7, "num_hashes");
_Static_assert(TB_POLICY_MAX_SIZE == 2124, "MAX_TB_POLICY_SIZE");

#endif
