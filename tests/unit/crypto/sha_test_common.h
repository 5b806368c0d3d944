/* SPDX-License-Identifier: MIT */
/*
 * Tests shared by sha1_test.c, sha256_test.c and sha512_test.c: each describes its algorithm(s)
 * with a struct sha_alg (wrappers around the real API) and a known-answer table, and passes the
 * struct as the cmocka prestate. Include after <cmocka.h>.
 */
#ifndef TESTS_UNIT_CRYPTO_SHA_TEST_COMMON_H
#define TESTS_UNIT_CRYPTO_SHA_TEST_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crypto_test_util.h"

#define SHA_TEST_MAX_DIGEST 64
#define SHA_TEST_MAX_CTX    256

struct sha_kat {
    const char *msg;
    size_t repeat;                      /* msg is hashed this many times over (1 usually) */
    const char *digest_hex;
};

struct sha_alg {
    const char *name;
    size_t digest_size, block_size, ctx_size;
    void (*init)(void *ctx);
    void (*update)(void *ctx, const void *data, size_t len);
    void (*final)(void *ctx, uint8_t *digest);
    void (*oneshot)(const void *data, size_t len, uint8_t *digest);
    const struct sha_kat *kats;
    size_t nkats;
};

static void sha_expect(const struct sha_alg *alg, const uint8_t *got, const char *hex)
{
    uint8_t want[SHA_TEST_MAX_DIGEST];

    unhex(hex, want, alg->digest_size);
    assert_memory_equal(got, want, alg->digest_size);
}

/* Streams a message in `chunk`-byte updates (the last one shorter). */
static void sha_stream(const struct sha_alg *alg, const uint8_t *msg, size_t len, size_t chunk,
                       uint8_t *digest)
{
    _Alignas(16) uint8_t ctx[SHA_TEST_MAX_CTX];

    alg->init(ctx);
    for (size_t off = 0; off < len; off += chunk)
        alg->update(ctx, msg + off, len - off < chunk ? len - off : chunk);
    alg->final(ctx, digest);
}

/* Every short known answer, one-shot and streamed byte by byte and in 7- and 64-byte chunks. */
static void test_sha_kats(void **state)
{
    const struct sha_alg *alg = *state;
    uint8_t digest[SHA_TEST_MAX_DIGEST];

    for (size_t i = 0; i < alg->nkats; i++) {
        const struct sha_kat *k = &alg->kats[i];
        const uint8_t *msg = (const uint8_t *)k->msg;
        size_t len = strlen(k->msg);
        static const size_t chunks[] = { 1, 7, 64 };

        if (k->repeat != 1)
            continue;
        alg->oneshot(msg, len, digest);
        sha_expect(alg, digest, k->digest_hex);
        for (size_t c = 0; c < ARRAY_LEN(chunks); c++) {
            memset(digest, 0, sizeof(digest));
            sha_stream(alg, msg, len, chunks[c], digest);
            sha_expect(alg, digest, k->digest_hex);
        }
    }
}

/* The repeated known answers (one million 'a'): one-shot over the whole buffer, and streamed. */
static void test_sha_kats_repeated(void **state)
{
    const struct sha_alg *alg = *state;
    uint8_t digest[SHA_TEST_MAX_DIGEST];
    int ran = 0;

    for (size_t i = 0; i < alg->nkats; i++) {
        const struct sha_kat *k = &alg->kats[i];
        size_t mlen = strlen(k->msg), len = mlen * k->repeat;
        static const size_t chunks[] = { 997, 1000, 4096, 65536 };
        uint8_t *buf;

        if (k->repeat == 1)
            continue;
        buf = malloc(len);
        assert_non_null(buf);
        for (size_t r = 0; r < k->repeat; r++)
            memcpy(buf + r * mlen, k->msg, mlen);
        alg->oneshot(buf, len, digest);
        sha_expect(alg, digest, k->digest_hex);
        for (size_t c = 0; c < ARRAY_LEN(chunks); c++) {
            memset(digest, 0, sizeof(digest));
            sha_stream(alg, buf, len, chunks[c], digest);
            sha_expect(alg, digest, k->digest_hex);
        }
        free(buf);
        ran++;
    }
    assert_true(ran > 0);
}

/* Random messages split at random points (empty updates included) hash as in one shot. */
static void test_sha_random_splits(void **state)
{
    const struct sha_alg *alg = *state;
    enum { MAXLEN = 5000, ITERS = 400 };
    uint8_t *msg = malloc(MAXLEN);

    assert_non_null(msg);
    test_rng_seed();
    for (int it = 0; it < ITERS; it++) {
        _Alignas(16) uint8_t ctx[SHA_TEST_MAX_CTX];
        uint8_t want[SHA_TEST_MAX_DIGEST], got[SHA_TEST_MAX_DIGEST];
        size_t len = test_rng_upto(MAXLEN), off = 0, updates = 0;

        test_rng_fill(msg, len);
        alg->oneshot(msg, len, want);
        alg->init(ctx);
        while (off < len || (updates < 2 && test_rng_next() % 2)) {
            size_t n = test_rng_chunk(len - off);
            alg->update(ctx, msg + off, n);
            off += n;
            updates++;
        }
        alg->final(ctx, got);
        if (memcmp(got, want, alg->digest_size))
            fail_msg("%s: iteration %d, len %zu, %zu updates differ from one-shot", alg->name, it,
                     len, updates);
    }
    free(msg);
}

