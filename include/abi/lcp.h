/* SPDX-License-Identifier: MIT */
/*
 * Intel TXT launch control policy, version 3 (TPM 2.0), as tboot's include/lcp3.h defines it
 * and its lcp2_* tools (lcptools-v2: lcp2_crtpol, lcp2_crtpollist, lcp2_crtpolelt) write it:
 * the policy in the PO/PS NV index (lcp_policy_t2), the policy data file tboot hands SINIT
 * through OsSinitData.lcp_po_base (lcp_policy_data_t2), its lists (lcp_policy_list_t2 and
 * _t2_1) and their elements, of which the SINIT evaluates the MLE element (type 0x10).
 *
 * All packed, little-endian. A policy occupies offsetof(policy_hash) + the digest size of its
 * hash_alg (lcptools-v2 get_policy_size), not sizeof(struct lcp_policy_t2).
 */
#ifndef ABI_LCP_H
#define ABI_LCP_H

#include <stddef.h>
#include <stdint.h>

/* NV indices (TPM 2.0 set, the ACM's TPM info list has tpm_nv_index_set) */
#define LCP_PS_NV_INDEX 0x01C10103u
#define LCP_PO_NV_INDEX 0x01C10106u
/* the legacy set (tpm_nv_index_set = 0) */
#define LCP_PS_NV_INDEX_LEGACY 0x01800001u
#define LCP_PO_NV_INDEX_LEGACY 0x01400001u

#define LCP_POLTYPE_LIST 0u
#define LCP_POLTYPE_ANY 1u

#define LCP_VER_3_0 0x0300u
#define LCP_VER_3_1 0x0301u
#define LCP_VER_3_2 0x0302u
#define LCP_MAX_LISTS 8u

/* policy_control: lcp2_crtpol's default is 0 (its bits are the MLE DG's; not used yet) */
#define LCP_DEFAULT_POLICY_CONTROL 0u
/* element policy_elt_control bit 0: this PO element type overrides the PS's */
#define LCP_POLELT_CONTROL_OVERRIDE_PS (1u << 0)

/* TPM algorithm IDs the policy uses */
#define LCP_TPM_ALG_SHA1 0x0004u
#define LCP_TPM_ALG_SHA256 0x000Bu
#define LCP_TPM_ALG_SHA384 0x000Cu
#define LCP_TPM_ALG_SHA512 0x000Du
#define LCP_TPM_ALG_NULL 0x0010u
#define LCP_TPM_ALG_SM3_256 0x0012u
#define LCP_TPM_ALG_RSASSA 0x0014u
#define LCP_TPM_ALG_ECDSA 0x0018u

/* lcp_hash_alg_mask bits */
#define LCP_ALG_MASK_SHA1 0x0001u
#define LCP_ALG_MASK_SHA256 0x0008u
#define LCP_ALG_MASK_SM3_256 0x0020u
#define LCP_ALG_MASK_SHA384 0x0040u
#define LCP_ALG_MASK_SHA512 0x0080u

#define LCP_MAX_DIGEST 64u

/* the policy in NV (lcp_policy_t2) */
struct lcp_policy_t2 {
    uint16_t version;                /* 0x0300-0x0302 */
    uint16_t hash_alg;               /* TPM_ALG_* of policy_hash */
    uint8_t policy_type;             /* LCP_POLTYPE_* */
    uint8_t sinit_min_version;
    uint16_t data_revocation_counters[LCP_MAX_LISTS];
    uint32_t policy_control;
    uint8_t max_sinit_min_ver;       /* PO only */
    uint8_t max_biosac_min_ver;      /* PO only, 0 */
    uint16_t lcp_hash_alg_mask;
    uint32_t lcp_sign_alg_mask;
    uint16_t aux_hash_alg_mask;
    uint16_t reserved2;
    uint8_t policy_hash[LCP_MAX_DIGEST];  /* hash_alg's digest size of it is used */
} __attribute__((packed));
_Static_assert(offsetof(struct lcp_policy_t2, hash_alg) == 2, "hash_alg");
_Static_assert(offsetof(struct lcp_policy_t2, policy_type) == 4, "policy_type");
_Static_assert(offsetof(struct lcp_policy_t2, sinit_min_version) == 5, "sinit_min_version");
_Static_assert(offsetof(struct lcp_policy_t2, data_revocation_counters) == 6, "revocation");
_Static_assert(offsetof(struct lcp_policy_t2, policy_control) == 22, "policy_control");
_Static_assert(offsetof(struct lcp_policy_t2, max_sinit_min_ver) == 26, "max_sinit_min_ver");
_Static_assert(offsetof(struct lcp_policy_t2, lcp_hash_alg_mask) == 28, "lcp_hash_alg_mask");
_Static_assert(offsetof(struct lcp_policy_t2, lcp_sign_alg_mask) == 30, "lcp_sign_alg_mask");
_Static_assert(offsetof(struct lcp_policy_t2, aux_hash_alg_mask) == 34, "aux_hash_alg_mask");
_Static_assert(offsetof(struct lcp_policy_t2, policy_hash) == 38, "policy_hash");
_Static_assert(sizeof(struct lcp_policy_t2) == 102, "lcp_policy_t2");
#define LCP_POLICY_T2_SIZE(digest_size) (38u + (digest_size))  /* 70 with SHA-256 */

