/* SPDX-License-Identifier: MIT */
/*
 * SHA-512 and SHA-384, written from FIPS 180-4 §4.1.3, §4.2.3, §5.1.2, §5.3.4, §5.3.5, §6.4
 * and §6.5.
 */
#include "crypto/sha512.h"

#include "crypto/rotate.h"
#include "crypto/impl.h"
#include "crypto/sha2_k.h"
#include "lib/bytes.h"
#include "lib/string.h"

/* The installed block function (crypto_set_impl); NULL: sha512_blocks_portable. */
sha512_blocks_fn *crypto_sha512_blocks;


/*
 * §4.1.3, in equivalent forms that take fewer instructions (see sha256.c): Ch with one operation
 * fewer, the sigmas as nested rotations (rotr is linear over xor), Maj in ROUND below.
 */
#define CH(x, y, z)  ((z) ^ ((x) & ((y) ^ (z))))
#define BSIG0(x)     rotr64((x) ^ rotr64((x) ^ rotr64(x, 5), 6), 28)    /* 28, 34, 39 */
#define BSIG1(x)     rotr64((x) ^ rotr64((x) ^ rotr64(x, 23), 4), 14)   /* 14, 18, 41 */
#define SSIG0(x)     (rotr64((x) ^ rotr64(x, 7), 1) ^ ((x) >> 7))       /* 1, 8 */
#define SSIG1(x)     (rotr64((x) ^ rotr64(x, 42), 19) ^ ((x) >> 6))     /* 19, 61 */

#define SHA2_WORD uint64_t
#define SHA2_K sha512_k
#define SHA2_ROUNDS 80
#define SHA2_BLOCK_SIZE SHA512_BLOCK_SIZE
#define SHA2_LOAD load_be64
#define SHA2_BLOCKS sha512_blocks_portable
#include "crypto/sha2_compress.h"

void sha512_init(struct sha512_ctx *ctx)
{
    /* §5.3.5 */
    ctx->state[0] = 0x6a09e667f3bcc908ull;
    ctx->state[1] = 0xbb67ae8584caa73bull;
    ctx->state[2] = 0x3c6ef372fe94f82bull;
    ctx->state[3] = 0xa54ff53a5f1d36f1ull;
    ctx->state[4] = 0x510e527fade682d1ull;
    ctx->state[5] = 0x9b05688c2b3e6c1full;
    ctx->state[6] = 0x1f83d9abfb41bd6bull;
    ctx->state[7] = 0x5be0cd19137e2179ull;
    ctx->bytes = 0;
}

void sha384_init(struct sha512_ctx *ctx)
{
    /* §5.3.4 */
    ctx->state[0] = 0xcbbb9d5dc1059ed8ull;
    ctx->state[1] = 0x629a292a367cd507ull;
    ctx->state[2] = 0x9159015a3070dd17ull;
    ctx->state[3] = 0x152fecd8f70e5939ull;
    ctx->state[4] = 0x67332667ffc00b31ull;
    ctx->state[5] = 0x8eb44a8768581511ull;
    ctx->state[6] = 0xdb0c2e0d64f98fa7ull;
    ctx->state[7] = 0x47b5481dbefa4fa4ull;
    ctx->bytes = 0;
}

void sha512_update(struct sha512_ctx *ctx, const void *data, size_t len)
{
    const uint8_t *p = data;
    size_t fill = (size_t)(ctx->bytes % SHA512_BLOCK_SIZE);

    if (len == 0)
        return;
    ctx->bytes += len;
    if (fill) {
        size_t take = SHA512_BLOCK_SIZE - fill;
        if (len < take) {
            memcpy(ctx->buf + fill, p, len);
            return;
        }
        memcpy(ctx->buf + fill, p, take);
        CRYPTO_CALL_BLOCKS(crypto_sha512_blocks, sha512_blocks_portable, ctx->state, ctx->buf, 1);
        p += take;
        len -= take;
    }
    if (len >= SHA512_BLOCK_SIZE) {
        size_t n = len / SHA512_BLOCK_SIZE;
        CRYPTO_CALL_BLOCKS(crypto_sha512_blocks, sha512_blocks_portable, ctx->state, p, n);
        p += n * SHA512_BLOCK_SIZE;
        len -= n * SHA512_BLOCK_SIZE;
    }
    if (len)
        memcpy(ctx->buf, p, len);
}

void sha384_update(struct sha512_ctx *ctx, const void *data, size_t len)
{
    sha512_update(ctx, data, len);
}

/* §5.1.2 padding and the last block(s); leaves the final state in ctx->state. */
static void sha512_pad(struct sha512_ctx *ctx)
{
    size_t fill = (size_t)(ctx->bytes % SHA512_BLOCK_SIZE);

    /* A 1 bit, zeros, then the 128-bit big-endian bit length (its top half is bytes >> 61). */
    ctx->buf[fill++] = 0x80;
    if (fill > SHA512_BLOCK_SIZE - 16) {
        memset(ctx->buf + fill, 0, SHA512_BLOCK_SIZE - fill);
        CRYPTO_CALL_BLOCKS(crypto_sha512_blocks, sha512_blocks_portable, ctx->state, ctx->buf, 1);
        fill = 0;
    }
    memset(ctx->buf + fill, 0, SHA512_BLOCK_SIZE - 16 - fill);
    store_be64(ctx->buf + SHA512_BLOCK_SIZE - 16, ctx->bytes >> 61);
    store_be64(ctx->buf + SHA512_BLOCK_SIZE - 8, ctx->bytes << 3);
    CRYPTO_CALL_BLOCKS(crypto_sha512_blocks, sha512_blocks_portable, ctx->state, ctx->buf, 1);
}

void sha512_final(struct sha512_ctx *ctx, uint8_t digest[SHA512_DIGEST_SIZE])
{
    unsigned i;

    sha512_pad(ctx);
    for (i = 0; i < 8; i++)
        store_be64(digest + 8 * i, ctx->state[i]);
    memzero_explicit(ctx, sizeof(*ctx));
}

void sha384_final(struct sha512_ctx *ctx, uint8_t digest[SHA384_DIGEST_SIZE])
{
    unsigned i;

    /* §6.5: SHA-512's computation from other initial values, truncated to H0..H5. */
    sha512_pad(ctx);
    for (i = 0; i < 6; i++)
        store_be64(digest + 8 * i, ctx->state[i]);
    memzero_explicit(ctx, sizeof(*ctx));
}

void sha512_buffer(const void *data, size_t len, uint8_t digest[SHA512_DIGEST_SIZE])
{
    struct sha512_ctx ctx;

    sha512_init(&ctx);
    sha512_update(&ctx, data, len);
    sha512_final(&ctx, digest);
}

void sha384_buffer(const void *data, size_t len, uint8_t digest[SHA384_DIGEST_SIZE])
{
    struct sha512_ctx ctx;

    sha384_init(&ctx);
    sha384_update(&ctx, data, len);
    sha384_final(&ctx, digest);
}
