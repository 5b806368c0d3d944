/* SPDX-License-Identifier: MIT */
#include "txtexpect.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "txt/acm.h"
#include "txt/lcp.h"

static int acm_digest(const uint8_t *acm, uint32_t size, uint8_t out[TXT_DRTM_ACM_DIGEST_SIZE])
{
    struct acm_range r[ACM_NR_SIGNED_RANGES];
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);

    acm_signed_ranges(size, r);
    for (unsigned i = 0; ok && i < ACM_NR_SIGNED_RANGES; i++)
        ok = EVP_DigestUpdate(ctx, acm + r[i].off, r[i].len);
    ok = ok && EVP_DigestFinal_ex(ctx, out, NULL);
    EVP_MD_CTX_free(ctx);
    return ok ? 0 : -1;
}

int txt_expect_load(const char *sinit, uint32_t os_sinit_caps, struct txt_expect *t, char *err,
                    size_t errsz)
{
    struct acm_info a;
    char why[200];

    memset(t, 0, sizeof(*t));
    t->acm = expect_slurp(sinit, &t->acm_size);
    if (!t->acm) {
        snprintf(err, errsz, "cannot read %s: %s", sinit, strerror(errno));
        return -1;
    }
    if (acm_parse(t->acm, t->acm_size, &a, why, sizeof(why))) {
        snprintf(err, errsz, "%s: not a SINIT ACM tboot would take: %s", sinit, why);
        txt_expect_free(t);
        return -1;
    }
    if (acm_digest(t->acm, a.size, t->in.acm_digest)) {
        snprintf(err, errsz, "%s: SHA-256 failed", sinit);
        txt_expect_free(t);
        return -1;
    }
    t->in.senter_edx = 0;
    t->in.os_sinit_caps = os_sinit_caps;
    if (!EVP_Digest(t->acm + offsetof(struct txt_acm_hdr, rsa2048_pubkey),
                    sizeof(a.hdr.rsa2048_pubkey), t->in.pubkey_hash, NULL, EVP_sha256(), NULL)) {
        snprintf(err, errsz, "%s: SHA-256 failed", sinit);
        txt_expect_free(t);
        return -1;
    }
    txt_drtm_events(&t->in, &t->events);
    return 0;
}

int txt_expect_set_policy(struct txt_expect *t, const char *path, char *err, size_t errsz)
{
    struct lcp_policy p;
    char why[200];

    free(t->policy);
    t->policy = expect_slurp(path, &t->policy_size);
    if (!t->policy) {
        snprintf(err, errsz, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    if (lcp_policy_parse(t->policy, t->policy_size, &p, why, sizeof(why)) != LCP_OK) {
        snprintf(err, errsz, "%s: not a launch control policy the SINIT takes: %s", path, why);
        return -1;
    }
    t->in.lcp_policy_control = p.policy_control;
    t->in.po_policy = t->policy;
    t->in.po_policy_len = (uint32_t)t->policy_size;
    txt_drtm_events(&t->in, &t->events);
    return 0;
}

void txt_expect_free(struct txt_expect *t)
{
    free(t->acm);
    free(t->policy);
    memset(t, 0, sizeof(*t));
}
