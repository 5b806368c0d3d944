/* SPDX-License-Identifier: MIT */
/* The algorithm-agile layer: IDs, sizes, names, dispatch, and the PCR extend. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "crypto/hash.h"
#include "crypto_test_util.h"

struct alg_case {
    uint16_t alg;
    size_t size;
    const char *name;
    void (*direct)(const void *data, size_t len, uint8_t *digest);
    /* PCR from all zeros extended with H("abc"), then with H(""); computed with Python hashlib. */
    const char *extend1_hex, *extend2_hex;
};

static const struct alg_case cases[] = {
    { TPM_ALG_SHA1, 20, "sha1", sha1_buffer,
      "ccd5bd41458de644ac34a2478b58ff819bef5acf",
      "e341c8bf722eea72feda9cdd3acc6ebf852d52fb" },
    { TPM_ALG_SHA256, 32, "sha256", sha256_buffer,
      "589f9ffed4c477966bfb8d41f37895b08c69047df8f911d6f3b57fbe08faee8d",
      "ef6a5fdbba9e14e07fa74d23b7ae639d146ce41635cf3fe44315988c4cbd0caf" },
    { TPM_ALG_SHA384, 48, "sha384", sha384_buffer,
      "93732e3733514a841c982cfa75ea76ab55fe011acb9cd980ef4523913c65be1b"
      "0998e04d77f8c174f81a82151619ca40",
      "a4d392030aec0188324dac645cac0391f996c9a913563092cd9d7c55c3d86c0f"
      "109053c37d2974da85660814bf359bed" },
    { TPM_ALG_SHA512, 64, "sha512", sha512_buffer,
      "6b9e946755055542adba95a1588a7eaed86323b3bed97d602ee06839d734048e"
      "02c63f37892d3adde0d25b5a9d89162e8804ab9ec0ac4a263545c4faecfdf53b",
      "70532b8f57b0d70200956d122a702a1dacf1852b324488ed82b7957b6b551ed0"
      "83368c0615b455c45ab48f8003a7a9a08b16409f40d293666644bf30786d8c85" },
};

/* IDs that are not (or not yet) supported: TPM_ALG_ERROR, RSA, HMAC, SM3_256, SHA3_256, NULL. */
static const uint16_t unsupported[] = { 0x0000, 0x0001, 0x0005, 0x0012, 0x0027, 0x0010, 0xffff };

static void test_alg_ids_match_tcg_registry(void **state)
{
    (void)state;
    assert_int_equal(TPM_ALG_SHA1, 0x0004);
    assert_int_equal(TPM_ALG_SHA256, 0x000b);
    assert_int_equal(TPM_ALG_SHA384, 0x000c);
    assert_int_equal(TPM_ALG_SHA512, 0x000d);
    assert_true(HASH_MAX_DIGEST_SIZE >= 64);
}

static void test_sizes_and_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        assert_true(hash_alg_supported(cases[i].alg));
        assert_int_equal(tpm_hash_size(cases[i].alg), cases[i].size);
        assert_string_equal(tpm_hash_name(cases[i].alg), cases[i].name);
    }
}

static void test_unsupported_algs_fail_cleanly(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(unsupported); i++) {
        uint16_t alg = unsupported[i];
        uint8_t out[HASH_MAX_DIGEST_SIZE], pcr[HASH_MAX_DIGEST_SIZE];
        struct hash_ctx ctx;

        assert_false(hash_alg_supported(alg));
        assert_int_equal(tpm_hash_size(alg), 0);
        assert_null(tpm_hash_name(alg));
        memset(&ctx, 0xa5, sizeof(ctx));
        assert_int_equal(hash_init(&ctx, alg), -1);
        memset(out, 0xa5, sizeof(out));
        assert_int_equal(hash_buffer(alg, "abc", 3, out), -1);
        memset(pcr, 0x3c, sizeof(pcr));
        assert_int_equal(hash_extend(alg, pcr, out), -1);
        for (size_t j = 0; j < sizeof(pcr); j++) {
            assert_int_equal(out[j], 0xa5);
            assert_int_equal(pcr[j], 0x3c);
        }
    }
}

