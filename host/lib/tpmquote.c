/* SPDX-License-Identifier: MIT */
#include "tpmquote.h"
#include "lib/bytes.h"
#include "util.h"

#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <stdio.h>
#include <string.h>
#include <tss2/tss2_mu.h>

int pcrsel_check(const TPML_PCR_SELECTION *s, char *err, size_t errsz)
{
    if (s->count > TPM2_NUM_PCR_BANKS)
        return errorf(err, errsz, "%u banks in a PCR selection (at most %d)", s->count,
                      TPM2_NUM_PCR_BANKS);
    for (unsigned i = 0; i < s->count; i++) {
        const TPMS_PCR_SELECTION *p = &s->pcrSelections[i];

        if (!tpm_hash_name(p->hash))
            return errorf(err, errsz, "PCR selection %u: hash 0x%04x is not SHA-1/256/384/512",
                          i, p->hash);
        for (unsigned j = 0; j < i; j++)
            if (s->pcrSelections[j].hash == p->hash)
                return errorf(err, errsz, "PCR selection: bank %s named twice",
                              tpm_hash_name(p->hash));
        if (p->sizeofSelect < 3 || p->sizeofSelect > TPM2_PCR_SELECT_MAX)
            return errorf(err, errsz, "PCR selection of %s: sizeofSelect %u (3 or 4)",
                          tpm_hash_name(p->hash), p->sizeofSelect);
        if (p->sizeofSelect == 4 && p->pcrSelect[3])
            return errorf(err, errsz, "PCR selection of %s names a PCR above %d",
                          tpm_hash_name(p->hash), PCRSEL_MAX_PCR);
    }
    return 0;
}

int pcrsel_parse(const uint8_t *buf, size_t len, TPML_PCR_SELECTION *s, char *err,
                 size_t errsz)
{
    size_t off = 0;
    TSS2_RC rc;

    memset(s, 0, sizeof(*s));
    rc = Tss2_MU_TPML_PCR_SELECTION_Unmarshal(buf, len, &off, s);
    if (rc != TSS2_RC_SUCCESS)
        return errorf(err, errsz, "not a TPML_PCR_SELECTION (libtss2-mu 0x%x)", rc);
    if (off != len)
        return errorf(err, errsz, "%zu bytes after the TPML_PCR_SELECTION", len - off);
    return pcrsel_check(s, err, errsz);
}

bool pcrsel_has(const TPML_PCR_SELECTION *s, uint16_t alg, unsigned pcr)
{
    for (unsigned i = 0; i < s->count && i < TPM2_NUM_PCR_BANKS; i++) {
        const TPMS_PCR_SELECTION *p = &s->pcrSelections[i];

        if (p->hash == alg && pcr / 8 < p->sizeofSelect && pcr / 8 < TPM2_PCR_SELECT_MAX &&
            (p->pcrSelect[pcr / 8] & (1u << (pcr % 8))))
            return true;
    }
    return false;
}

size_t pcrsel_values_size(const TPML_PCR_SELECTION *s, unsigned *count)
{
    size_t size = 0;

    *count = 0;
    for (unsigned i = 0; i < s->count && i < TPM2_NUM_PCR_BANKS; i++) {
        const TPMS_PCR_SELECTION *p = &s->pcrSelections[i];

        for (unsigned pcr = 0; pcr < 8u * p->sizeofSelect && pcr < 8 * TPM2_PCR_SELECT_MAX; pcr++)
            if (p->pcrSelect[pcr / 8] & (1u << (pcr % 8))) {
                size += tpm_hash_size(p->hash);
                (*count)++;
            }
    }
    return size;
}

static void append(char *out, size_t outsz, const char *fmt, const char *s, unsigned n)
{
    size_t used = strlen(out);

    if (used < outsz)
        snprintf(out + used, outsz - used, fmt, s, n);
}

