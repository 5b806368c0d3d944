/* SPDX-License-Identifier: MIT */
/*
 * Hash algorithms by TPM 2.0 algorithm ID (TPM_ALG_ID, TCG Algorithm Registry), for PCR banks
 * and event logs: digest sizes, a streaming context over all of them, one-shot hashing, and
 * the PCR extend operation. Unsupported IDs are rejected: -1, 0, NULL or false, as each says.
 */
#ifndef CRYPTO_HASH_H
#define CRYPTO_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/tpm_hash.h"
#include "crypto/sha1.h"
#include "crypto/sha256.h"
#include "crypto/sha512.h"

#define HASH_MAX_DIGEST_SIZE SHA512_DIGEST_SIZE   /* 64 */

struct hash_ctx {
    uint16_t alg;                       /* a supported TPM_ALG_* */
    union {
        struct sha1_ctx sha1;
        struct sha256_ctx sha256;
        struct sha512_ctx sha512;       /* SHA-384 and SHA-512 */
    } u;
};

/* True if alg is one of the TPM_ALG_* above. */
bool hash_alg_supported(uint16_t alg);

/* Starts a hash; 0, or -1 (ctx untouched) if alg is not supported. */
int hash_init(struct hash_ctx *ctx, uint16_t alg);
/* ctx must have been started by a successful hash_init. */
void hash_update(struct hash_ctx *ctx, const void *data, size_t len);
/* Writes tpm_hash_size(ctx->alg) bytes to digest and wipes ctx. */
void hash_final(struct hash_ctx *ctx, uint8_t *digest);

/* One-shot: digest = H_alg(data[0..len)), tpm_hash_size(alg) bytes; 0, or -1 if unsupported. */
int hash_buffer(uint16_t alg, const void *data, size_t len, uint8_t *digest);

/*
 * PCR extend: pcr = H_alg(pcr || digest), both tpm_hash_size(alg) bytes; pcr and digest may
 * be the same buffer. 0, or -1 (pcr untouched) if alg is not supported.
 */
int hash_extend(uint16_t alg, uint8_t *pcr, const uint8_t *digest);

/*
 * One pass over a buffer for several hashes (a module measured into every PCR bank): data is
 * fed to ctx[0..n) HASH_MULTI_CHUNK bytes at a time, so each chunk is read from memory once and
 * is still in cache when the other contexts take it. Equivalent to hash_update on each context.
 */
#define HASH_MULTI_CHUNK (64u * 1024u)
void hash_update_multi(struct hash_ctx *ctx, unsigned n, const void *data, size_t len);

/*
 * One-shot over several algorithms: outs[i] = H_algs[i](data[0..len)), tpm_hash_size(algs[i])
 * bytes each. 0, or -1 (nothing written) if any algorithm is not supported.
 */
int hash_multi(const uint16_t *algs, unsigned n, const void *data, size_t len,
               uint8_t *const outs[]);

#endif