/* hash_buffer and streamed hash_* agree with the algorithm's own one-shot, for every alg. */
static void test_dispatch_matches_direct(void **state)
{
    enum { MAXLEN = 3000 };
    static uint8_t msg[MAXLEN];

    (void)state;
    test_rng_seed();
    for (int it = 0; it < 100; it++) {
        size_t len = test_rng_upto(MAXLEN);
        test_rng_fill(msg, len);
        for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
            uint8_t want[HASH_MAX_DIGEST_SIZE], got[HASH_MAX_DIGEST_SIZE + 1];
            struct hash_ctx ctx;
            size_t off = 0;

            cases[i].direct(msg, len, want);
            memset(got, 0xee, sizeof(got));
            assert_int_equal(hash_buffer(cases[i].alg, msg, len, got), 0);
            assert_memory_equal(got, want, cases[i].size);
            assert_int_equal(got[cases[i].size], 0xee);      /* wrote exactly size bytes */

            memset(got, 0xee, sizeof(got));
            assert_int_equal(hash_init(&ctx, cases[i].alg), 0);
            assert_int_equal(ctx.alg, cases[i].alg);
            while (off < len) {
                size_t n = test_rng_chunk(len - off);
                hash_update(&ctx, msg + off, n);
                off += n;
            }
            hash_final(&ctx, got);
            assert_memory_equal(got, want, cases[i].size);
            assert_int_equal(got[cases[i].size], 0xee);
            assert_true(all_zero(&ctx, sizeof(ctx)));        /* final wiped it */
        }
    }
}

static void test_extend_known_answers(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        uint16_t alg = cases[i].alg;
        size_t n = cases[i].size;
        uint8_t pcr[HASH_MAX_DIGEST_SIZE + 1], d[HASH_MAX_DIGEST_SIZE], want[HASH_MAX_DIGEST_SIZE];

        memset(pcr, 0, n);
        pcr[n] = 0xee;
        assert_int_equal(hash_buffer(alg, "abc", 3, d), 0);
        assert_int_equal(hash_extend(alg, pcr, d), 0);
        unhex(cases[i].extend1_hex, want, n);
        assert_memory_equal(pcr, want, n);
        assert_int_equal(hash_buffer(alg, "", 0, d), 0);
        assert_int_equal(hash_extend(alg, pcr, d), 0);
        unhex(cases[i].extend2_hex, want, n);
        assert_memory_equal(pcr, want, n);
        assert_int_equal(pcr[n], 0xee);                      /* wrote exactly size bytes */
    }
}

/* extend is H(pcr || digest) with the digest not reused from pcr, and works in place. */
static void test_extend_definition_and_aliasing(void **state)
{
    (void)state;
    test_rng_seed();
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        uint16_t alg = cases[i].alg;
        size_t n = cases[i].size;
        uint8_t pcr[HASH_MAX_DIGEST_SIZE], d[HASH_MAX_DIGEST_SIZE];
        uint8_t cat[2 * HASH_MAX_DIGEST_SIZE], want[HASH_MAX_DIGEST_SIZE];

        test_rng_fill(pcr, n);
        test_rng_fill(d, n);
        memcpy(cat, pcr, n);
        memcpy(cat + n, d, n);
        cases[i].direct(cat, 2 * n, want);
        assert_int_equal(hash_extend(alg, pcr, d), 0);
        assert_memory_equal(pcr, want, n);

        /* pcr == digest: H(x || x). */
        memcpy(cat, pcr, n);
        memcpy(cat + n, pcr, n);
        cases[i].direct(cat, 2 * n, want);
        assert_int_equal(hash_extend(alg, pcr, pcr), 0);
        assert_memory_equal(pcr, want, n);
    }
}

/*
 * hash_multi and hash_update_multi against one hash_buffer per algorithm: every subset of the
 * four banks (in both orders), lengths around the chunk size, random splits, unaligned data.
 */
