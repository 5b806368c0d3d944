/* SPDX-License-Identifier: MIT */
/* SHA-256, written from FIPS 180-4 §4.1.2, §4.2.2, §5.1.1, §5.3.3 and §6.2. */
#include "crypto/sha256.h"

#include "crypto/rotate.h"
#include "crypto/impl.h"
#include "crypto/sha2_k.h"
#include "lib/bytes.h"
#include "lib/string.h"

/* The installed block function (crypto_set_impl); NULL: sha256_blocks_portable. */
sha256_blocks_fn *crypto_sha256_blocks;


/*
 * FIPS 180-4 §4.1.2, in equivalent forms that take fewer x86 instructions: Ch with one operation
 * fewer; the big sigmas as nested rotations (rotr is linear over xor, so e.g.
 * rotr(e ^ rotr(e ^ rotr(e, 14), 5), 6) = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)), which need
 * fewer register copies with two-operand rotates; Maj in ROUND below.
 */
#define CH(x, y, z)  ((z) ^ ((x) & ((y) ^ (z))))
#define BSIG0(x)     rotr32((x) ^ rotr32((x) ^ rotr32(x, 9), 11), 2)
#define BSIG1(x)     rotr32((x) ^ rotr32((x) ^ rotr32(x, 14), 5), 6)
#define SSIG0(x)     (rotr32((x) ^ rotr32(x, 11), 7) ^ ((x) >> 3))
#define SSIG1(x)     (rotr32((x) ^ rotr32(x, 2), 17) ^ ((x) >> 10))

#define SHA2_WORD uint32_t
#define SHA2_K sha256_k
#define SHA2_ROUNDS 64
#define SHA2_BLOCK_SIZE SHA256_BLOCK_SIZE
#define SHA2_LOAD load_be32
#define SHA2_BLOCKS sha256_blocks_portable
#include "crypto/sha2_compress.h"

void sha256_init(struct sha256_ctx *ctx)
{
    /* §5.3.3 */
    ctx->state[0] = 0x6a09e667;
    ctx->state[1] = 0xbb67ae85;
    ctx->state[2] = 0x3c6ef372;
    ctx->state[3] = 0xa54ff53a;
    ctx->state[4] = 0x510e527f;
    ctx->state[5] = 0x9b05688c;
    ctx->state[6] = 0x1f83d9ab;
    ctx->state[7] = 0x5be0cd19;
    ctx->bytes = 0;
}

void sha256_update(struct sha256_ctx *ctx, const void *data, size_t len)
{
    const uint8_t *p = data;
    size_t fill = (size_t)(ctx->bytes % SHA256_BLOCK_SIZE);

    if (len == 0)
        return;
    ctx->bytes += len;
    if (fill) {
        size_t take = SHA256_BLOCK_SIZE - fill;
        if (len < take) {
            memcpy(ctx->buf + fill, p, len);
            return;
        }
        memcpy(ctx->buf + fill, p, take);
        CRYPTO_CALL_BLOCKS(crypto_sha256_blocks, sha256_blocks_portable, ctx->state, ctx->buf, 1);
        p += take;
        len -= take;
    }
    if (len >= SHA256_BLOCK_SIZE) {
        size_t n = len / SHA256_BLOCK_SIZE;
        CRYPTO_CALL_BLOCKS(crypto_sha256_blocks, sha256_blocks_portable, ctx->state, p, n);
        p += n * SHA256_BLOCK_SIZE;
        len -= n * SHA256_BLOCK_SIZE;
    }
    if (len)
        memcpy(ctx->buf, p, len);
}

void sha256_final(struct sha256_ctx *ctx, uint8_t digest[SHA256_DIGEST_SIZE])
{
    size_t fill = (size_t)(ctx->bytes % SHA256_BLOCK_SIZE);
    unsigned i;

    /* §5.1.1: a 1 bit, zeros, then the 64-bit big-endian bit length. */
    ctx->buf[fill++] = 0x80;
    if (fill > SHA256_BLOCK_SIZE - 8) {
        memset(ctx->buf + fill, 0, SHA256_BLOCK_SIZE - fill);
        CRYPTO_CALL_BLOCKS(crypto_sha256_blocks, sha256_blocks_portable, ctx->state, ctx->buf, 1);
        fill = 0;
    }
    memset(ctx->buf + fill, 0, SHA256_BLOCK_SIZE - 8 - fill);
    store_be64(ctx->buf + SHA256_BLOCK_SIZE - 8, ctx->bytes << 3);
    CRYPTO_CALL_BLOCKS(crypto_sha256_blocks, sha256_blocks_portable, ctx->state, ctx->buf, 1);

    for (i = 0; i < 8; i++)
        store_be32(digest + 4 * i, ctx->state[i]);
    memzero_explicit(ctx, sizeof(*ctx));
}

void sha256_buffer(const void *data, size_t len, uint8_t digest[SHA256_DIGEST_SIZE])
{
    struct sha256_ctx ctx;

    sha256_init(&ctx);
    sha256_update(&ctx, data, len);
    sha256_final(&ctx, digest);
}
