/* SPDX-License-Identifier: MIT */
/*
 * Our SHA-1/256/384/512 and Poly1305 against OpenSSL's libcrypto (EVP_Digest, EVP_MAC
 * "POLY1305") over random data of random lengths 0..100 KiB, one-shot and streamed, through
 * every implementation path this CPU can run (portable, SSE2, AVX2, AVX-512, SHA-NI: each
 * forced in turn with crypto_set_impl; the paths run are printed): every length 0..700, odd
 * and large lengths, buffers at every alignment 0..15, streams split at random points.
 *
 * Link with -lcrypto (not with -Wl,--as-needed in effect: all references are weak). The OpenSSL
 * functions are weak references so that the file still links without -lcrypto; the tests then
 * report themselves as skipped instead of breaking the build.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <openssl/evp.h>

#pragma weak EVP_Digest
#pragma weak EVP_sha1
#pragma weak EVP_sha256
#pragma weak EVP_sha384
#pragma weak EVP_sha512
#pragma weak EVP_MAC_fetch
#pragma weak EVP_MAC_free
#pragma weak EVP_MAC_CTX_new
#pragma weak EVP_MAC_CTX_free
#pragma weak EVP_MAC_init
#pragma weak EVP_MAC_update
#pragma weak EVP_MAC_final

#include "crypto/cpu.h"
#include "crypto/hash.h"
#include "crypto/poly1305.h"
#include "crypto_test_util.h"

enum { MAXLEN = 100 * 1024, RANDOM_ITERS = 150, EXHAUSTIVE_LEN = 700, BIGLEN = (3 << 20) + 77 };

static uint8_t *msg;
static struct cpu_features cpu;

/* Skips the calling test when the binary was linked without libcrypto. */
#define REQUIRE_LIBCRYPTO()                                                                    \
    do {                                                                                       \
        if (!EVP_Digest || !EVP_MAC_fetch) {                                                   \
            print_message("libcrypto not linked (build with -lcrypto): skipping\n");          \
            skip();                                                                            \
        }                                                                                      \
    } while (0)

static int setup(void **state)
{
    (void)state;
    cpu_features_read(&cpu, true);      /* a host OS has SSE (and AVX, if XCR0 says so) on */
    msg = malloc(BIGLEN + 16);
    return msg ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(msg);
    return 0;
}

static const EVP_MD *openssl_md(uint16_t alg)
{
    switch (alg) {
    case TPM_ALG_SHA1:
        return EVP_sha1();
    case TPM_ALG_SHA256:
        return EVP_sha256();
    case TPM_ALG_SHA384:
        return EVP_sha384();
    default:
        return EVP_sha512();
    }
}

static void openssl_poly1305(const uint8_t key[32], const uint8_t *data, size_t len,
                             uint8_t tag[16])
{
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
    EVP_MAC_CTX *ctx;
    size_t out = 0;

    assert_non_null(mac);
    ctx = EVP_MAC_CTX_new(mac);
    assert_non_null(ctx);
    assert_int_equal(EVP_MAC_init(ctx, key, 32, NULL), 1);
    assert_int_equal(EVP_MAC_update(ctx, data, len), 1);
    assert_int_equal(EVP_MAC_final(ctx, tag, &out, 16), 1);
    assert_int_equal(out, 16);
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
}

static enum crypto_alg crypto_alg_of(uint16_t alg)
{
    switch (alg) {
    case TPM_ALG_SHA1:
        return CRYPTO_ALG_SHA1;
    case TPM_ALG_SHA256:
        return CRYPTO_ALG_SHA256;
    default:
        return CRYPTO_ALG_SHA512;
    }
}

/* One message through one algorithm: ours one-shot and streamed at random points vs OpenSSL. */
static void check_hash(uint16_t alg, const uint8_t *data, size_t len)
{
    uint8_t want[EVP_MAX_MD_SIZE], got[HASH_MAX_DIGEST_SIZE];
    unsigned int wlen = 0;
    size_t n = tpm_hash_size(alg), off = 0;
    struct hash_ctx ctx;

    assert_int_equal(EVP_Digest(data, len, want, &wlen, openssl_md(alg), NULL), 1);
    assert_int_equal(wlen, n);
    assert_int_equal(hash_buffer(alg, data, len, got), 0);
    if (memcmp(got, want, n))
        fail_msg("%s (%s path) one-shot differs from OpenSSL at length %zu", tpm_hash_name(alg),
                 crypto_impl_name(crypto_current_impl(crypto_alg_of(alg))), len);
    assert_int_equal(hash_init(&ctx, alg), 0);
    while (off < len) {
        size_t k = test_rng_chunk(len - off);
        hash_update(&ctx, data + off, k);
        off += k;
    }
    hash_final(&ctx, got);
    if (memcmp(got, want, n))
        fail_msg("%s (%s path) streamed differs from OpenSSL at length %zu", tpm_hash_name(alg),
                 crypto_impl_name(crypto_current_impl(crypto_alg_of(alg))), len);
}

