/* SPDX-License-Identifier: MIT */
/*
 * Poly1305, written from RFC 8439 §2.5 (and §2.5.1's description of clamping and the final
 * addition of s).
 *
 * Numbers mod p = 2^130 - 5 are kept as h = h0 + h1*2^26 + h2*2^52 + h3*2^78 + h4*2^104.
 * Multiplying two such numbers gives terms up to 2^208; since 2^130 = 5 (mod p), a term
 * hi*rj with i + j >= 5 folds down to 5*hi*rj at limb i + j - 5, hence sj = 5*rj below.
 */
#include "crypto/poly1305.h"

#include "crypto/impl.h"
#include "lib/bytes.h"
#include "lib/string.h"

/* The installed SIMD block function (crypto_set_impl); NULL: the portable code only. */
poly1305_blocks_fn *crypto_poly1305_blocks;

#define LIMB_MASK 0x3ffffffu            /* 26 bits */
#define POLY1305_SIMD_MIN_BLOCKS 32u    /* 512 bytes */

/*
 * h = h * r mod p, partially reduced, with r's limbs r0..r4 and si = 5*ri. With limbs of h
 * below 2^27 and of r below 2^26 + 2^6, each di below is a sum of five products below
 * 2^27 * 5*2^26.1 and fits 64 bits; after the carries every limb is below 2^26 except
 * h1 < 2^26 + 2^6 (see the bounds below).
 */
#define POLY1305_MULMOD(h0, h1, h2, h3, h4, r0, r1, r2, r3, r4, s1, s2, s3, s4)            \
    do {                                                                                       \
        uint64_t d0, d1, d2, d3, d4;                                                           \
        uint32_t c;                                                                            \
        d0 = (uint64_t)h0 * r0 + (uint64_t)h1 * s4 + (uint64_t)h2 * s3 + (uint64_t)h3 * s2 +   \
             (uint64_t)h4 * s1;                                                                \
        d1 = (uint64_t)h0 * r1 + (uint64_t)h1 * r0 + (uint64_t)h2 * s4 + (uint64_t)h3 * s3 +   \
             (uint64_t)h4 * s2;                                                                \
        d2 = (uint64_t)h0 * r2 + (uint64_t)h1 * r1 + (uint64_t)h2 * r0 + (uint64_t)h3 * s4 +   \
             (uint64_t)h4 * s3;                                                                \
        d3 = (uint64_t)h0 * r3 + (uint64_t)h1 * r2 + (uint64_t)h2 * r1 + (uint64_t)h3 * r0 +   \
             (uint64_t)h4 * s4;                                                                \
        d4 = (uint64_t)h0 * r4 + (uint64_t)h1 * r3 + (uint64_t)h2 * r2 + (uint64_t)h3 * r1 +   \
             (uint64_t)h4 * r0;                                                                \
        c = (uint32_t)(d0 >> 26);                                                              \
        h0 = (uint32_t)d0 & LIMB_MASK;                                                         \
        d1 += c;                                                                               \
        c = (uint32_t)(d1 >> 26);                                                              \
        h1 = (uint32_t)d1 & LIMB_MASK;                                                         \
        d2 += c;                                                                               \
        c = (uint32_t)(d2 >> 26);                                                              \
        h2 = (uint32_t)d2 & LIMB_MASK;                                                         \
        d3 += c;                                                                               \
        c = (uint32_t)(d3 >> 26);                                                              \
        h3 = (uint32_t)d3 & LIMB_MASK;                                                         \
        d4 += c;                                                                               \
        c = (uint32_t)(d4 >> 26);                                                              \
        h4 = (uint32_t)d4 & LIMB_MASK;                                                         \
        h0 += c * 5;                                                                           \
        c = h0 >> 26;                                                                          \
        h0 &= LIMB_MASK;                                                                       \
        h1 += c;                                                                               \
    } while (0)

