/* SPDX-License-Identifier: MIT */
#include "acmkey.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include "abi/txt.h"

static void ssl_err(char *err, size_t errsz, const char *what)
{
    unsigned long e = ERR_get_error();

    snprintf(err, errsz, "%s: %s", what, e ? ERR_error_string(e, NULL) : "OpenSSL error");
}

EVP_PKEY *acmkey_load(const char *path, char *err, size_t errsz)
{
    FILE *f = fopen(path, "r");
    EVP_PKEY *k;
    BIGNUM *e = NULL;

    if (!f) {
        snprintf(err, errsz, "%s: %s", path, strerror(errno));
        return NULL;
    }
    k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    if (!k) {
        rewind(f);
        ERR_clear_error();
        k = PEM_read_PUBKEY(f, NULL, NULL, NULL);
    }
    fclose(f);
    if (!k) {
        ssl_err(err, errsz, path);
        return NULL;
    }
    if (EVP_PKEY_get_base_id(k) != EVP_PKEY_RSA || EVP_PKEY_get_bits(k) != 2048) {
        snprintf(err, errsz, "%s: not an RSA-2048 key", path);
        goto bad;
    }
    if (!EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_RSA_E, &e)) {
        ssl_err(err, errsz, path);
        goto bad;
    }
    if (!BN_is_word(e, ACM_PUB_EXP)) {
        snprintf(err, errsz, "%s: the exponent is not 65537", path);
        BN_free(e);
        goto bad;
    }
    BN_free(e);
    return k;
bad:
    EVP_PKEY_free(k);
    return NULL;
}

int acmkey_modulus_le(EVP_PKEY *k, uint8_t out[ACMKEY_MODULUS_LEN], char *err, size_t errsz)
{
    BIGNUM *n = NULL;
    int ok = EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_RSA_N, &n) &&
             BN_bn2lebinpad(n, out, ACMKEY_MODULUS_LEN) == ACMKEY_MODULUS_LEN;

    BN_free(n);
    if (!ok) {
        ssl_err(err, errsz, "modulus");
        return -1;
    }
    return 0;
}

int acmkey_hash_hex(const char *path, char hex[2 * ACMKEY_HASH_LEN + 1], char *err, size_t errsz)
{
    EVP_PKEY *k = acmkey_load(path, err, errsz);
    uint8_t mod[ACMKEY_MODULUS_LEN], h[ACMKEY_HASH_LEN];
    int rc;

    if (!k)
        return -1;
    rc = acmkey_modulus_le(k, mod, err, errsz);
    EVP_PKEY_free(k);
    if (rc)
        return -1;
    SHA256(mod, sizeof(mod), h);
    for (size_t i = 0; i < sizeof(h); i++)
        snprintf(hex + 2 * i, 3, "%02x", h[i]);
    return 0;
}