static void test_multi_matches_separate_hashes(void **state)
{
    static const uint16_t all[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
                                    TPM_ALG_SHA512 };
    static const size_t lens[] = { 0, 1, 127, 128, 129, HASH_MULTI_CHUNK - 1, HASH_MULTI_CHUNK,
                                   HASH_MULTI_CHUNK + 1, 3 * HASH_MULTI_CHUNK + 333 };
    enum { MAX = 3 * HASH_MULTI_CHUNK + 333 + 8 };
    static uint8_t data[MAX];

    (void)state;
    test_rng_seed();
    test_rng_fill(data, sizeof(data));
    for (unsigned mask = 1; mask < 16; mask++) {
        for (int reverse = 0; reverse < 2; reverse++) {
            uint16_t algs[4];
            unsigned n = 0;
            for (unsigned i = 0; i < 4; i++)
                if (mask & (1u << i))
                    algs[n++] = all[reverse ? 3 - i : i];
            for (size_t l = 0; l < ARRAY_LEN(lens); l++) {
                uint8_t got[4][HASH_MAX_DIGEST_SIZE], want[HASH_MAX_DIGEST_SIZE];
                uint8_t *outs[4] = { got[0], got[1], got[2], got[3] };
                struct hash_ctx ctx[4];
                const uint8_t *p = data + l % 8;
                size_t len = lens[l], off = 0;

                assert_int_equal(hash_multi(algs, n, p, len, outs), 0);
                for (unsigned i = 0; i < n; i++) {
                    assert_int_equal(hash_buffer(algs[i], p, len, want), 0);
                    if (memcmp(got[i], want, tpm_hash_size(algs[i])))
                        fail_msg("hash_multi %s differs (mask %u, length %zu)",
                                 tpm_hash_name(algs[i]), mask, len);
                    assert_int_equal(hash_init(&ctx[i], algs[i]), 0);
                }
                while (off < len) {
                    size_t k = test_rng_chunk(len - off);
                    hash_update_multi(ctx, n, p + off, k);
                    off += k;
                }
                for (unsigned i = 0; i < n; i++) {
                    assert_int_equal(hash_buffer(algs[i], p, len, want), 0);
                    hash_final(&ctx[i], got[i]);
                    if (memcmp(got[i], want, tpm_hash_size(algs[i])))
                        fail_msg("hash_update_multi %s differs (mask %u, length %zu)",
                                 tpm_hash_name(algs[i]), mask, len);
                }
            }
        }
    }
}

/* More than four algorithms (a repeated bank) and an unsupported one. */
static void test_multi_edges(void **state)
{
    static const uint16_t six[] = { TPM_ALG_SHA256, TPM_ALG_SHA1, TPM_ALG_SHA512,
                                    TPM_ALG_SHA384, TPM_ALG_SHA256, TPM_ALG_SHA1 };
    static const uint16_t bad[] = { TPM_ALG_SHA256, 0x0012 /* SM3_256 */ };
    uint8_t got[6][HASH_MAX_DIGEST_SIZE], want[HASH_MAX_DIGEST_SIZE];
    uint8_t *outs[6] = { got[0], got[1], got[2], got[3], got[4], got[5] };
    static const char text[] = "one pass for every bank";

    (void)state;
    assert_int_equal(hash_multi(six, 6, text, sizeof(text) - 1, outs), 0);
    for (unsigned i = 0; i < 6; i++) {
        hash_buffer(six[i], text, sizeof(text) - 1, want);
        assert_memory_equal(got[i], want, tpm_hash_size(six[i]));
    }
    memset(got, 0xa5, sizeof(got));
    assert_int_equal(hash_multi(bad, 2, text, sizeof(text) - 1, outs), -1);
    for (size_t i = 0; i < sizeof(got[0]); i++)
        assert_int_equal(got[0][i], 0xa5);     /* nothing written */
    assert_int_equal(hash_multi(six, 0, text, sizeof(text) - 1, outs), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alg_ids_match_tcg_registry),
        cmocka_unit_test(test_sizes_and_names),
        cmocka_unit_test(test_unsupported_algs_fail_cleanly),
        cmocka_unit_test(test_dispatch_matches_direct),
        cmocka_unit_test(test_extend_known_answers),
        cmocka_unit_test(test_extend_definition_and_aliasing),
        cmocka_unit_test(test_multi_matches_separate_hashes),
        cmocka_unit_test(test_multi_edges),
    };
    return cmocka_run_group_tests_name("crypto/hash", tests, NULL, NULL);
}