void pcrsel_banks_str(const TPML_PCR_SELECTION *s, char *out, size_t outsz)
{
    if (outsz)
        out[0] = 0;
    for (unsigned i = 0; i < s->count && i < TPM2_NUM_PCR_BANKS; i++) {
        const TPMS_PCR_SELECTION *p = &s->pcrSelections[i];
        bool any = false;
        const char *name = tpm_hash_name(p->hash);
        char hex[16];

        for (unsigned b = 0; b < p->sizeofSelect && b < TPM2_PCR_SELECT_MAX; b++)
            any = any || p->pcrSelect[b];
        if (!any)
            continue;
        snprintf(hex, sizeof(hex), "0x%04x", p->hash);
        append(out, outsz, out[0] ? ",%s" : "%s", name ? name : hex, 0);
    }
}

void pcrsel_make(TPML_PCR_SELECTION *s, const uint16_t *algs, unsigned nalgs, uint32_t pcrs)
{
    memset(s, 0, sizeof(*s));
    for (unsigned i = 0; i < nalgs && i < TPM2_NUM_PCR_BANKS; i++) {
        TPMS_PCR_SELECTION *p = &s->pcrSelections[s->count++];

        p->hash = algs[i];
        p->sizeofSelect = 3;
        p->pcrSelect[0] = (uint8_t)pcrs;
        p->pcrSelect[1] = (uint8_t)(pcrs >> 8);
        p->pcrSelect[2] = (uint8_t)(pcrs >> 16);
    }
}