/*
 * Around the padding boundaries (block - 9 .. block, i.e. where the length field stops fitting)
 * and across several blocks: every length 0..3 blocks+1, every two-way split point of it.
 */
static void test_sha_boundary_splits(void **state)
{
    const struct sha_alg *alg = *state;
    size_t maxlen = 3 * alg->block_size + 1;
    uint8_t *msg = malloc(maxlen);

    assert_non_null(msg);
    for (size_t i = 0; i < maxlen; i++)
        msg[i] = (uint8_t)(i * 31 + 7);
    for (size_t len = 0; len <= maxlen; len++) {
        uint8_t want[SHA_TEST_MAX_DIGEST], got[SHA_TEST_MAX_DIGEST];

        alg->oneshot(msg, len, want);
        for (size_t cut = 0; cut <= len; cut++) {
            _Alignas(16) uint8_t ctx[SHA_TEST_MAX_CTX];
            alg->init(ctx);
            alg->update(ctx, msg, cut);
            alg->update(ctx, msg + cut, len - cut);
            alg->final(ctx, got);
            if (memcmp(got, want, alg->digest_size))
                fail_msg("%s: len %zu split at %zu differs", alg->name, len, cut);
        }
    }
    free(msg);
}

/* The result does not depend on the input's alignment. */
static void test_sha_unaligned_input(void **state)
{
    const struct sha_alg *alg = *state;
    enum { LEN = 1000 };
    uint8_t *buf = malloc(LEN + 16);
    uint8_t want[SHA_TEST_MAX_DIGEST], got[SHA_TEST_MAX_DIGEST];

    assert_non_null(buf);
    for (size_t i = 0; i < LEN + 16; i++)
        buf[i] = (uint8_t)(i ^ 0x5a);
    alg->oneshot(buf, LEN, want);
    for (size_t shift = 1; shift < 16; shift++) {
        memmove(buf + shift, buf + shift - 1, LEN);
        alg->oneshot(buf + shift, LEN, got);
        assert_memory_equal(got, want, alg->digest_size);
    }
    free(buf);
}

/* final leaves nothing of the state behind. */
static void test_sha_final_wipes_context(void **state)
{
    const struct sha_alg *alg = *state;
    _Alignas(16) uint8_t ctx[SHA_TEST_MAX_CTX];
    uint8_t digest[SHA_TEST_MAX_DIGEST];

    assert_true(alg->ctx_size <= sizeof(ctx));
    alg->init(ctx);
    alg->update(ctx, "secret material, not a whole block", 34);
    alg->final(ctx, digest);
    assert_true(all_zero(ctx, alg->ctx_size));
}

/* A context is plain data: a copy taken mid-stream continues independently. */
static void test_sha_context_copy_forks(void **state)
{
    const struct sha_alg *alg = *state;
    _Alignas(16) uint8_t a[SHA_TEST_MAX_CTX];
    _Alignas(16) uint8_t b[SHA_TEST_MAX_CTX];
    uint8_t da[SHA_TEST_MAX_DIGEST], db[SHA_TEST_MAX_DIGEST], want[SHA_TEST_MAX_DIGEST];
    static const char msg[] = "prefix shared by both|suffix one|suffix two";

    alg->init(a);
    alg->update(a, msg, 22);
    memcpy(b, a, alg->ctx_size);
    alg->update(a, msg + 22, 10);
    alg->update(b, msg + 32, 10);
    alg->final(a, da);
    alg->final(b, db);

    uint8_t joined[32];
    memcpy(joined, msg, 22);
    memcpy(joined + 22, msg + 22, 10);
    alg->oneshot(joined, 32, want);
    assert_memory_equal(da, want, alg->digest_size);
    memcpy(joined + 22, msg + 32, 10);
    alg->oneshot(joined, 32, want);
    assert_memory_equal(db, want, alg->digest_size);
}

/* The shared tests for one algorithm, named "<name>/<test>". */
#define SHA_TEST(prefix, f, alg) { prefix "/" #f, f, NULL, NULL, (void *)&(alg) }
#define SHA_COMMON_TESTS(prefix, alg)                                                          \
    SHA_TEST(prefix, test_sha_kats, alg),                                                      \
    SHA_TEST(prefix, test_sha_kats_repeated, alg),                                             \
    SHA_TEST(prefix, test_sha_random_splits, alg),                                             \
    SHA_TEST(prefix, test_sha_boundary_splits, alg),                                           \
    SHA_TEST(prefix, test_sha_unaligned_input, alg),                                           \
    SHA_TEST(prefix, test_sha_final_wipes_context, alg),                                       \
    SHA_TEST(prefix, test_sha_context_copy_forks, alg)

#endif