/*
 * Absorbs nblocks 16-byte blocks: h = (h + block + hibit*2^128) * r mod p, partially reduced.
 * hibit is 1 << 24 (2^128 = 2^(104+24)) for full blocks and 0 for the padded last block.
 *
 * Bounds, with limbs < 2^26 on entry except h1 < 2^26 + 2^6 (from the final carry below):
 * after adding the block, hi < 2^27 and h4 < 2^26 + 2^25. Clamping gives r0..r3 < 2^26 and
 * r4 < 2^20, so si < 5*2^26. Each di is a sum of five products: d0..d3 < 21*2^53 < 2^58 and
 * d4 < 2^47 + 3*2^53 + 1.5*2^52 + 2^32 < 3.8*2^53; so every carry di >> 26 fits in 32 bits,
 * and so does h0 + 5*(d4 >> 26) < 2^26 + 19*2^27 < 2^32.
 */
static void poly1305_blocks(struct poly1305_ctx *ctx, const uint8_t *m, size_t nblocks,
                            uint32_t hibit)
{
    const uint32_t r0 = ctx->r[0], r1 = ctx->r[1], r2 = ctx->r[2], r3 = ctx->r[3], r4 = ctx->r[4];
    const uint32_t s1 = r1 * 5, s2 = r2 * 5, s3 = r3 * 5, s4 = r4 * 5;
    uint32_t h0 = ctx->h[0], h1 = ctx->h[1], h2 = ctx->h[2], h3 = ctx->h[3], h4 = ctx->h[4];

    for (; nblocks; nblocks--, m += POLY1305_BLOCK_SIZE) {
        uint32_t t0 = load_le32(m), t1 = load_le32(m + 4);
        uint32_t t2 = load_le32(m + 8), t3 = load_le32(m + 12);

        h0 += t0 & LIMB_MASK;
        h1 += (t0 >> 26 | t1 << 6) & LIMB_MASK;
        h2 += (t1 >> 20 | t2 << 12) & LIMB_MASK;
        h3 += (t2 >> 14 | t3 << 18) & LIMB_MASK;
        h4 += t3 >> 8 | hibit;
        POLY1305_MULMOD(h0, h1, h2, h3, h4, r0, r1, r2, r3, r4, s1, s2, s3, s4);
    }

    ctx->h[0] = h0;
    ctx->h[1] = h1;
    ctx->h[2] = h2;
    ctx->h[3] = h3;
    ctx->h[4] = h4;
}

/*
 * r^k = r^(k-1) * r: the same multiply with h = r^(k-1), whose limbs are below 2^26 + 2^6
 * (so below 2^27, as the bounds above need).
 */
void poly1305_powers(struct poly1305_ctx *ctx, unsigned n)
{
    const uint32_t r0 = ctx->r[0], r1 = ctx->r[1], r2 = ctx->r[2], r3 = ctx->r[3], r4 = ctx->r[4];
    const uint32_t s1 = r1 * 5, s2 = r2 * 5, s3 = r3 * 5, s4 = r4 * 5;

    if (n > POLY1305_MAX_POWERS)
        n = POLY1305_MAX_POWERS;
    if (ctx->rpow_n == 0) {
        for (unsigned i = 0; i < 5; i++)
            ctx->rpow[0][i] = ctx->r[i];
        ctx->rpow_n = 1;
    }
    for (; ctx->rpow_n < n; ctx->rpow_n++) {
        const uint32_t *p = ctx->rpow[ctx->rpow_n - 1];
        uint32_t h0 = p[0], h1 = p[1], h2 = p[2], h3 = p[3], h4 = p[4];
        POLY1305_MULMOD(h0, h1, h2, h3, h4, r0, r1, r2, r3, r4, s1, s2, s3, s4);
        uint32_t *q = ctx->rpow[ctx->rpow_n];
        q[0] = h0;
        q[1] = h1;
        q[2] = h2;
        q[3] = h3;
        q[4] = h4;
    }
}

