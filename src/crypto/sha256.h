/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4 §6.2): streaming (init, update..., final) and one-shot. No dynamic memory;
 * the context is plain data and may be copied to fork a running hash. final wipes the context.
 */
#ifndef CRYPTO_SHA256_H
#define CRYPTO_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32u
#define SHA256_BLOCK_SIZE  64u

struct sha256_ctx {
    uint32_t state[8];
    uint64_t bytes;                     /* message length so far; bytes % 64 are in buf */
    uint8_t buf[SHA256_BLOCK_SIZE];
};

void sha256_init(struct sha256_ctx *ctx);
void sha256_update(struct sha256_ctx *ctx, const void *data, size_t len);
/* Writes the digest and wipes ctx (sha256_init it again to reuse). */
void sha256_final(struct sha256_ctx *ctx, uint8_t digest[SHA256_DIGEST_SIZE]);

/* One-shot: digest = SHA-256(data[0..len)). */
void sha256_buffer(const void *data, size_t len, uint8_t digest[SHA256_DIGEST_SIZE]);

#endif