/* a policy element: {size (incl. this header), type, policy_elt_control, data} */
struct lcp_policy_element {
    uint32_t size;
    uint32_t type;
    uint32_t policy_elt_control;
} __attribute__((packed));
_Static_assert(sizeof(struct lcp_policy_element) == 12, "lcp_policy_element_t");

#define LCP_POLELT_TYPE_MLE 0x00u         /* legacy (TPM 1.2) */
#define LCP_POLELT_TYPE_PCONF 0x01u
#define LCP_POLELT_TYPE_CUSTOM 0x03u
#define LCP_POLELT_TYPE_MLE2 0x10u
#define LCP_POLELT_TYPE_PCONF2 0x11u
#define LCP_POLELT_TYPE_SBIOS2 0x12u
#define LCP_POLELT_TYPE_CUSTOM2 0x13u
#define LCP_POLELT_TYPE_STM2 0x14u

/* the MLE element's data (lcp_mle_element_t2), then num_hashes digests of hash_alg's size */
struct lcp_mle_element_t2 {
    uint8_t sinit_min_version;
    uint8_t reserved;
    uint16_t hash_alg;
    uint16_t num_hashes;
} __attribute__((packed));
_Static_assert(sizeof(struct lcp_mle_element_t2) == 6, "lcp_mle_element_t2");

/* policy lists */
#define LCP_TPM20_POLICY_LIST_VERSION 0x0200u       /* list 2.0 */
#define LCP_TPM20_POLICY_LIST2_VERSION_201 0x0201u  /* list 2.0, minor 1 */
#define LCP_TPM20_POLICY_LIST2_1_VERSION_300 0x0300u /* list 2.1 */

/* lcp_policy_list_t2: elements follow; if sig_alg != TPM_ALG_NULL a signature follows them */
struct lcp_policy_list_t2 {
    uint16_t version;                /* 0x0200 / 0x0201 */
    uint16_t sig_alg;
    uint32_t policy_elements_size;
} __attribute__((packed));
_Static_assert(sizeof(struct lcp_policy_list_t2) == 8, "lcp_policy_list_t2");

/* lcp_policy_list_t2_1: elements follow; a signature at KeySignatureOffset if it is != 0 */
struct lcp_policy_list_t2_1 {
    uint16_t version;                /* 0x0300 */
    uint16_t key_signature_offset;
    uint32_t policy_elements_size;
} __attribute__((packed));
_Static_assert(sizeof(struct lcp_policy_list_t2_1) == 8, "lcp_policy_list_t2_1");

/* the policy data file: the bytes policy_hash is the digest of, with num_lists lists */
#define LCP_POLICY_DATA_FILE_SIGNATURE "Intel(R) TXT LCP_POLICY_DATA\0\0\0"  /* 32 with NUL */
#define LCP_FILE_SIG_LENGTH 32u
struct lcp_policy_data_t2 {
    char file_signature[LCP_FILE_SIG_LENGTH];
    uint8_t reserved[3];
    uint8_t num_lists;
} __attribute__((packed));
_Static_assert(sizeof(struct lcp_policy_data_t2) == 36, "lcp_policy_data_t2");
_Static_assert(sizeof(LCP_POLICY_DATA_FILE_SIGNATURE) == LCP_FILE_SIG_LENGTH, "file signature");

#endif
