/* SPDX-License-Identifier: MIT */
/* SHA-1: NIST known answers, streaming vs one-shot, wiping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "crypto/sha1.h"
#include "sha_test_common.h"

static const struct sha_kat sha1_kats[] = {
    { "", 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
    { "abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d" },
    { MSG_448, 1, "84983e441c3bd26ebaae4aa1f95129e5e54670f1" },
    { MSG_896, 1, "a49b2446a02c645bf419f995b67091253a04a259" },
    { "a", 1000000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f" },
};

static void w_init(void *c) { sha1_init(c); }
static void w_update(void *c, const void *d, size_t n) { sha1_update(c, d, n); }
static void w_final(void *c, uint8_t *out) { sha1_final(c, out); }

static const struct sha_alg sha1_alg = {
    "sha1", SHA1_DIGEST_SIZE, SHA1_BLOCK_SIZE, sizeof(struct sha1_ctx),
    w_init, w_update, w_final, sha1_buffer, sha1_kats, ARRAY_LEN(sha1_kats),
};

int main(void)
{
    const struct CMUnitTest tests[] = {
        SHA_COMMON_TESTS("sha1", sha1_alg),
    };
    return cmocka_run_group_tests_name("crypto/sha1", tests, NULL, NULL);
}