static void check_poly1305(const uint8_t key[32], const uint8_t *data, size_t len)
{
    uint8_t want[16], got[16];
    struct poly1305_ctx ctx;
    size_t off = 0;

    openssl_poly1305(key, data, len, want);
    poly1305_mac(key, data, len, got);
    if (memcmp(got, want, 16))
        fail_msg("poly1305 (%s path) one-shot differs from OpenSSL at length %zu",
                 crypto_impl_name(crypto_current_impl(CRYPTO_ALG_POLY1305)), len);
    assert_true(poly1305_verify(got, want));
    poly1305_init(&ctx, key);
    while (off < len) {
        size_t k = test_rng_chunk(len - off);
        poly1305_update(&ctx, data + off, k);
        off += k;
    }
    poly1305_final(&ctx, got);
    if (memcmp(got, want, 16))
        fail_msg("poly1305 (%s path) streamed differs from OpenSSL at length %zu",
                 crypto_impl_name(crypto_current_impl(CRYPTO_ALG_POLY1305)), len);
}

static const uint16_t algs[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384, TPM_ALG_SHA512 };

/* True (and the path installed) if this CPU can run path impl of alg. */
static bool use_path(enum crypto_alg alg, int impl)
{
    if (!crypto_impl_usable(&cpu, alg, (enum crypto_impl)impl))
        return false;
    assert_int_equal(crypto_set_impl(alg, (enum crypto_impl)impl), 0);
    assert_int_equal(crypto_current_impl(alg), impl);
    return true;
}

/* Runs the statement after it once per path of alg that this CPU can run (portable always). */
#define FOR_EACH_PATH(alg, impl_var)                                                           \
    for (int impl_var = 0; impl_var < CRYPTO_IMPL_COUNT; impl_var++)                           \
        if (use_path(alg, impl_var))

static int teardown_paths(void **state)
{
    (void)state;
    crypto_select_portable();
    return 0;
}

static void report_paths(void)
{
    for (int a = 0; a < CRYPTO_ALG_COUNT; a++) {
        print_message("%s:", crypto_alg_label((enum crypto_alg)a));
        for (int i = 0; i < CRYPTO_IMPL_COUNT; i++)
            if (crypto_impl_usable(&cpu, (enum crypto_alg)a, (enum crypto_impl)i))
                print_message(" %s", crypto_impl_name((enum crypto_impl)i));
        print_message("\n");
    }
}

static void test_hashes_random_lengths(void **state)
{
    (void)state;
    REQUIRE_LIBCRYPTO();
    report_paths();
    for (size_t a = 0; a < ARRAY_LEN(algs); a++) {
        FOR_EACH_PATH(crypto_alg_of(algs[a]), impl) {
            test_rng_seed();
            for (int it = 0; it < RANDOM_ITERS; it++) {
                size_t len = test_rng_upto(MAXLEN), align = test_rng_upto(15);
                test_rng_fill(msg + align, len);
                check_hash(algs[a], msg + align, len);
            }
        }
    }
}

/* Every length 0..EXHAUSTIVE_LEN, each at an alignment of its own (len mod 16). */
static void test_hashes_every_short_length(void **state)
{
    (void)state;
    REQUIRE_LIBCRYPTO();
    test_rng_seed();
    test_rng_fill(msg, EXHAUSTIVE_LEN + 16);
    for (size_t a = 0; a < ARRAY_LEN(algs); a++)
        FOR_EACH_PATH(crypto_alg_of(algs[a]), impl)
            for (size_t len = 0; len <= EXHAUSTIVE_LEN; len++)
                check_hash(algs[a], msg + len % 16, len);
}

