/* SPDX-License-Identifier: MIT */
/*
 * The launch control policy as our SINIT evaluates it (docs/txt-platform.md 3.4 step 6): the
 * policy from a TPM NV index (lcp_policy_t2, include/abi/lcp.h), the policy data file tboot
 * hands over through OsSinitData.lcp_po_base (its lists and elements, every size bounded by
 * the file), the data's hash against the policy's, and the verdict on an MLE: the MLE2
 * elements (0x10) of the lists must name its digest, and no element or policy may ask for a
 * newer SINIT than ours. Formats as tboot's lcp2_* tools write them: policy_hash is
 * H(H(list 1) || ... || H(list n)) in the policy's hash_alg, each unsigned list hashed whole.
 *
 * Not yet: signed lists (they need RSA verification: refused with their own reason, never
 * taken unchecked), the PS index and PO-over-PS element overrides (one policy at a time).
 */
#ifndef TXT_LCP_H
#define TXT_LCP_H

#include <stddef.h>
#include <stdint.h>

#include "abi/lcp.h"

/* Why a launch is refused: the ERRORCODE's LCP minor code (docs 3.4's example: an MLE not
 * allowed is minor 2). 0: allowed. */
enum lcp_result {
    LCP_OK = 0,
    LCP_BAD_POLICY = 1,              /* the NV policy is malformed or of an unknown version */
    LCP_MLE_NOT_ALLOWED = 2,         /* no MLE2 element names the MLE's digest */
    LCP_BAD_DATA = 3,                /* the policy data file is missing or malformed */
    LCP_DATA_HASH_MISMATCH = 4,      /* the data file is not the one the policy names */
    LCP_SINIT_TOO_OLD = 5,           /* sinit_min_version above our ACM's version */
    LCP_SIGNED_LIST = 6,             /* a signed list: not supported yet */
    LCP_NO_DIGEST = 7,               /* an MLE2 element in an algorithm the SINIT did not hash */
};

struct lcp_policy {
    uint16_t version;
    uint16_t hash_alg;
    uint8_t policy_type;             /* LCP_POLTYPE_ANY or LCP_POLTYPE_LIST */
    uint8_t sinit_min_version;
    uint32_t policy_control;
    uint32_t digest_size;
    uint8_t policy_hash[LCP_MAX_DIGEST];
};

/* The NV index's bytes (len: what NV_ReadPublic said it holds). */
enum lcp_result lcp_policy_parse(const uint8_t *nv, size_t len, struct lcp_policy *p,
                                 char *err, unsigned errlen);

/* A policy data file's lists, each with its elements walked and bounded. */
struct lcp_data {
    uint32_t nr_lists;
    struct {
        uint32_t off, size;          /* the whole list, from the file's first byte */
        uint32_t elements_off, elements_size;
    } list[LCP_MAX_LISTS];
};

enum lcp_result lcp_data_parse(const uint8_t *data, size_t len, struct lcp_data *d, char *err,
                               unsigned errlen);

/* The MLE's measurement in one algorithm (the SINIT has one per active PCR bank). */
struct lcp_digest {
    uint16_t alg;
    const uint8_t *digest;
};

/* The verdict on an MLE: ANY allows it; LIST needs the data (data/len, NULL if tboot gave
 * none) whose hash is the policy's, and then an MLE2 element naming one of `mle`'s digests if
 * the lists have MLE2 elements at all. acm_version: our ACM's (info table acm_ver). */
enum lcp_result lcp_evaluate(const struct lcp_policy *p, const uint8_t *data, size_t len,
                             const struct lcp_digest *mle, unsigned nr_mle, uint8_t acm_version,
                             char *err, unsigned errlen);

#endif
