/* SPDX-License-Identifier: MIT */
/*
 * SHA-512 and SHA-384, written from FIPS 180-4 §4.1.3, §4.2.3, §5.1.2, §5.3.4, §5.3.5, §6.4
 * and §6.5.
 */
#include "crypto/sha512.h"

#include "crypto/bytes.h"
#include "crypto/impl.h"
#include "lib/string.h"

/* The installed block function (crypto_set_impl); NULL: sha512_blocks_portable. */
sha512_blocks_fn *crypto_sha512_blocks;

static const uint64_t sha512_k[80] = {
    0x428a2f98d728ae22ull, 0x7137449123ef65cdull, 0xb5c0fbcfec4d3b2full, 0xe9b5dba58189dbbcull,
    0x3956c25bf348b538ull, 0x59f111f1b605d019ull, 0x923f82a4af194f9bull, 0xab1c5ed5da6d8118ull,
    0xd807aa98a3030242ull, 0x12835b0145706fbeull, 0x243185be4ee4b28cull, 0x550c7dc3d5ffb4e2ull,
    0x72be5d74f27b896full, 0x80deb1fe3b1696b1ull, 0x9bdc06a725c71235ull, 0xc19bf174cf692694ull,
    0xe49b69c19ef14ad2ull, 0xefbe4786384f25e3ull, 0x0fc19dc68b8cd5b5ull, 0x240ca1cc77ac9c65ull,
    0x2de92c6f592b0275ull, 0x4a7484aa6ea6e483ull, 0x5cb0a9dcbd41fbd4ull, 0x76f988da831153b5ull,
    0x983e5152ee66dfabull, 0xa831c66d2db43210ull, 0xb00327c898fb213full, 0xbf597fc7beef0ee4ull,
    0xc6e00bf33da88fc2ull, 0xd5a79147930aa725ull, 0x06ca6351e003826full, 0x142929670a0e6e70ull,
    0x27b70a8546d22ffcull, 0x2e1b21385c26c926ull, 0x4d2c6dfc5ac42aedull, 0x53380d139d95b3dfull,
    0x650a73548baf63deull, 0x766a0abb3c77b2a8ull, 0x81c2c92e47edaee6ull, 0x92722c851482353bull,
    0xa2bfe8a14cf10364ull, 0xa81a664bbc423001ull, 0xc24b8b70d0f89791ull, 0xc76c51a30654be30ull,
    0xd192e819d6ef5218ull, 0xd69906245565a910ull, 0xf40e35855771202aull, 0x106aa07032bbd1b8ull,
    0x19a4c116b8d2d0c8ull, 0x1e376c085141ab53ull, 0x2748774cdf8eeb99ull, 0x34b0bcb5e19b48a8ull,
    0x391c0cb3c5c95a63ull, 0x4ed8aa4ae3418acbull, 0x5b9cca4f7763e373ull, 0x682e6ff3d6b2b8a3ull,
    0x748f82ee5defb2fcull, 0x78a5636f43172f60ull, 0x84c87814a1f0ab72ull, 0x8cc702081a6439ecull,
    0x90befffa23631e28ull, 0xa4506cebde82bde9ull, 0xbef9a3f7b2c67915ull, 0xc67178f2e372532bull,
    0xca273eceea26619cull, 0xd186b8c721c0c207ull, 0xeada7dd6cde0eb1eull, 0xf57d4f7fee6ed178ull,
    0x06f067aa72176fbaull, 0x0a637dc5a2c898a6ull, 0x113f9804bef90daeull, 0x1b710b35131c471bull,
    0x28db77f523047d84ull, 0x32caab7b40c72493ull, 0x3c9ebe0a15c9bebcull, 0x431d67c49c100d4cull,
    0x4cc5d4becb3e42b6ull, 0x597f299cfc657e2aull, 0x5fcb6fab3ad6faecull, 0x6c44198c4a475817ull,
};

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
