/* SPDX-License-Identifier: MIT */
/*
 * src/txt/lcp.c on arbitrary launch control policies and policy data files (both come from
 * the guest's side: the NV index anyone with owner auth writes, the file tboot copies into
 * the heap): every verdict has a reason, an accepted data file's lists lie inside it back to
 * back, and a LIST policy allows nothing whose data does not parse.
 *
 * Input: byte 0 even: u16 policy length, the policy's bytes, then the data file's. Byte 0
 * odd: a policy and data as lcp2_crtpol writes them (one list, one SHA-256 MLE element naming
 * MLE A), patched by the remaining bytes as (u16 offset, u8 value) pairs in the data; with
 * bit 1 set the policy's hash is then made to match the patched data. Unpatched, MLE A is
 * allowed and MLE B is not.
 */
#include "fuzz_common.h"

#include "abi/tpm_hash.h"
#include "crypto/hash.h"
#include "lib/bytes.h"
#include "txt/lcp.h"

static const uint8_t mle_a[32] = { 0xa0, 0xa1, 0xa2, 0xa3 };
static const uint8_t mle_b[32] = { 0xb0 };

static void check_data(const uint8_t *data, size_t len)
{
    struct lcp_data d;
    char err[160];
    memset(err, 0x55, sizeof(err));
    enum lcp_result r = lcp_data_parse(data, len, &d, err, sizeof(err));
    check_err(err, sizeof(err), r);
    if (r)
        return;
    FUZZ_ASSERT(d.nr_lists >= 1 && d.nr_lists <= LCP_MAX_LISTS, "%u lists", d.nr_lists);
    uint64_t at = sizeof(struct lcp_policy_data_t2);
    for (unsigned i = 0; i < d.nr_lists; i++) {
        FUZZ_ASSERT(d.list[i].off == at, "list %u not after the one before", i);
        FUZZ_ASSERT(d.list[i].elements_off == at + 8 &&
                    d.list[i].elements_size + 8 == d.list[i].size, "list %u elements", i);
        at += d.list[i].size;
    }
    FUZZ_ASSERT(at == len, "lists end at %llu of %zu", (unsigned long long)at, len);
}

static enum lcp_result evaluate(const uint8_t *pol, size_t plen, const uint8_t *data, size_t len,
                                const uint8_t *mle)
{
    struct lcp_policy p;
    struct lcp_digest d = { TPM_ALG_SHA256, mle };
    char err[160];
    memset(err, 0x55, sizeof(err));
    enum lcp_result r = lcp_policy_parse(pol, plen, &p, err, sizeof(err));
    check_err(err, sizeof(err), r);
    if (r) {
        FUZZ_ASSERT(r == LCP_BAD_POLICY, "policy refused with %d", r);
        return r;
    }
    FUZZ_ASSERT(p.digest_size == tpm_hash_size(p.hash_alg) && plen >= 38 + p.digest_size,
                "policy accepted with a hash it does not hold");
    memset(err, 0x55, sizeof(err));
    r = lcp_evaluate(&p, data, len, &d, 1, 1, err, sizeof(err));
    check_err(err, sizeof(err), r);
    FUZZ_ASSERT(r <= LCP_NO_DIGEST, "verdict %d", r);
    if (r == LCP_OK && p.policy_type == LCP_POLTYPE_LIST) {
        struct lcp_data dd;
        FUZZ_ASSERT(lcp_data_parse(data, len, &dd, err, sizeof(err)) == LCP_OK,
                    "a LIST policy allowed a launch on data that does not parse");
    }
    return r;
}

/* one list (version 2.0, unsigned) with one MLE2 element naming mle_a, as lcp2_crtpol lays it */
#define DATA_LEN (36u + 8u + 12u + 6u + 32u)
static void build(uint8_t pol[70], uint8_t data[DATA_LEN])
{
    memset(pol, 0, 70);
    memset(data, 0, DATA_LEN);
    memcpy(data, LCP_POLICY_DATA_FILE_SIGNATURE, LCP_FILE_SIG_LENGTH);
    data[35] = 1;
    store_le16(data + 36, LCP_TPM20_POLICY_LIST_VERSION);
    store_le16(data + 38, LCP_TPM_ALG_NULL);
    store_le32(data + 40, 12 + 6 + 32);
    store_le32(data + 44, 12 + 6 + 32);
    store_le32(data + 48, LCP_POLELT_TYPE_MLE2);
    store_le16(data + 58, TPM_ALG_SHA256);
    store_le16(data + 60, 1);
    memcpy(data + 62, mle_a, 32);
    store_le16(pol, LCP_VER_3_0);
    store_le16(pol + 2, TPM_ALG_SHA256);
    pol[4] = LCP_POLTYPE_LIST;
    pol[26] = 0xff;
}

static void policy_hash(uint8_t pol[70], const uint8_t *data, size_t len)
{
    uint8_t h[32];
    hash_buffer(TPM_ALG_SHA256, data + 36, len - 36, h);
    hash_buffer(TPM_ALG_SHA256, h, 32, pol + 38);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
    if (n < 1)
        return 0;
    if (!(in[0] & 1)) {
        if (n < 3)
            return 0;
        size_t plen = load_le16(in + 1);
        if (plen > n - 3)
            plen = n - 3;
        uint8_t *pol = malloc(plen ? plen : 1), *data = malloc(n - 3 - plen + 1);
        memcpy(pol, in + 3, plen);
        memcpy(data, in + 3 + plen, n - 3 - plen);
        check_data(data, n - 3 - plen);
        evaluate(pol, plen, data, n - 3 - plen, mle_a);
        free(pol);
        free(data);
        return 0;
    }
    uint8_t pol[70], *data = malloc(DATA_LEN);
    build(pol, data);
    policy_hash(pol, data, DATA_LEN);
    bool patched = false;
    for (size_t i = 1; i + 3 <= n; i += 3) {
        uint16_t off = load_le16(in + i);
        if (off < DATA_LEN) {
            data[off] = in[i + 2];
            patched = true;
        }
    }
    if (in[0] & 2)
        policy_hash(pol, data, DATA_LEN);
    check_data(data, DATA_LEN);
    enum lcp_result a = evaluate(pol, sizeof(pol), data, DATA_LEN, mle_a);
    enum lcp_result b = evaluate(pol, sizeof(pol), data, DATA_LEN, mle_b);
    FUZZ_ASSERT(patched || (a == LCP_OK && b == LCP_MLE_NOT_ALLOWED),
                "the built policy gave %d for MLE A, %d for MLE B", a, b);
    free(data);
    return 0;
}
