/* SPDX-License-Identifier: MIT */
/*
 * Inside src/crypto: the block functions behind each algorithm's streaming API, one per
 * implementation, and the pointers crypto_set_impl (cpu.c) points at the chosen one.
 * The SIMD functions live in *_x86.c files; each of their functions carries its own
 * __attribute__((target(...))), so the rest of vtboot stays general-register only and
 * nothing runs a vector instruction before crypto_select says the CPU and OS allow it.
 */
#ifndef CRYPTO_IMPL_H
#define CRYPTO_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/cpu.h"
#include "crypto/poly1305.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define CRYPTO_X86 1
/*
 * Every SIMD entry point realigns its stack: vtboot's stack (and a caller built with
 * -mgeneral-regs-only) need not keep the 16-byte alignment that vector spills assume.
 */
#define CRYPTO_SIMD_ENTRY __attribute__((force_align_arg_pointer))
#else
#define CRYPTO_X86 0
#endif

/*
 * SHA-512's AVX2 path only for x86-64 (the host tools): in 32-bit mode its rounds' 64-bit
 * arithmetic runs in register pairs with most of it spilled, and its stack frame (over 3 KiB)
 * does not fit the 4 KiB per-CPU stacks of vtboot's shutdown path.
 */
#if CRYPTO_X86 && defined(__x86_64__)
#define CRYPTO_SHA512_AVX2 1
#else
#define CRYPTO_SHA512_AVX2 0
#endif

typedef void sha1_blocks_fn(uint32_t state[5], const uint8_t *p, size_t nblocks);
typedef void sha256_blocks_fn(uint32_t state[8], const uint8_t *p, size_t nblocks);
typedef void sha512_blocks_fn(uint64_t state[8], const uint8_t *p, size_t nblocks);
/*
 * Absorbs a prefix of nblocks full 16-byte blocks (a multiple of its lane count, at least
 * one group) into ctx->h; returns how many blocks it took. ctx->h is in the portable code's
 * form (26-bit limbs, h1 < 2^26 + 2^6) before and after.
 */
typedef size_t poly1305_blocks_fn(struct poly1305_ctx *ctx, const uint8_t *m, size_t nblocks);

/*
 * The installed paths; NULL (the initial value: vtboot has no initialized writable data, see
 * vtboot.ld) means the portable code. Each is defined in its algorithm's file.
 */
extern sha1_blocks_fn *crypto_sha1_blocks;
extern sha256_blocks_fn *crypto_sha256_blocks;
extern sha512_blocks_fn *crypto_sha512_blocks;
extern poly1305_blocks_fn *crypto_poly1305_blocks;

sha1_blocks_fn sha1_blocks_portable;
sha256_blocks_fn sha256_blocks_portable;
sha512_blocks_fn sha512_blocks_portable;

#define CRYPTO_CALL_BLOCKS(ptr, portable, state, p, n)                                         \
    do {                                                                                       \
        if (ptr)                                                                               \
            ptr(state, p, n);                                                                  \
        else                                                                                   \
            portable(state, p, n);                                                             \
    } while (0)

#if CRYPTO_X86
sha1_blocks_fn sha1_blocks_shani;
sha256_blocks_fn sha256_blocks_shani;
poly1305_blocks_fn poly1305_blocks_sse2, poly1305_blocks_avx2, poly1305_blocks_avx512;
#endif
#if CRYPTO_SHA512_AVX2
sha512_blocks_fn sha512_blocks_avx2;
#endif

/* True if this build has that path (the CPU may still lack it). */
bool crypto_impl_built(enum crypto_alg alg, enum crypto_impl impl);

/* Poly1305 helpers for the SIMD paths (poly1305.c). */
/* Makes ctx->rpow[0..n-1] = r^1..r^n (n <= POLY1305_MAX_POWERS), each limb < 2^26 + 2^6. */
void poly1305_powers(struct poly1305_ctx *ctx, unsigned n);
/* Carries five limb sums (each below 2^61) into the form ctx->h must have. */
void poly1305_set_h(struct poly1305_ctx *ctx, const uint64_t sum[5]);

#endif
