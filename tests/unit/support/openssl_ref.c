/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "openssl_ref.h"

static const EVP_MD *md(uint16_t alg)
{
    switch (alg) {
    case 0x0004: return EVP_sha1();
    case 0x000b: return EVP_sha256();
    case 0x000c: return EVP_sha384();
    case 0x000d: return EVP_sha512();
    default: return NULL;
    }
}

size_t ref_digest_size(uint16_t alg)
{
    const EVP_MD *m = md(alg);
    return m ? (size_t)EVP_MD_get_size(m) : 0;
}

void ref_hash2(uint16_t alg, const void *a, size_t alen, const void *b, size_t blen,
               uint8_t *out)
{
    const EVP_MD *m = md(alg);
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!m || !c || !EVP_DigestInit_ex(c, m, NULL) || !EVP_DigestUpdate(c, a, alen) ||
        !EVP_DigestUpdate(c, b, blen) || !EVP_DigestFinal_ex(c, out, NULL)) {
        fprintf(stderr, "openssl_ref: hashing with algorithm 0x%04x failed\n", alg);
        abort();
    }
    EVP_MD_CTX_free(c);
}

void ref_hash(uint16_t alg, const void *data, size_t len, uint8_t *out)
{
    ref_hash2(alg, data, len, "", 0, out);
}

void ref_extend(uint16_t alg, uint8_t *pcr, const uint8_t *digest)
{
    uint8_t buf[128];
    size_t n = ref_digest_size(alg);
    memcpy(buf, pcr, n);
    memcpy(buf + n, digest, n);
    ref_hash(alg, buf, 2 * n, pcr);
}