void poly1305_set_h(struct poly1305_ctx *ctx, const uint64_t sum[5])
{
    uint64_t d0 = sum[0], d1 = sum[1], d2 = sum[2], d3 = sum[3], d4 = sum[4], c;

    /* sums below 2^61: a first pass in 64 bits leaves every limb below 2^26 + 2^12 */
    d1 += d0 >> 26;
    d0 &= LIMB_MASK;
    d2 += d1 >> 26;
    d1 &= LIMB_MASK;
    d3 += d2 >> 26;
    d2 &= LIMB_MASK;
    d4 += d3 >> 26;
    d3 &= LIMB_MASK;
    c = d4 >> 26;                       /* < 2^35 */
    d4 &= LIMB_MASK;
    d0 += c * 5;                        /* < 2^38 */
    d1 += d0 >> 26;
    d0 &= LIMB_MASK;

    /* then the portable code's form: every limb below 2^26 but h1 <= 2^26 */
    uint32_t h0 = (uint32_t)d0, h1 = (uint32_t)d1, h2 = (uint32_t)d2, h3 = (uint32_t)d3;
    uint32_t h4 = (uint32_t)d4, k;
    k = h1 >> 26;
    h1 &= LIMB_MASK;
    h2 += k;
    k = h2 >> 26;
    h2 &= LIMB_MASK;
    h3 += k;
    k = h3 >> 26;
    h3 &= LIMB_MASK;
    h4 += k;
    k = h4 >> 26;
    h4 &= LIMB_MASK;
    h0 += k * 5;
    k = h0 >> 26;
    h0 &= LIMB_MASK;
    h1 += k;
    ctx->h[0] = h0;
    ctx->h[1] = h1;
    ctx->h[2] = h2;
    ctx->h[3] = h3;
    ctx->h[4] = h4;
}

void poly1305_init(struct poly1305_ctx *ctx, const uint8_t key[POLY1305_KEY_SIZE])
{
    /* §2.5.1 clamp: r &= 0x0ffffffc0ffffffc0ffffffc0fffffff (r little-endian). */
    uint32_t w0 = load_le32(key) & 0x0fffffffu;
    uint32_t w1 = load_le32(key + 4) & 0x0ffffffcu;
    uint32_t w2 = load_le32(key + 8) & 0x0ffffffcu;
    uint32_t w3 = load_le32(key + 12) & 0x0ffffffcu;
    unsigned i;

    ctx->r[0] = w0 & LIMB_MASK;
    ctx->r[1] = (w0 >> 26 | w1 << 6) & LIMB_MASK;
    ctx->r[2] = (w1 >> 20 | w2 << 12) & LIMB_MASK;
    ctx->r[3] = (w2 >> 14 | w3 << 18) & LIMB_MASK;
    ctx->r[4] = w3 >> 8;
    for (i = 0; i < 5; i++)
        ctx->h[i] = 0;
    for (i = 0; i < 4; i++)
        ctx->s[i] = load_le32(key + 16 + 4 * i);
    ctx->buf_len = 0;
    ctx->rpow_n = 0;
}

void poly1305_update(struct poly1305_ctx *ctx, const void *data, size_t len)
{
    const uint8_t *p = data;

    if (len == 0)
        return;
    if (ctx->buf_len) {
        size_t take = POLY1305_BLOCK_SIZE - ctx->buf_len;
        if (take > len)
            take = len;
        memcpy(ctx->buf + ctx->buf_len, p, take);
        ctx->buf_len += (unsigned)take;
        p += take;
        len -= take;
        if (ctx->buf_len < POLY1305_BLOCK_SIZE)
            return;
        poly1305_blocks(ctx, ctx->buf, 1, 1u << 24);
        ctx->buf_len = 0;
    }
    if (len >= POLY1305_BLOCK_SIZE) {
        size_t n = len / POLY1305_BLOCK_SIZE;
        poly1305_blocks_fn *simd = crypto_poly1305_blocks;
        /* The SIMD paths pay for a final per-lane multiply: worth it from a few groups on. */
        if (simd && n >= POLY1305_SIMD_MIN_BLOCKS) {
            size_t done = simd(ctx, p, n);
            p += done * POLY1305_BLOCK_SIZE;
            len -= done * POLY1305_BLOCK_SIZE;
            n -= done;
        }
        poly1305_blocks(ctx, p, n, 1u << 24);
        p += n * POLY1305_BLOCK_SIZE;
        len -= n * POLY1305_BLOCK_SIZE;
    }
    if (len) {
        memcpy(ctx->buf, p, len);
        ctx->buf_len = (unsigned)len;
    }
}

