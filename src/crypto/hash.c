/* SPDX-License-Identifier: MIT */
#include "crypto/hash.h"

#include "lib/string.h"

bool hash_alg_supported(uint16_t alg)
{
    return tpm_hash_size(alg) != 0;
}

int hash_init(struct hash_ctx *ctx, uint16_t alg)
{
    switch (alg) {
    case TPM_ALG_SHA1:
        sha1_init(&ctx->u.sha1);
        break;
    case TPM_ALG_SHA256:
        sha256_init(&ctx->u.sha256);
        break;
    case TPM_ALG_SHA384:
        sha384_init(&ctx->u.sha512);
        break;
    case TPM_ALG_SHA512:
        sha512_init(&ctx->u.sha512);
        break;
    default:
        return -1;
    }
    ctx->alg = alg;
    return 0;
}

void hash_update(struct hash_ctx *ctx, const void *data, size_t len)
{
    switch (ctx->alg) {
    case TPM_ALG_SHA1:
        sha1_update(&ctx->u.sha1, data, len);
        break;
    case TPM_ALG_SHA256:
        sha256_update(&ctx->u.sha256, data, len);
        break;
    case TPM_ALG_SHA384:
    case TPM_ALG_SHA512:
        sha512_update(&ctx->u.sha512, data, len);
        break;
    default:
        break;
    }
}

void hash_final(struct hash_ctx *ctx, uint8_t *digest)
{
    switch (ctx->alg) {
    case TPM_ALG_SHA1:
        sha1_final(&ctx->u.sha1, digest);
        break;
    case TPM_ALG_SHA256:
        sha256_final(&ctx->u.sha256, digest);
        break;
    case TPM_ALG_SHA384:
        sha384_final(&ctx->u.sha512, digest);
        break;
    case TPM_ALG_SHA512:
        sha512_final(&ctx->u.sha512, digest);
        break;
    default:
        break;
    }
    memzero_explicit(ctx, sizeof(*ctx));
}

int hash_buffer(uint16_t alg, const void *data, size_t len, uint8_t *digest)
{
    struct hash_ctx ctx;

    if (hash_init(&ctx, alg) < 0)
        return -1;
    hash_update(&ctx, data, len);
    hash_final(&ctx, digest);
    return 0;
}

int hash_extend(uint16_t alg, uint8_t *pcr, const uint8_t *digest)
{
    size_t size = tpm_hash_size(alg);
    struct hash_ctx ctx;

    if (size == 0 || hash_init(&ctx, alg) < 0)
        return -1;
    hash_update(&ctx, pcr, size);
    hash_update(&ctx, digest, size);
    /* Both inputs are consumed (buffered or compressed) before pcr is written. */
    hash_final(&ctx, pcr);
    return 0;
}

void hash_update_multi(struct hash_ctx *ctx, unsigned n, const void *data, size_t len)
{
    const uint8_t *p = data;

    while (len) {
        size_t k = len < HASH_MULTI_CHUNK ? len : HASH_MULTI_CHUNK;
        for (unsigned i = 0; i < n; i++)
            hash_update(&ctx[i], p, k);
        p += k;
        len -= k;
    }
}

int hash_multi(const uint16_t *algs, unsigned n, const void *data, size_t len,
               uint8_t *const outs[])
{
    enum { GROUP = 4 };                 /* contexts on the stack at once (about 1 KiB) */
    struct hash_ctx ctx[GROUP];

    for (unsigned i = 0; i < n; i++)
        if (!hash_alg_supported(algs[i]))
            return -1;
    /* Every TPM has at most four banks of these: one pass. More would take one per four. */
    for (unsigned base = 0; base < n; base += GROUP) {
        unsigned m = n - base < GROUP ? n - base : GROUP;
        for (unsigned i = 0; i < m; i++)
            hash_init(&ctx[i], algs[base + i]);
        hash_update_multi(ctx, m, data, len);
        for (unsigned i = 0; i < m; i++)
            hash_final(&ctx[i], outs[base + i]);
    }
    return 0;
}
