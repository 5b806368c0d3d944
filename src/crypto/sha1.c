/* SPDX-License-Identifier: MIT */
/* SHA-1, written from FIPS 180-4 §4.1.1, §4.2.1, §5.1.1, §5.3.1 and §6.1. */
#include "crypto/sha1.h"

#include "crypto/rotate.h"
#include "crypto/impl.h"
#include "lib/bytes.h"
#include "lib/string.h"

/* The installed block function (crypto_set_impl); NULL: sha1_blocks_portable. */
sha1_blocks_fn *crypto_sha1_blocks;

/* §4.1.1, with Ch and Maj in equivalent forms with one operation fewer. */
#define F_CH(x, y, z)     ((z) ^ ((x) & ((y) ^ (z))))
#define F_PARITY(x, y, z) ((x) ^ (y) ^ (z))
#define F_MAJ(x, y, z)    (((x) & (y)) | ((z) & ((x) | (y))))

/* §4.2.1 */
#define K0 0x5a827999u
#define K1 0x6ed9eba1u
#define K2 0x8f1bbcdcu
#define K3 0xca62c1d6u

/*
 * The schedule (§6.1.2 step 1) in a 16-word ring, w[t & 15] = W_t. t is a constant in every
 * expansion, so the indices fold and the t < 16 test disappears.
 */
#define W(t)                                                                                   \
    ((t) < 16 ? (w[(t) & 15] = load_be32(block + 4 * ((t) & 15)))                             \
              : (w[(t) & 15] = rotl32(w[((t) + 13) & 15] ^ w[((t) + 8) & 15] ^                 \
                                      w[((t) + 2) & 15] ^ w[(t) & 15], 1)))

/* One round (§6.1.2 step 3) with the working variables renamed instead of shifted. */
#define ROUND(F, K, a, b, c, d, e, t)                                                          \
    do {                                                                                       \
        e += rotl32(a, 5) + F(b, c, d) + K + W(t);                                             \
        b = rotl32(b, 30);                                                                     \
    } while (0)

#define ROUNDS5(F, K, t)                                                                       \
    do {                                                                                       \
        ROUND(F, K, a, b, c, d, e, (t));                                                       \
        ROUND(F, K, e, a, b, c, d, (t) + 1);                                                   \
        ROUND(F, K, d, e, a, b, c, (t) + 2);                                                   \
        ROUND(F, K, c, d, e, a, b, (t) + 3);                                                   \
        ROUND(F, K, b, c, d, e, a, (t) + 4);                                                   \
    } while (0)

#define ROUNDS20(F, K, t)                                                                      \
    do {                                                                                       \
        ROUNDS5(F, K, (t));                                                                    \
        ROUNDS5(F, K, (t) + 5);                                                                \
        ROUNDS5(F, K, (t) + 10);                                                               \
        ROUNDS5(F, K, (t) + 15);                                                               \
    } while (0)

/* Processes nblocks consecutive 64-byte blocks (§6.1.2). */
void sha1_blocks_portable(uint32_t state[5], const uint8_t *block, size_t nblocks)
{
    uint32_t w[16];

    for (; nblocks; nblocks--, block += SHA1_BLOCK_SIZE) {
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];

        ROUNDS20(F_CH, K0, 0);
        ROUNDS20(F_PARITY, K1, 20);
        ROUNDS20(F_MAJ, K2, 40);
        ROUNDS20(F_PARITY, K3, 60);

        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
    }
    memzero_explicit(w, sizeof(w));
}

void sha1_init(struct sha1_ctx *ctx)
{
    /* §5.3.1 */
    ctx->state[0] = 0x67452301;
    ctx->state[1] = 0xefcdab89;
    ctx->state[2] = 0x98badcfe;
    ctx->state[3] = 0x10325476;
    ctx->state[4] = 0xc3d2e1f0;
    ctx->bytes = 0;
}

void sha1_update(struct sha1_ctx *ctx, const void *data, size_t len)
{
    const uint8_t *p = data;
    size_t fill = (size_t)(ctx->bytes % SHA1_BLOCK_SIZE);

    if (len == 0)
        return;
    ctx->bytes += len;
    if (fill) {
        size_t take = SHA1_BLOCK_SIZE - fill;
        if (len < take) {
            memcpy(ctx->buf + fill, p, len);
            return;
        }
        memcpy(ctx->buf + fill, p, take);
        CRYPTO_CALL_BLOCKS(crypto_sha1_blocks, sha1_blocks_portable, ctx->state, ctx->buf, 1);
        p += take;
        len -= take;
    }
    if (len >= SHA1_BLOCK_SIZE) {
        size_t n = len / SHA1_BLOCK_SIZE;
        CRYPTO_CALL_BLOCKS(crypto_sha1_blocks, sha1_blocks_portable, ctx->state, p, n);
        p += n * SHA1_BLOCK_SIZE;
        len -= n * SHA1_BLOCK_SIZE;
    }
    if (len)
        memcpy(ctx->buf, p, len);
}

void sha1_final(struct sha1_ctx *ctx, uint8_t digest[SHA1_DIGEST_SIZE])
{
    size_t fill = (size_t)(ctx->bytes % SHA1_BLOCK_SIZE);
    unsigned i;

    /* §5.1.1: a 1 bit, zeros, then the 64-bit big-endian bit length. */
    ctx->buf[fill++] = 0x80;
    if (fill > SHA1_BLOCK_SIZE - 8) {
        memset(ctx->buf + fill, 0, SHA1_BLOCK_SIZE - fill);
        CRYPTO_CALL_BLOCKS(crypto_sha1_blocks, sha1_blocks_portable, ctx->state, ctx->buf, 1);
        fill = 0;
    }
    memset(ctx->buf + fill, 0, SHA1_BLOCK_SIZE - 8 - fill);
    store_be64(ctx->buf + SHA1_BLOCK_SIZE - 8, ctx->bytes << 3);
    CRYPTO_CALL_BLOCKS(crypto_sha1_blocks, sha1_blocks_portable, ctx->state, ctx->buf, 1);

    for (i = 0; i < 5; i++)
        store_be32(digest + 4 * i, ctx->state[i]);
    memzero_explicit(ctx, sizeof(*ctx));
}

void sha1_buffer(const void *data, size_t len, uint8_t digest[SHA1_DIGEST_SIZE])
{
    struct sha1_ctx ctx;

    sha1_init(&ctx);
    sha1_update(&ctx, data, len);
    sha1_final(&ctx, digest);
}
