/* SPDX-License-Identifier: MIT */
/* SHA-384 and SHA-512: NIST known answers, streaming vs one-shot, wiping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "crypto/sha512.h"
#include "sha_test_common.h"

static const struct sha_kat sha384_kats[] = {
    { "", 1,
      "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da"
      "274edebfe76f65fbd51ad2f14898b95b" },
    { "abc", 1,
      "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
      "8086072ba1e7cc2358baeca134c825a7" },
    { MSG_448, 1,
      "3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05abfe8f450de5f36bc6"
      "b0455a8520bc4e6f5fe95b1fe3c8452b" },
    { MSG_896, 1,
      "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712"
      "fcc7c71a557e2db966c3e9fa91746039" },
    { "a", 1000000,
      "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b"
      "07b8b3dc38ecc4ebae97ddd87f3d8985" },
};

static const struct sha_kat sha512_kats[] = {
    { "", 1,
      "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
      "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e" },
    { "abc", 1,
      "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
      "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f" },
    { MSG_448, 1,
      "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c335"
      "96fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445" },
    { MSG_896, 1,
      "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
      "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909" },
    { "a", 1000000,
      "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
      "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b" },
};

static void w384_init(void *c) { sha384_init(c); }
static void w384_update(void *c, const void *d, size_t n) { sha384_update(c, d, n); }
static void w384_final(void *c, uint8_t *out) { sha384_final(c, out); }
static void w512_init(void *c) { sha512_init(c); }
static void w512_update(void *c, const void *d, size_t n) { sha512_update(c, d, n); }
static void w512_final(void *c, uint8_t *out) { sha512_final(c, out); }

static const struct sha_alg sha384_alg = {
    "sha384", SHA384_DIGEST_SIZE, SHA384_BLOCK_SIZE, sizeof(struct sha512_ctx),
    w384_init, w384_update, w384_final, sha384_buffer, sha384_kats, ARRAY_LEN(sha384_kats),
};

static const struct sha_alg sha512_alg = {
    "sha512", SHA512_DIGEST_SIZE, SHA512_BLOCK_SIZE, sizeof(struct sha512_ctx),
    w512_init, w512_update, w512_final, sha512_buffer, sha512_kats, ARRAY_LEN(sha512_kats),
};

/*
 * The 128-bit length field's high half (bytes >> 61) is used: with a faked count of 2^61 bytes
 * (2^64 bits) the low half is 0, so dropping the high half would make this equal the empty hash.
 */
static void test_sha512_length_field_high_half(void **state)
{
    struct sha512_ctx a, b;
    uint8_t da[SHA512_DIGEST_SIZE], db[SHA512_DIGEST_SIZE];

    (void)state;
    sha512_init(&a);
    sha512_init(&b);
    a.bytes = 1ull << 61;               /* 2^64 bits: only the high half of the field is set */
    b.bytes = 0;
    sha512_final(&a, da);
    sha512_final(&b, db);
    assert_memory_not_equal(da, db, sizeof(da));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        SHA_COMMON_TESTS("sha384", sha384_alg),
        SHA_COMMON_TESTS("sha512", sha512_alg),
        cmocka_unit_test(test_sha512_length_field_high_half),
    };
    return cmocka_run_group_tests_name("crypto/sha512", tests, NULL, NULL);
}
