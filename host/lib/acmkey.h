/* SPDX-License-Identifier: MIT */
/*
 * The keys that sign SINIT ACMs for the emulated TXT platform (docs/txt-platform.md 3.3):
 * RSA-2048 with e = 65537 in PEM (private or public). The chipset's PUBLIC.KEY is SHA-256 of
 * the modulus as an ACM stores it (256 bytes, little-endian). vtboot-acm signs with them;
 * vtboot-qemu --txt gives QEMU the hash of one (-global intel-txt.sinit-key-hash=).
 */
#ifndef HOST_ACMKEY_H
#define HOST_ACMKEY_H

#include <openssl/evp.h>
#include <stddef.h>
#include <stdint.h>

#define ACMKEY_MODULUS_LEN 256
#define ACMKEY_HASH_LEN    32

/* The key in path; NULL with the reason in err if it cannot be read or is not RSA-2048 with
 * e = 65537. */
EVP_PKEY *acmkey_load(const char *path, char *err, size_t errsz);
/* k's modulus as an ACM stores it; -1 with the reason in err on an OpenSSL failure. */
int acmkey_modulus_le(EVP_PKEY *k, uint8_t out[ACMKEY_MODULUS_LEN], char *err, size_t errsz);
/* SHA-256 of the modulus of the key in path, as lowercase hex (65 bytes with the NUL). */
int acmkey_hash_hex(const char *path, char hex[2 * ACMKEY_HASH_LEN + 1], char *err, size_t errsz);

#endif
