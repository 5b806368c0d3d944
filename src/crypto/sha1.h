/* SPDX-License-Identifier: MIT */
/*
 * SHA-1 (FIPS 180-4 §6.1): streaming (init, update..., final) and one-shot. Here only for the
 * TPM's SHA-1 PCR bank and tboot compatibility, not for anything that needs collision resistance.
 * No dynamic memory; the context is plain data. final wipes the context.
 */
#ifndef CRYPTO_SHA1_H
#define CRYPTO_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_DIGEST_SIZE 20u
#define SHA1_BLOCK_SIZE  64u

struct sha1_ctx {
    uint32_t state[5];
    uint64_t bytes;                     /* message length so far; bytes % 64 are in buf */
    uint8_t buf[SHA1_BLOCK_SIZE];
};

void sha1_init(struct sha1_ctx *ctx);
void sha1_update(struct sha1_ctx *ctx, const void *data, size_t len);
/* Writes the digest and wipes ctx (sha1_init it again to reuse). */
void sha1_final(struct sha1_ctx *ctx, uint8_t digest[SHA1_DIGEST_SIZE]);

/* One-shot: digest = SHA-1(data[0..len)). */
void sha1_buffer(const void *data, size_t len, uint8_t digest[SHA1_DIGEST_SIZE]);

#endif