int pcrsel_parse_banks(const char *text, uint16_t *algs, unsigned *n, char *err, size_t errsz)
{
    const char *p = text;

    *n = 0;
    for (;;) {
        size_t len = strcspn(p, ",");
        const struct tpm_hash_alg *a = tpm_hash_by_name(p, len);

        if (!a)
            return errorf(err, errsz, "'%s': expected a comma list of sha1, sha256, sha384, "
                          "sha512", text);
        for (unsigned j = 0; j < *n; j++)
            if (algs[j] == a->id)
                return errorf(err, errsz, "'%s': %s named twice", text, a->name);
        algs[(*n)++] = a->id;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

void pcrsel_tools_str(const TPML_PCR_SELECTION *s, char *out, size_t outsz)
{
    if (outsz)
        out[0] = 0;
    for (unsigned i = 0; i < s->count && i < TPM2_NUM_PCR_BANKS; i++) {
        const TPMS_PCR_SELECTION *p = &s->pcrSelections[i];
        bool first = true;

        append(out, outsz, i ? "+%s:" : "%s:", tpm_hash_name(p->hash), 0);
        for (unsigned pcr = 0; pcr < 8u * p->sizeofSelect && pcr < 8 * TPM2_PCR_SELECT_MAX; pcr++)
            if (p->pcrSelect[pcr / 8] & (1u << (pcr % 8))) {
                append(out, outsz, first ? "%s%u" : "%s,%u", "", pcr);
                first = false;
            }
    }
}

int quote_parse(const uint8_t *buf, size_t len, TPMS_ATTEST *q, char *err, size_t errsz)
{
    size_t off = 0;
    TSS2_RC rc;

    memset(q, 0, sizeof(*q));
    rc = Tss2_MU_TPMS_ATTEST_Unmarshal(buf, len, &off, q);
    if (rc != TSS2_RC_SUCCESS)
        return errorf(err, errsz, "not a TPMS_ATTEST (libtss2-mu 0x%x)", rc);
    if (off != len)
        return errorf(err, errsz, "%zu bytes after the TPMS_ATTEST", len - off);
    if (q->magic != TPM2_GENERATED_VALUE)
        return errorf(err, errsz, "magic 0x%08x, not TPM_GENERATED_VALUE (0xff544347): not "
                      "made by a TPM", q->magic);
    if (q->type != TPM2_ST_ATTEST_QUOTE)
        return errorf(err, errsz, "type 0x%04x, not TPM_ST_ATTEST_QUOTE (0x8018)", q->type);
    return pcrsel_check(&q->attested.quote.pcrSelect, err, errsz);
}

int sig_parse(const uint8_t *buf, size_t len, TPMT_SIGNATURE *sig, char *err, size_t errsz)
{
    size_t off = 0;
    TSS2_RC rc;

    memset(sig, 0, sizeof(*sig));
    rc = Tss2_MU_TPMT_SIGNATURE_Unmarshal(buf, len, &off, sig);
    if (rc != TSS2_RC_SUCCESS)
        return errorf(err, errsz, "not a TPMT_SIGNATURE (libtss2-mu 0x%x)", rc);
    if (off != len)
        return errorf(err, errsz, "%zu bytes after the TPMT_SIGNATURE", len - off);
    if (sig->sigAlg != TPM2_ALG_RSASSA && sig->sigAlg != TPM2_ALG_RSAPSS)
        return errorf(err, errsz, "signature scheme 0x%04x, not RSASSA or RSAPSS", sig->sigAlg);
    if (!tpm_hash_name(sig->signature.rsassa.hash))
        return errorf(err, errsz, "signature hash 0x%04x is not SHA-1/256/384/512",
                      sig->signature.rsassa.hash);
    return 0;
}

int public_parse(const uint8_t *buf, size_t len, TPM2B_PUBLIC *pub, char *err, size_t errsz)
{
    size_t off = 0, inner = 0;
    TPMT_PUBLIC t;
    TSS2_RC rc;

    memset(pub, 0, sizeof(*pub));
    rc = Tss2_MU_TPM2B_PUBLIC_Unmarshal(buf, len, &off, pub);
    if (rc != TSS2_RC_SUCCESS)
        return errorf(err, errsz, "not a TPM2B_PUBLIC (libtss2-mu 0x%x)", rc);
    if (off != len)
        return errorf(err, errsz, "%zu bytes after the TPM2B_PUBLIC", len - off);
    /* the size field must be the public area's own size */
    if (len < 2 || Tss2_MU_TPMT_PUBLIC_Unmarshal(buf + 2, len - 2, &inner, &t) != TSS2_RC_SUCCESS ||
        inner != pub->size || inner != len - 2)
        return errorf(err, errsz, "the TPM2B_PUBLIC's size %u is not its public area's",
                      pub->size);
    return 0;
}

int public_name(const TPMT_PUBLIC *pub, uint8_t *name, size_t *len)
{
    uint8_t buf[sizeof(TPMT_PUBLIC)];
    size_t off = 0;
    const char *hname = tpm_hash_name(pub->nameAlg);
    const EVP_MD *md = hname ? EVP_get_digestbyname(hname) : NULL;
    unsigned n = 0;

    if (!md || Tss2_MU_TPMT_PUBLIC_Marshal(pub, buf, sizeof(buf), &off) != TSS2_RC_SUCCESS)
        return -1;
    store_be16(name, pub->nameAlg);
    if (!EVP_Digest(buf, off, name + 2, &n, md, NULL))
        return -1;
    *len = 2 + n;
    return 0;
}

int ak_check(const TPMT_PUBLIC *pub, char *err, size_t errsz)
{
    static const struct { TPMA_OBJECT bit; const char *name; } want[] = {
        { TPMA_OBJECT_FIXEDTPM, "fixedTPM" },
        { TPMA_OBJECT_FIXEDPARENT, "fixedParent" },
        { TPMA_OBJECT_SENSITIVEDATAORIGIN, "sensitiveDataOrigin" },
        { TPMA_OBJECT_RESTRICTED, "restricted" },
        { TPMA_OBJECT_SIGN_ENCRYPT, "sign" },
    };

    if (pub->type != TPM2_ALG_RSA)
        return errorf(err, errsz, "key type 0x%04x, not RSA", pub->type);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!(pub->objectAttributes & want[i].bit))
            return errorf(err, errsz, "not %s (attributes 0x%08x): not an attestation key",
                          want[i].name, pub->objectAttributes);
    if (pub->objectAttributes & TPMA_OBJECT_DECRYPT)
        return errorf(err, errsz, "a decryption key too (attributes 0x%08x)",
                      pub->objectAttributes);
    if (pub->nameAlg != TPM2_ALG_SHA256 && pub->nameAlg != TPM2_ALG_SHA384 &&
        pub->nameAlg != TPM2_ALG_SHA512)
        return errorf(err, errsz, "name algorithm 0x%04x, not SHA-256/384/512", pub->nameAlg);
    if (pub->parameters.rsaDetail.keyBits < 2048 ||
        pub->unique.rsa.size != pub->parameters.rsaDetail.keyBits / 8)
        return errorf(err, errsz, "an RSA key of %u bits with a %u-byte modulus (2048 bits or "
                      "more)", pub->parameters.rsaDetail.keyBits, pub->unique.rsa.size);
    return 0;
}

EVP_PKEY *public_pkey(const TPMT_PUBLIC *pub, char *err, size_t errsz)
{
    OSSL_PARAM_BLD *bld = NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY *pkey = NULL;
    BIGNUM *n = NULL, *e = NULL;
    uint32_t exp = pub->parameters.rsaDetail.exponent ? pub->parameters.rsaDetail.exponent : 65537;

    if (pub->type != TPM2_ALG_RSA || pub->unique.rsa.size == 0) {
        errorf(err, errsz, "not an RSA key");
        return NULL;
    }
    n = BN_bin2bn(pub->unique.rsa.buffer, pub->unique.rsa.size, NULL);
    e = BN_new();
    bld = OSSL_PARAM_BLD_new();
    if (!n || !e || !bld || !BN_set_word(e, exp) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
        !(params = OSSL_PARAM_BLD_to_param(bld)) ||
        !(ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) ||
        EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0) {
        errorf(err, errsz, "OpenSSL cannot make an RSA key of it");
        pkey = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    BN_free(n);
    BN_free(e);
    return pkey;
}

int sig_verify(EVP_PKEY *pkey, const TPMT_SIGNATURE *sig, const uint8_t *msg, size_t len,
               char *err, size_t errsz)
{
    const char *hname = tpm_hash_name(sig->signature.rsassa.hash);
    const EVP_MD *md = hname ? EVP_get_digestbyname(hname) : NULL;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    int rc = -1;

    if (!md || !ctx || (sig->sigAlg != TPM2_ALG_RSASSA && sig->sigAlg != TPM2_ALG_RSAPSS)) {
        errorf(err, errsz, "unsupported signature (scheme 0x%04x, hash 0x%04x)", sig->sigAlg,
               sig->signature.rsassa.hash);
        goto out;
    }
    if (EVP_DigestVerifyInit(ctx, &pctx, md, NULL, pkey) <= 0 ||
        EVP_PKEY_CTX_set_rsa_padding(pctx, sig->sigAlg == TPM2_ALG_RSAPSS ? RSA_PKCS1_PSS_PADDING
                                                                         : RSA_PKCS1_PADDING) <= 0 ||
        (sig->sigAlg == TPM2_ALG_RSAPSS &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_AUTO) <= 0)) {
        errorf(err, errsz, "OpenSSL cannot set up the verification");
        goto out;
    }
    rc = EVP_DigestVerify(ctx, sig->signature.rsassa.sig.buffer, sig->signature.rsassa.sig.size,
                          msg, len) == 1 ? 1 : 0;
out:
    EVP_MD_CTX_free(ctx);
    return rc;
}

int pcr_digest(uint16_t alg, const uint8_t *values, size_t len, uint8_t *out, size_t *outlen)
{
    const char *hname = tpm_hash_name(alg);
    const EVP_MD *md = hname ? EVP_get_digestbyname(hname) : NULL;
    unsigned n = 0;

    if (!md || !EVP_Digest(values, len, out, &n, md, NULL))
        return -1;
    *outlen = n;
    return 0;
}
