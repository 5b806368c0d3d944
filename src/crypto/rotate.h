/* SPDX-License-Identifier: MIT */
/* Rotations for the hash and MAC code (gcc turns them into ror/rol). */
#ifndef CRYPTO_ROTATE_H
#define CRYPTO_ROTATE_H

#include <stdint.h>

static inline uint32_t rotr32(uint32_t x, unsigned n)
{
    return x >> n | x << (32 - n);
}

static inline uint32_t rotl32(uint32_t x, unsigned n)
{
    return x << n | x >> (32 - n);
}

static inline uint64_t rotr64(uint64_t x, unsigned n)
{
    return x >> n | x << (64 - n);
}

#endif
