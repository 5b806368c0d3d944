/* SPDX-License-Identifier: MIT */
/* SHA-256: NIST known answers, streaming vs one-shot, wiping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "crypto/sha256.h"
#include "sha_test_common.h"

static const struct sha_kat sha256_kats[] = {
    { "", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
    { "abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
    { MSG_448, 1, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
    { MSG_896, 1, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
    { "a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
};

static void w_init(void *c) { sha256_init(c); }
static void w_update(void *c, const void *d, size_t n) { sha256_update(c, d, n); }
static void w_final(void *c, uint8_t *out) { sha256_final(c, out); }

static const struct sha_alg sha256_alg = {
    "sha256", SHA256_DIGEST_SIZE, SHA256_BLOCK_SIZE, sizeof(struct sha256_ctx),
    w_init, w_update, w_final, sha256_buffer, sha256_kats, ARRAY_LEN(sha256_kats),
};

int main(void)
{
    const struct CMUnitTest tests[] = {
        SHA_COMMON_TESTS("sha256", sha256_alg),
    };
    return cmocka_run_group_tests_name("crypto/sha256", tests, NULL, NULL);
}
