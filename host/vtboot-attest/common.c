/* SPDX-License-Identifier: MIT */
#include "attest.h"
#include "util.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parse_hex(const char *s, uint8_t *out, size_t max, size_t *len)
{
    size_t n = strlen(s);

    if (n == 0 || n % 2 || n / 2 > max)
        return -1;
    for (size_t i = 0; i < n; i += 2) {
        int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);

        if (hi < 0 || lo < 0)
            return -1;
        out[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    *len = n / 2;
    return 0;
}

int parse_handle(const char *s, uint32_t *h)
{
    char *end;
    unsigned long v = strtoul(s, &end, 16);

    if (strncmp(s, "0x", 2) || !s[2] || *end || v < 0x81000000ul || v > 0x81ffffff)
        return -1;
    *h = (uint32_t)v;
    return 0;
}

static void ossl_reason(char *out, size_t outsz)
{
    unsigned long e = ERR_get_error();

    if (e)
        ERR_error_string_n(e, out, outsz);
    else
        snprintf(out, outsz, "unknown error");
    ERR_clear_error();
}

X509 *cert_load(const char *path, char *err, size_t errsz)
{
    size_t len;
    uint8_t *data = file_read_all(path, &len, 1 << 16);
    const unsigned char *p;
    X509 *cert = NULL;

    if (!data) {
        errorf(err, errsz, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    p = data;
    if (len > 10 && !memcmp(data, "-----BEGIN", 10)) {
        BIO *b = BIO_new_mem_buf(data, (int)len);

        cert = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
        BIO_free(b);
    } else {
        cert = d2i_X509(NULL, &p, (long)len);
    }
    if (!cert) {
        char why[256];

        ossl_reason(why, sizeof(why));
        errorf(err, errsz, "%s is not an X.509 certificate (%s)", path, why);
    }
    free(data);
    return cert;
}

int cert_verify(X509 *cert, const char *ca_file, const char *chain_file, char *err,
                size_t errsz)
{
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    STACK_OF(X509) *chain = sk_X509_new_null();
    int rc = -1;

    if (!store || !ctx || !chain) {
        errorf(err, errsz, "out of memory");
        goto out;
    }
    if (!ca_file || X509_STORE_load_file(store, ca_file) != 1) {
        char why[256];

        ossl_reason(why, sizeof(why));
        errorf(err, errsz, "cannot load the CA certificate %s (%s)", ca_file ? ca_file : "(none)",
               why);
        goto out;
    }
    if (chain_file && file_readable(chain_file)) {
        BIO *b = BIO_new_file(chain_file, "r");
        X509 *c;

        while (b && (c = PEM_read_bio_X509(b, NULL, NULL, NULL)))
            sk_X509_push(chain, c);
        ERR_clear_error();
        BIO_free(b);
    }
    if (X509_STORE_CTX_init(ctx, store, cert, chain) != 1) {
        errorf(err, errsz, "OpenSSL cannot set up the verification");
        goto out;
    }
    if (X509_verify_cert(ctx) != 1) {
        errorf(err, errsz, "%s", X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
        goto out;
    }
    rc = 0;
out:
    ERR_clear_error();
    sk_X509_pop_free(chain, X509_free);
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    return rc;
}

void cert_subject(X509 *cert, char *out, size_t outsz, bool issuer)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *p;
    long n;

    if (outsz)
        out[0] = 0;
    if (!b)
        return;
    X509_NAME_print_ex(b, issuer ? X509_get_issuer_name(cert) : X509_get_subject_name(cert), 0,
                       XN_FLAG_ONELINE & ~ASN1_STRFLGS_ESC_MSB);
    n = BIO_get_mem_data(b, &p);
    snprintf(out, outsz, "%.*s", (int)n, p);
    BIO_free(b);
}
