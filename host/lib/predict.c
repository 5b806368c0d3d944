/* SPDX-License-Identifier: MIT */
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "predict.h"

static int digest(const EVP_MD *md, const void *a, size_t alen, const void *b, size_t blen,
                  uint8_t *out)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestInit_ex(ctx, md, NULL) && EVP_DigestUpdate(ctx, a, alen) &&
             (!blen || EVP_DigestUpdate(ctx, b, blen)) && EVP_DigestFinal_ex(ctx, out, NULL);
    EVP_MD_CTX_free(ctx);
    return ok ? 0 : -1;
}

static void print_hex(const char *what, unsigned pcr, const uint8_t *d, unsigned n)
{
    fprintf(stderr, "  PCR %2u += ", pcr);
    for (unsigned i = 0; i < n; i++)
        fprintf(stderr, "%02x", d[i]);
    fprintf(stderr, "  %s\n", what);
}

static int extend(const EVP_MD *md, struct pcr_bank *b, unsigned pcr, const uint8_t *d,
                  enum predict_what kind, unsigned module, const char *what, bool verbose)
{
    if (pcr >= PREDICT_NR_PCRS)
        return 0;
    if (verbose)
        print_hex(what, pcr, d, b->size);
    if (b->nr_events < PREDICT_MAX_EVENTS) {
        struct predict_event *e = &b->events[b->nr_events++];
        e->pcr = pcr;
        e->what = kind;
        e->module = module;
        memcpy(e->digest, d, b->size);
    }
    return digest(md, b->pcr[pcr], b->size, d, b->size, b->pcr[pcr]);
}

static int policy_digest(const EVP_MD *md, const struct tb_policy *pol, unsigned size,
                         uint8_t *out)
{
    uint8_t buf[4 + PREDICT_MAX_DIGEST];

    /* policy_control (little-endian) || H(policy), zeros if EXTEND_PCR17 is clear */
    memset(buf, 0, sizeof(buf));
    memcpy(buf, &pol->control, 4);
    if ((pol->control & TB_POLCTL_EXTEND_PCR17) &&
        digest(md, pol->bytes, pol->size, NULL, 0, buf + 4))
        return -1;
    return digest(md, buf, 4 + size, NULL, 0, out);
}

int predict_policy_digest(const struct tb_policy *p, const char *name, uint8_t *out,
                          unsigned *size)
{
    const EVP_MD *md = EVP_get_digestbyname(name);

    if (!md)
        return -1;
    *size = (unsigned)EVP_MD_get_size(md);
    return policy_digest(md, p, *size, out);
}

int predict_bank(const struct predict_input *in, struct pcr_bank *b, bool verbose)
{
    const EVP_MD *md = EVP_get_digestbyname(b->name);
    uint8_t d[PREDICT_MAX_DIGEST], d2[PREDICT_MAX_DIGEST];
    char what[96];

    if (!md)
        return -1;
    b->size = (unsigned)EVP_MD_get_size(md);
    b->nr_events = 0;
    /* after the dynamic launch: 17-22 zero, then 17 = H(0 || H(MLE)) (a TXT launch: the
     * SINIT's events in 17 and 18); the others as at reset */
    for (unsigned p = 0; p < PREDICT_NR_PCRS; p++)
        memset(b->pcr[p], p >= 17 && p <= 22 ? 0x00 : 0xff, b->size);
    if (in->txt) {
        for (unsigned i = 0; i < TXT_DRTM_NR_EVENTS; i++) {
            const struct txt_drtm_event *e = &in->txt->ev[i];
            snprintf(what, sizeof(what), "SINIT event 0x%x%s", e->type,
                     e->is_mle ? " (the MLE)" : "");
            if (digest(md, e->is_mle ? in->mle : e->data, e->is_mle ? in->mle_size : e->len,
                       NULL, 0, d) ||
                extend(md, b, e->pcr, d, PREDICT_TXT, i, what, verbose))
                return -1;
        }
    } else {
        if (digest(md, in->mle, in->mle_size, NULL, 0, d) ||
            extend(md, b, 17, d, PREDICT_MLE, 0, "MLE (dynamic launch)", verbose))
            return -1;
    }

    if (in->mle_bank && strcmp(in->mle_bank, b->name))
        return 0;
    const struct tb_policy *pol = in->policy;
    if (policy_digest(md, pol, b->size, d) ||
        extend(md, b, 17, d, PREDICT_POLICY, 0, "policy", verbose))
        return -1;
    if (in->map == PCR_MAP_DA && extend(md, b, 18, d, PREDICT_POLICY, 0, "policy", verbose))
        return -1;

    for (unsigned i = 0; i < in->nr_modules; i++) {
        const struct predict_module *m = &in->modules[i];
        /* H(H(cmdline) || H(image)) */
        if (digest(md, m->cmdline, strlen(m->cmdline), NULL, 0, d) ||
            digest(md, m->image, m->size, NULL, 0, d2) ||
            digest(md, d, b->size, d2, b->size, d))
            return -1;
        snprintf(what, sizeof(what), "module %u: %.70s", i, m->cmdline);
        if (i == 0 && extend(md, b, in->map == PCR_MAP_DA ? 17 : 18, d, PREDICT_MODULE, i, what,
                             verbose))
            return -1;
        const struct tb_policy_entry *e = tb_policy_find(pol, i);
        if (e && e->pcr != TB_POL_PCR_NONE &&
            extend(md, b, e->pcr, d, PREDICT_MODULE, i, what, verbose))
            return -1;
    }
    return 0;
}
