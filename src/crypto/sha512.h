/* SPDX-License-Identifier: MIT */
/*
 * SHA-512 and SHA-384 (FIPS 180-4 §6.4, §6.5): one compression function, two initial values and
 * output lengths, so they share struct sha512_ctx. Streaming (init, update..., final) and
 * one-shot. No dynamic memory; the context is plain data. final wipes the context.
 * A context started with sha384_init must be finished with sha384_final, and likewise for 512.
 */
#ifndef CRYPTO_SHA512_H
#define CRYPTO_SHA512_H

#include <stddef.h>
#include <stdint.h>

#define SHA512_DIGEST_SIZE 64u
#define SHA384_DIGEST_SIZE 48u
#define SHA512_BLOCK_SIZE  128u
#define SHA384_BLOCK_SIZE  SHA512_BLOCK_SIZE

struct sha512_ctx {
    uint64_t state[8];
    uint64_t bytes;                     /* message length so far (< 2^64); bytes % 128 in buf */
    uint8_t buf[SHA512_BLOCK_SIZE];
};

void sha512_init(struct sha512_ctx *ctx);
void sha512_update(struct sha512_ctx *ctx, const void *data, size_t len);
/* Writes the digest and wipes ctx (sha512_init it again to reuse). */
void sha512_final(struct sha512_ctx *ctx, uint8_t digest[SHA512_DIGEST_SIZE]);
/* One-shot: digest = SHA-512(data[0..len)). */
void sha512_buffer(const void *data, size_t len, uint8_t digest[SHA512_DIGEST_SIZE]);

void sha384_init(struct sha512_ctx *ctx);
void sha384_update(struct sha512_ctx *ctx, const void *data, size_t len);
/* Writes the digest and wipes ctx (sha384_init it again to reuse). */
void sha384_final(struct sha512_ctx *ctx, uint8_t digest[SHA384_DIGEST_SIZE]);
/* One-shot: digest = SHA-384(data[0..len)). */
void sha384_buffer(const void *data, size_t len, uint8_t digest[SHA384_DIGEST_SIZE]);

#endif