void poly1305_final(struct poly1305_ctx *ctx, uint8_t tag[POLY1305_TAG_SIZE])
{
    uint32_t h0, h1, h2, h3, h4, g0, g1, g2, g3, g4, c, mask;
    uint64_t f;

    /* A short last block gets a 1 byte appended and zero padding, and no 2^128 bit. */
    if (ctx->buf_len) {
        ctx->buf[ctx->buf_len] = 1;
        memset(ctx->buf + ctx->buf_len + 1, 0, POLY1305_BLOCK_SIZE - ctx->buf_len - 1);
        poly1305_blocks(ctx, ctx->buf, 1, 0);
    }

    /* Carry fully: afterwards h < 2^130 with every limb < 2^26. */
    h0 = ctx->h[0];
    h1 = ctx->h[1];
    h2 = ctx->h[2];
    h3 = ctx->h[3];
    h4 = ctx->h[4];
    c = h1 >> 26;
    h1 &= LIMB_MASK;
    h2 += c;
    c = h2 >> 26;
    h2 &= LIMB_MASK;
    h3 += c;
    c = h3 >> 26;
    h3 &= LIMB_MASK;
    h4 += c;
    c = h4 >> 26;
    h4 &= LIMB_MASK;
    h0 += c * 5;
    c = h0 >> 26;
    h0 &= LIMB_MASK;
    h1 += c;

    /* g = h + 5 - 2^130 = h - p; it has no borrow (top bit of g4 clear) exactly when h >= p. */
    g0 = h0 + 5;
    c = g0 >> 26;
    g0 &= LIMB_MASK;
    g1 = h1 + c;
    c = g1 >> 26;
    g1 &= LIMB_MASK;
    g2 = h2 + c;
    c = g2 >> 26;
    g2 &= LIMB_MASK;
    g3 = h3 + c;
    c = g3 >> 26;
    g3 &= LIMB_MASK;
    g4 = h4 + c - (1u << 26);

    /* Without a branch: h = (h >= p) ? g : h. */
    mask = (g4 >> 31) - 1;              /* all ones if no borrow */
    h0 = (h0 & ~mask) | (g0 & mask);
    h1 = (h1 & ~mask) | (g1 & mask);
    h2 = (h2 & ~mask) | (g2 & mask);
    h3 = (h3 & ~mask) | (g3 & mask);
    h4 = (h4 & ~mask) | (g4 & mask);

    /* tag = (h + s) mod 2^128, little-endian; limbs are added (not or-ed) into 32-bit words. */
    f = (uint64_t)h0 + ((uint64_t)h1 << 26) + ctx->s[0];
    store_le32(tag, (uint32_t)f);
    f = (f >> 32) + ((uint64_t)h2 << 20) + ctx->s[1];
    store_le32(tag + 4, (uint32_t)f);
    f = (f >> 32) + ((uint64_t)h3 << 14) + ctx->s[2];
    store_le32(tag + 8, (uint32_t)f);
    f = (f >> 32) + ((uint64_t)h4 << 8) + ctx->s[3];
    store_le32(tag + 12, (uint32_t)f);

    memzero_explicit(ctx, sizeof(*ctx));
}

void poly1305_mac(const uint8_t key[POLY1305_KEY_SIZE], const void *data, size_t len,
                  uint8_t tag[POLY1305_TAG_SIZE])
{
    struct poly1305_ctx ctx;

    poly1305_init(&ctx, key);
    poly1305_update(&ctx, data, len);
    poly1305_final(&ctx, tag);
}

bool poly1305_verify(const uint8_t tag_a[POLY1305_TAG_SIZE],
                     const uint8_t tag_b[POLY1305_TAG_SIZE])
{
    uint32_t diff = 0;
    unsigned i;

    for (i = 0; i < POLY1305_TAG_SIZE; i++)
        diff |= (uint32_t)(tag_a[i] ^ tag_b[i]);
    /* diff is 0..255: diff - 1 has bit 31 set only for 0. */
    return (bool)((diff - 1) >> 31);
}
