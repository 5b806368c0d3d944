/* SPDX-License-Identifier: MIT */
/*
 * Poly1305 one-time authenticator (RFC 8439 §2.5). A key (r, s) must authenticate one message
 * only. Arithmetic mod 2^130 - 5 in five 26-bit limbs: only 32x32->64 multiplies, so it is fast
 * on i386 without 64x64 multiplies or libgcc helpers. Timing does not depend on the key, the
 * data's content or the tag (only on the length).
 */
#ifndef CRYPTO_POLY1305_H
#define CRYPTO_POLY1305_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POLY1305_KEY_SIZE   32u
#define POLY1305_TAG_SIZE   16u
#define POLY1305_BLOCK_SIZE 16u
#define POLY1305_MAX_POWERS 8u          /* r^1..r^8, for the 8-lane SIMD path */

struct poly1305_ctx {
    uint32_t r[5];                      /* clamped r, 26-bit limbs */
    uint32_t h[5];                      /* accumulator, 26-bit limbs (partially reduced) */
    uint32_t s[4];                      /* s, little-endian 32-bit words */
    uint8_t buf[POLY1305_BLOCK_SIZE];
    unsigned buf_len;
    unsigned rpow_n;                    /* rpow[0..rpow_n) = r^1..r^rpow_n, made on first use */
    uint32_t rpow[POLY1305_MAX_POWERS][5];  /* for the SIMD paths (crypto/cpu.h), 26-bit limbs */
};

/* key = r (16 bytes, clamped here) || s (16 bytes), as in RFC 8439 §2.5. */
void poly1305_init(struct poly1305_ctx *ctx, const uint8_t key[POLY1305_KEY_SIZE]);
void poly1305_update(struct poly1305_ctx *ctx, const void *data, size_t len);
/* Writes the tag and wipes ctx (including the key). */
void poly1305_final(struct poly1305_ctx *ctx, uint8_t tag[POLY1305_TAG_SIZE]);

/* One-shot: tag = Poly1305(key, data[0..len)). */
void poly1305_mac(const uint8_t key[POLY1305_KEY_SIZE], const void *data, size_t len,
                  uint8_t tag[POLY1305_TAG_SIZE]);

/* True if the two tags are equal; constant time (no early exit, no data-dependent branch). */
bool poly1305_verify(const uint8_t tag_a[POLY1305_TAG_SIZE],
                     const uint8_t tag_b[POLY1305_TAG_SIZE]);

#endif
