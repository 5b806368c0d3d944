/* SPDX-License-Identifier: MIT */
/* The SHA-2 round constants (sha2_k.c), one table per family. */
#ifndef CRYPTO_SHA2_K_H
#define CRYPTO_SHA2_K_H

#include <stdint.h>

extern const uint32_t sha256_k[64];
extern const uint64_t sha512_k[80];

#endif