/* A few large odd lengths, unaligned: the multi-block loops run long. */
static void test_hashes_large(void **state)
{
    static const size_t lens[] = { (1 << 20) + 1, BIGLEN };

    (void)state;
    REQUIRE_LIBCRYPTO();
    test_rng_seed();
    test_rng_fill(msg, BIGLEN + 16);
    for (size_t a = 0; a < ARRAY_LEN(algs); a++)
        FOR_EACH_PATH(crypto_alg_of(algs[a]), impl)
            for (size_t l = 0; l < ARRAY_LEN(lens); l++)
                check_hash(algs[a], msg + 3 + l, lens[l]);
}

static void test_poly1305_random_lengths(void **state)
{
    uint8_t key[32];

    (void)state;
    REQUIRE_LIBCRYPTO();
    FOR_EACH_PATH(CRYPTO_ALG_POLY1305, impl) {
        test_rng_seed();
        for (int it = 0; it < RANDOM_ITERS; it++) {
            size_t len = test_rng_upto(MAXLEN), align = test_rng_upto(15);
            test_rng_fill(key, sizeof(key));
            test_rng_fill(msg + align, len);
            check_poly1305(key, msg + align, len);
        }
    }
}

static void test_poly1305_every_short_length(void **state)
{
    uint8_t key[32];

    (void)state;
    REQUIRE_LIBCRYPTO();
    FOR_EACH_PATH(CRYPTO_ALG_POLY1305, impl) {
        test_rng_seed();
        for (size_t len = 0; len <= EXHAUSTIVE_LEN; len++) {
            test_rng_fill(key, sizeof(key));
            test_rng_fill(msg + len % 16, len);
            check_poly1305(key, msg + len % 16, len);
        }
    }
}

static void test_poly1305_large(void **state)
{
    uint8_t key[32];

    (void)state;
    REQUIRE_LIBCRYPTO();
    test_rng_seed();
    test_rng_fill(msg, BIGLEN + 16);
    FOR_EACH_PATH(CRYPTO_ALG_POLY1305, impl) {
        test_rng_fill(key, sizeof(key));
        check_poly1305(key, msg + 5, BIGLEN);
        memset(key, 0xff, sizeof(key));
        check_poly1305(key, msg + 1, (1 << 20) + 15);
    }
}

/* Extreme limb values: all-ones / all-zero keys and messages, and random mixes of 0x00/0xff. */
static void poly1305_extreme_values_once(void)
{
    static const size_t lens[] = { 0, 1, 15, 16, 17, 31, 32, 33, 64, 1000, 16384, MAXLEN };
    uint8_t key[32];

    test_rng_seed();
    for (int kind = 0; kind < 4; kind++) {
        for (size_t l = 0; l < ARRAY_LEN(lens); l++) {
            size_t len = lens[l];
            memset(key, kind & 1 ? 0xff : 0x00, 16);
            memset(key + 16, kind & 2 ? 0xff : 0x00, 16);
            memset(msg, 0xff, len);
            check_poly1305(key, msg, len);
            for (size_t i = 0; i < len; i++)
                msg[i] = test_rng_next() & 1 ? 0xff : 0x00;
            check_poly1305(key, msg, len);
        }
    }
    for (int it = 0; it < 200; it++) {
        for (size_t i = 0; i < sizeof(key); i++)
            key[i] = test_rng_next() & 1 ? 0xff : 0x00;
        size_t len = test_rng_upto(2048);
        for (size_t i = 0; i < len; i++)
            msg[i] = test_rng_next() & 1 ? 0xff : (uint8_t)test_rng_next();
        check_poly1305(key, msg, len);
    }
}

static void test_poly1305_extreme_values(void **state)
{
    (void)state;
    REQUIRE_LIBCRYPTO();
    FOR_EACH_PATH(CRYPTO_ALG_POLY1305, impl)
        poly1305_extreme_values_once();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_hashes_random_lengths, teardown_paths),
        cmocka_unit_test_teardown(test_hashes_every_short_length, teardown_paths),
        cmocka_unit_test_teardown(test_hashes_large, teardown_paths),
        cmocka_unit_test_teardown(test_poly1305_random_lengths, teardown_paths),
        cmocka_unit_test_teardown(test_poly1305_every_short_length, teardown_paths),
        cmocka_unit_test_teardown(test_poly1305_large, teardown_paths),
        cmocka_unit_test_teardown(test_poly1305_extreme_values, teardown_paths),
    };
    return cmocka_run_group_tests_name("crypto/openssl_compare", tests, setup, teardown);
}
