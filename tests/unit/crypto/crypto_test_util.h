/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the crypto unit tests: hex decoding, a seeded PRNG (set VTBOOT_TEST_SEED to
 * reproduce or vary a run; the seed in use is printed), random stream splitting.
 * Include after <cmocka.h>.
 */
#ifndef TESTS_UNIT_CRYPTO_TEST_UTIL_H
#define TESTS_UNIT_CRYPTO_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Decodes hex (spaces and colons ignored) into out; fails the test unless exactly `len` bytes. */
static inline void unhex(const char *hex, uint8_t *out, size_t len)
{
    size_t n = 0;
    int hi = -1;

    for (; *hex; hex++) {
        int v = 0;
        if (*hex == ' ' || *hex == ':' || *hex == '\n')
            continue;
        if (*hex >= '0' && *hex <= '9')
            v = *hex - '0';
        else if (*hex >= 'a' && *hex <= 'f')
            v = *hex - 'a' + 10;
        else if (*hex >= 'A' && *hex <= 'F')
            v = *hex - 'A' + 10;
        else
            fail_msg("bad hex character '%c'", *hex);
        if (hi < 0) {
            hi = v;
            continue;
        }
        assert_true(n < len);
        out[n++] = (uint8_t)(hi << 4 | v);
        hi = -1;
    }
    assert_int_equal(hi, -1);
    assert_int_equal(n, len);
}

/* splitmix64: tiny, seedable, good enough for test data. */
static uint64_t test_rng_state;

static inline void test_rng_seed(void)
{
    const char *env = getenv("VTBOOT_TEST_SEED");
    test_rng_state = env ? strtoull(env, NULL, 0) : 0x7674626f6f74ull;  /* "vtboot" */
    print_message("VTBOOT_TEST_SEED=%llu\n", (unsigned long long)test_rng_state);
}

static inline uint64_t test_rng_next(void)
{
    uint64_t z = (test_rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform-enough value in [0, n]. */
static inline size_t test_rng_upto(size_t n)
{
    return (size_t)(test_rng_next() % ((uint64_t)n + 1));
}

static inline void test_rng_fill(uint8_t *p, size_t len)
{
    while (len) {
        uint64_t v = test_rng_next();
        size_t k = len < 8 ? len : 8;
        memcpy(p, &v, k);
        p += k;
        len -= k;
    }
}

/* The next chunk length for a random split: mostly small (including 0), sometimes large. */
static inline size_t test_rng_chunk(size_t remaining)
{
    size_t max;

    switch (test_rng_next() % 4) {
    case 0:
        max = 3;
        break;
    case 1:
        max = 70;
        break;
    case 2:
        max = 300;
        break;
    default:
        max = remaining;
        break;
    }
    if (max > remaining)
        max = remaining;
    return test_rng_upto(max);
}

static inline int all_zero(const void *p, size_t len)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < len; i++)
        if (b[i])
            return 0;
    return 1;
}

/* The NIST example messages (FIPS 180-4 examples, CSRC "Examples with Intermediate Values"). */
#define MSG_448 "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
#define MSG_896                                                                                \
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrl" \
    "mnopqrsmnopqrstnopqrstu"

#endif
