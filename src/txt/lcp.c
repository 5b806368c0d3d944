/* SPDX-License-Identifier: MIT */
#include "txt/lcp.h"

#include "abi/tpm_hash.h"
#include "crypto/hash.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"

static enum lcp_result fail(enum lcp_result r, char *err, unsigned errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static enum lcp_result fail(enum lcp_result r, char *err, unsigned errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fmt_vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return r;
}

static bool policy_alg(uint16_t alg)
{
    return alg == TPM_ALG_SHA1 || alg == TPM_ALG_SHA256 || alg == TPM_ALG_SHA384 ||
           alg == TPM_ALG_SHA512;
}

enum lcp_result lcp_policy_parse(const uint8_t *nv, size_t len, struct lcp_policy *p,
                                 char *err, unsigned errlen)
{
    memset(p, 0, sizeof(*p));
    if (len < LCP_POLICY_T2_SIZE(0))
        return fail(LCP_BAD_POLICY, err, errlen, "policy of %zu bytes, under the %u of its header",
                    len, LCP_POLICY_T2_SIZE(0));
    p->version = load_le16(nv + offsetof(struct lcp_policy_t2, version));
    p->hash_alg = load_le16(nv + offsetof(struct lcp_policy_t2, hash_alg));
    p->policy_type = nv[offsetof(struct lcp_policy_t2, policy_type)];
    p->sinit_min_version = nv[offsetof(struct lcp_policy_t2, sinit_min_version)];
    p->policy_control = load_le32(nv + offsetof(struct lcp_policy_t2, policy_control));
    if (p->version < LCP_VER_3_0 || p->version > LCP_VER_3_2)
        return fail(LCP_BAD_POLICY, err, errlen, "policy version 0x%04x, not 3.0-3.2",
                    p->version);
    if (!policy_alg(p->hash_alg))
        return fail(LCP_BAD_POLICY, err, errlen, "policy hash algorithm 0x%04x unknown",
                    p->hash_alg);
    p->digest_size = tpm_hash_size(p->hash_alg);
    if (len < LCP_POLICY_T2_SIZE(p->digest_size))
        return fail(LCP_BAD_POLICY, err, errlen, "policy of %zu bytes, under the %u its hash "
                    "needs", len, LCP_POLICY_T2_SIZE(p->digest_size));
    if (p->policy_type != LCP_POLTYPE_ANY && p->policy_type != LCP_POLTYPE_LIST)
        return fail(LCP_BAD_POLICY, err, errlen, "policy type %u, neither LIST (0) nor ANY (1)",
                    p->policy_type);
    memcpy(p->policy_hash, nv + offsetof(struct lcp_policy_t2, policy_hash), p->digest_size);
    return LCP_OK;
}

/* One list at `off`: its header, then elements that fill elements_size exactly. */
static enum lcp_result parse_list(const uint8_t *data, size_t len, uint32_t off, unsigned i,
                                  struct lcp_data *d, char *err, unsigned errlen)
{
    if (len - off < sizeof(struct lcp_policy_list_t2))
        return fail(LCP_BAD_DATA, err, errlen, "list %u: %zu bytes left, under a list header",
                    i, len - off);
    uint16_t version = load_le16(data + off);
    uint16_t sig = load_le16(data + off + 2);    /* sig_alg, or list 2.1's key_signature_offset */
    uint32_t esize = load_le32(data + off + 4);
    if (version == LCP_TPM20_POLICY_LIST_VERSION || version == LCP_TPM20_POLICY_LIST2_VERSION_201) {
        if (sig != LCP_TPM_ALG_NULL)
            return fail(LCP_SIGNED_LIST, err, errlen, "list %u is signed (sig_alg 0x%04x): "
                        "signed lists are not supported yet", i, sig);
    } else if (version == LCP_TPM20_POLICY_LIST2_1_VERSION_300) {
        if (sig != 0)
            return fail(LCP_SIGNED_LIST, err, errlen, "list %u is signed (key signature at "
                        "%u): signed lists are not supported yet", i, sig);
    } else {
        return fail(LCP_BAD_DATA, err, errlen, "list %u: version 0x%04x, not 0x0200, 0x0201 "
                    "or 0x0300", i, version);
    }
    uint32_t eoff = off + (uint32_t)sizeof(struct lcp_policy_list_t2);
    if (esize > len - eoff)
        return fail(LCP_BAD_DATA, err, errlen, "list %u: %u bytes of elements, %zu left in the "
                    "file", i, esize, len - eoff);
    for (uint32_t at = 0; at < esize;) {
        if (esize - at < sizeof(struct lcp_policy_element))
            return fail(LCP_BAD_DATA, err, errlen, "list %u: %u bytes at element offset %u, "
                        "under an element header", i, esize - at, at);
        uint32_t size = load_le32(data + eoff + at);
        if (size < sizeof(struct lcp_policy_element) || size > esize - at)
            return fail(LCP_BAD_DATA, err, errlen, "list %u: element at offset %u of size %u, "
                        "outside the list's %u bytes", i, at, size, esize);
        at += size;
    }
    d->list[i].off = off;
    d->list[i].size = (uint32_t)sizeof(struct lcp_policy_list_t2) + esize;
    d->list[i].elements_off = eoff;
    d->list[i].elements_size = esize;
    return LCP_OK;
}

enum lcp_result lcp_data_parse(const uint8_t *data, size_t len, struct lcp_data *d, char *err,
                               unsigned errlen)
{
    memset(d, 0, sizeof(*d));
    if (!data || len < sizeof(struct lcp_policy_data_t2))
        return fail(LCP_BAD_DATA, err, errlen, "policy data of %zu bytes, under its %zu-byte "
                    "header", data ? len : 0, sizeof(struct lcp_policy_data_t2));
    if (len > UINT32_MAX)
        return fail(LCP_BAD_DATA, err, errlen, "policy data of %zu bytes", len);
    if (memcmp(data, LCP_POLICY_DATA_FILE_SIGNATURE, LCP_FILE_SIG_LENGTH))
        return fail(LCP_BAD_DATA, err, errlen, "no \"Intel(R) TXT LCP_POLICY_DATA\" signature");
    d->nr_lists = data[offsetof(struct lcp_policy_data_t2, num_lists)];
    if (d->nr_lists == 0 || d->nr_lists > LCP_MAX_LISTS)
        return fail(LCP_BAD_DATA, err, errlen, "%u lists, not 1-%u", d->nr_lists, LCP_MAX_LISTS);
    uint32_t off = sizeof(struct lcp_policy_data_t2);
    for (unsigned i = 0; i < d->nr_lists; i++) {
        enum lcp_result r = parse_list(data, len, off, i, d, err, errlen);
        if (r)
            return r;
        off += d->list[i].size;
    }
    if (off != len)
        return fail(LCP_BAD_DATA, err, errlen, "%zu bytes after the last list", len - off);
    return LCP_OK;
}

/* H(H(list 1) || ... || H(list n)) in alg */
static void data_hash(const uint8_t *data, const struct lcp_data *d, uint16_t alg, uint8_t *out)
{
    uint8_t lists[LCP_MAX_LISTS * LCP_MAX_DIGEST];
    uint32_t n = tpm_hash_size(alg);
    for (unsigned i = 0; i < d->nr_lists; i++)
        hash_buffer(alg, data + d->list[i].off, d->list[i].size, lists + i * n);
    hash_buffer(alg, lists, d->nr_lists * n, out);
}

/* Looks at one MLE2 element: LCP_OK if it names the MLE, LCP_MLE_NOT_ALLOWED if not. */
static enum lcp_result mle_element(const uint8_t *e, uint32_t size,
                                   const struct lcp_digest *mle, unsigned nr_mle,
                                   uint8_t acm_version, char *err, unsigned errlen)
{
    const uint8_t *body = e + sizeof(struct lcp_policy_element);
    uint32_t blen = size - (uint32_t)sizeof(struct lcp_policy_element);
    if (blen < sizeof(struct lcp_mle_element_t2))
        return fail(LCP_BAD_DATA, err, errlen, "MLE element of %u bytes", size);
    uint8_t min = body[offsetof(struct lcp_mle_element_t2, sinit_min_version)];
    uint16_t alg = load_le16(body + offsetof(struct lcp_mle_element_t2, hash_alg));
    uint16_t nr = load_le16(body + offsetof(struct lcp_mle_element_t2, num_hashes));
    uint32_t dsize = tpm_hash_size(alg);
    if (!dsize || !policy_alg(alg))
        return fail(LCP_BAD_DATA, err, errlen, "MLE element hash algorithm 0x%04x unknown", alg);
    if ((uint64_t)nr * dsize != blen - sizeof(struct lcp_mle_element_t2))
        return fail(LCP_BAD_DATA, err, errlen, "MLE element with %u hashes in %u bytes", nr,
                    blen);
    if (min > acm_version)
        return fail(LCP_SINIT_TOO_OLD, err, errlen, "an MLE element asks for SINIT version %u, "
                    "ours is %u", min, acm_version);
    const uint8_t *digest = NULL;
    for (unsigned i = 0; i < nr_mle; i++)
        if (mle[i].alg == alg)
            digest = mle[i].digest;
    if (!digest)
        return fail(LCP_NO_DIGEST, err, errlen, "an MLE element in hash algorithm 0x%04x, "
                    "which the launch did not measure", alg);
    for (uint16_t i = 0; i < nr; i++)
        if (!memcmp(body + sizeof(struct lcp_mle_element_t2) + (size_t)i * dsize, digest, dsize))
            return LCP_OK;
    return LCP_MLE_NOT_ALLOWED;
}

enum lcp_result lcp_evaluate(const struct lcp_policy *p, const uint8_t *data, size_t len,
                             const struct lcp_digest *mle, unsigned nr_mle, uint8_t acm_version,
                             char *err, unsigned errlen)
{
    struct lcp_data d;
    uint8_t h[LCP_MAX_DIGEST];
    enum lcp_result r;
    bool has_mle_elements = false;

    if (p->sinit_min_version > acm_version)
        return fail(LCP_SINIT_TOO_OLD, err, errlen, "the policy asks for SINIT version %u, ours "
                    "is %u", p->sinit_min_version, acm_version);
    if (p->policy_type == LCP_POLTYPE_ANY)
        return LCP_OK;
    r = lcp_data_parse(data, len, &d, err, errlen);
    if (r)
        return r;
    data_hash(data, &d, p->hash_alg, h);
    if (memcmp(h, p->policy_hash, p->digest_size))
        return fail(LCP_DATA_HASH_MISMATCH, err, errlen, "the policy data's hash is not the "
                    "policy's policy_hash");
    for (unsigned i = 0; i < d.nr_lists; i++) {
        const uint8_t *e = data + d.list[i].elements_off;
        for (uint32_t at = 0; at < d.list[i].elements_size;) {
            uint32_t size = load_le32(e + at);
            if (load_le32(e + at + 4) == LCP_POLELT_TYPE_MLE2) {
                has_mle_elements = true;
                r = mle_element(e + at, size, mle, nr_mle, acm_version, err, errlen);
                if (r == LCP_OK)
                    return LCP_OK;
                if (r != LCP_MLE_NOT_ALLOWED)
                    return r;
            }
            at += size;
        }
    }
    if (has_mle_elements)
        return fail(LCP_MLE_NOT_ALLOWED, err, errlen, "no MLE element of the policy names this "
                    "MLE");
    return LCP_OK;
}
