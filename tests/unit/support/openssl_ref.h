/* SPDX-License-Identifier: MIT */
/*
 * Reference hashes from OpenSSL's libcrypto, to check vtboot's own results independently.
 * A test using this links with -lcrypto (UNIT_LDLIBS.<dir>/<name>_test in tests/unit.mk).
 */
#ifndef TESTS_OPENSSL_REF_H
#define TESTS_OPENSSL_REF_H

#include <stddef.h>
#include <stdint.h>

/* Digest size for a TPM_ALG_ID (SHA-1/256/384/512), 0 for any other. */
size_t ref_digest_size(uint16_t alg);
/* out = H_alg(data); aborts on an algorithm OpenSSL is not asked for. */
void ref_hash(uint16_t alg, const void *data, size_t len, uint8_t *out);
/* out = H_alg(a || b) */
void ref_hash2(uint16_t alg, const void *a, size_t alen, const void *b, size_t blen,
               uint8_t *out);
/* pcr = H_alg(pcr || digest), both ref_digest_size(alg) bytes */
void ref_extend(uint16_t alg, uint8_t *pcr, const uint8_t *digest);

#endif
