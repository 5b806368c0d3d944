/* SPDX-License-Identifier: MIT */
/* Poly1305: RFC 8439 §2.5.2 and Appendix A.3 vectors, streaming, verify, wiping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "crypto/poly1305.h"
#include "crypto_test_util.h"

#define IETF_TEXT                                                                              \
    "Any submission to the IETF intended by the Contributor for publication as all or part of " \
    "an IETF Internet-Draft or RFC and any statement made within the context of an IETF "      \
    "activity is considered an \"IETF Contribution\". Such statements include oral "           \
    "statements in IETF sessions, as well as written and electronic communications made at "   \
    "any time or place, which are addressed to"

#define JABBERWOCKY                                                                            \
    "'Twas brillig, and the slithy toves\nDid gyre and gimble in the wabe:\n"                  \
    "All mimsy were the borogoves,\nAnd the mome raths outgrabe."

#define Z16 "00000000000000000000000000000000"

struct poly_kat {
    const char *name;
    const char *key_hex;                /* r || s */
    const char *text;                   /* ASCII text, or NULL to use text_hex */
    const char *text_hex;
    const char *tag_hex;
};

static const struct poly_kat kats[] = {
    { "RFC 8439 2.5.2",
      "85d6be7857556d337f4452fe42d506a8 0103808afb0db2fd4abff6af4149f51b",
      "Cryptographic Forum Research Group", NULL, "a8061dc1305136c6c22b8baf0c0127a9" },
    { "A.3 #1", Z16 Z16, NULL, Z16 Z16 Z16 Z16, Z16 },
    { "A.3 #2", Z16 "36e5f6b5c5e06070f0efca96227a863e", IETF_TEXT, NULL,
      "36e5f6b5c5e06070f0efca96227a863e" },
    { "A.3 #3", "36e5f6b5c5e06070f0efca96227a863e" Z16, IETF_TEXT, NULL,
      "f3477e7cd95417af89a6b8794c310cf0" },
    { "A.3 #4",
      "1c9240a5eb55d38af333888604f6b5f0 473917c1402b80099dca5cbc207075c0", JABBERWOCKY, NULL,
      "4541669a7eaaee61e708dc7cbcc5eb62" },
    { "A.3 #5", "02000000000000000000000000000000" Z16, NULL,
      "ffffffffffffffffffffffffffffffff", "03000000000000000000000000000000" },
    { "A.3 #6", "02000000000000000000000000000000" "ffffffffffffffffffffffffffffffff", NULL,
      "02000000000000000000000000000000", "03000000000000000000000000000000" },
    { "A.3 #7", "01000000000000000000000000000000" Z16, NULL,
      "ffffffffffffffffffffffffffffffff f0ffffffffffffffffffffffffffffff"
      "11000000000000000000000000000000",
      "05000000000000000000000000000000" },
    { "A.3 #8", "01000000000000000000000000000000" Z16, NULL,
      "ffffffffffffffffffffffffffffffff fbfefefefefefefefefefefefefefefe"
      "01010101010101010101010101010101",
      Z16 },
    { "A.3 #9", "02000000000000000000000000000000" Z16, NULL,
      "fdffffffffffffffffffffffffffffff", "faffffffffffffffffffffffffffffff" },
    { "A.3 #10", "01000000000000000400000000000000" Z16, NULL,
      "e33594d7505e43b90000000000000000 3394d7505e4379cd0100000000000000"
      "00000000000000000000000000000000 01000000000000000000000000000000",
      "14000000000000005500000000000000" },
    { "A.3 #11", "01000000000000000400000000000000" Z16, NULL,
      "e33594d7505e43b90000000000000000 3394d7505e4379cd0100000000000000"
      "00000000000000000000000000000000",
      "13000000000000000000000000000000" },
};

/* Decodes a vector's text into buf (at most cap bytes); returns its length. */
static size_t kat_text(const struct poly_kat *k, uint8_t *buf, size_t cap)
{
    size_t len;

    if (k->text) {
        len = strlen(k->text);
        assert_true(len <= cap);
        memcpy(buf, k->text, len);
        return len;
    }
    len = 0;
    for (const char *p = k->text_hex; *p; p++)
        len += *p != ' ';
    len /= 2;
    assert_true(len <= cap);
    unhex(k->text_hex, buf, len);
    return len;
}

static void test_rfc8439_vectors(void **state)
{
    (void)state;
    assert_int_equal(strlen(IETF_TEXT), 375);
    assert_int_equal(strlen(JABBERWOCKY), 127);
    for (size_t i = 0; i < ARRAY_LEN(kats); i++) {
        uint8_t key[POLY1305_KEY_SIZE], want[POLY1305_TAG_SIZE], tag[POLY1305_TAG_SIZE];
        uint8_t text[512];
        size_t len = kat_text(&kats[i], text, sizeof(text));
        static const size_t chunks[] = { 1, 5, 16, 17, 64 };

        unhex(kats[i].key_hex, key, sizeof(key));
        unhex(kats[i].tag_hex, want, sizeof(want));
        poly1305_mac(key, text, len, tag);
        if (memcmp(tag, want, sizeof(tag)))
            fail_msg("%s: one-shot tag differs", kats[i].name);
        for (size_t c = 0; c < ARRAY_LEN(chunks); c++) {
            struct poly1305_ctx ctx;
            poly1305_init(&ctx, key);
            for (size_t off = 0; off < len; off += chunks[c])
                poly1305_update(&ctx, text + off, len - off < chunks[c] ? len - off : chunks[c]);
            poly1305_final(&ctx, tag);
            if (memcmp(tag, want, sizeof(tag)))
                fail_msg("%s: tag streamed in %zu-byte chunks differs", kats[i].name, chunks[c]);
        }
    }
}

/* The empty message's tag is s (h stays 0). */
static void test_empty_message_tag_is_s(void **state)
{
    uint8_t key[POLY1305_KEY_SIZE], tag[POLY1305_TAG_SIZE];

    (void)state;
    for (size_t i = 0; i < sizeof(key); i++)
        key[i] = (uint8_t)(0xf0 + i);
    poly1305_mac(key, NULL, 0, tag);
    assert_memory_equal(tag, key + 16, 16);
}

/* Every length up to 4 blocks + 1, split at every point. */
static void test_boundary_splits(void **state)
{
    uint8_t key[POLY1305_KEY_SIZE], msg[65];

    (void)state;
    for (size_t i = 0; i < sizeof(key); i++)
        key[i] = (uint8_t)(i * 37 + 11);
    for (size_t i = 0; i < sizeof(msg); i++)
        msg[i] = (uint8_t)(0xff - i);
    for (size_t len = 0; len <= sizeof(msg); len++) {
        uint8_t want[POLY1305_TAG_SIZE], got[POLY1305_TAG_SIZE];
        poly1305_mac(key, msg, len, want);
        for (size_t cut = 0; cut <= len; cut++) {
            struct poly1305_ctx ctx;
            poly1305_init(&ctx, key);
            poly1305_update(&ctx, msg, cut);
            poly1305_update(&ctx, msg + cut, len - cut);
            poly1305_final(&ctx, got);
            assert_memory_equal(got, want, sizeof(got));
        }
    }
}

/*
 * Worst-case limbs: all-ones key bits (after clamping) and all-ones blocks, many of them, in
 * one piece and in 48-byte pieces, against the tag computed independently (Python's integers,
 * and `openssl mac -macopt hexkey:ff..ff POLY1305` over 65536 0xff bytes).
 */
static void test_all_ones_stress_known_tag(void **state)
{
    static uint8_t msg[16 * 4096];
    uint8_t key[POLY1305_KEY_SIZE], want[POLY1305_TAG_SIZE], a[POLY1305_TAG_SIZE];
    uint8_t b[POLY1305_TAG_SIZE];
    struct poly1305_ctx ctx;

    (void)state;
    unhex("f2ad07edc89ff60973326908105868fa", want, sizeof(want));
    memset(key, 0xff, sizeof(key));
    memset(msg, 0xff, sizeof(msg));
    poly1305_mac(key, msg, sizeof(msg), a);
    assert_memory_equal(a, want, sizeof(a));
    poly1305_init(&ctx, key);
    for (size_t off = 0; off < sizeof(msg); off += 48)
        poly1305_update(&ctx, msg + off, sizeof(msg) - off < 48 ? sizeof(msg) - off : 48);
    poly1305_final(&ctx, b);
    assert_memory_equal(b, want, sizeof(b));
}

/*
 * An independent Poly1305 for the tests below: RFC 8439 §2.5.1 with h kept as three 64-bit
 * words (h0 + h1 2^64 + h2 2^128) and 128-bit products, a different representation from the
 * implementation's 26-bit limbs, so a shared mistake is unlikely.
 */
static void ref_poly1305(const uint8_t key[32], const uint8_t *m, size_t len, uint8_t tag[16])
{
    typedef unsigned __int128 u128;
    uint64_t r0 = 0, r1 = 0, s0 = 0, s1 = 0, h0 = 0, h1 = 0, h2 = 0;

    for (int i = 7; i >= 0; i--) {
        r0 = r0 << 8 | key[i];
        r1 = r1 << 8 | key[8 + i];
        s0 = s0 << 8 | key[16 + i];
        s1 = s1 << 8 | key[24 + i];
    }
    r0 &= 0x0ffffffc0fffffffull;
    r1 &= 0x0ffffffc0ffffffcull;
    while (len) {
        uint8_t blk[17] = { 0 };
        size_t n = len < 16 ? len : 16;
        uint64_t m0 = 0, m1 = 0;
        memcpy(blk, m, n);
        blk[n] = 1;
        for (int i = 7; i >= 0; i--) {
            m0 = m0 << 8 | blk[i];
            m1 = m1 << 8 | blk[8 + i];
        }
        /* h += block (with its 2^(8n) bit) */
        u128 t = (u128)h0 + m0;
        h0 = (uint64_t)t;
        t = (u128)h1 + m1 + (uint64_t)(t >> 64);
        h1 = (uint64_t)t;
        h2 += (uint64_t)(t >> 64) + blk[16];
        /* h *= r: r1 is a multiple of 4 and 2^130 = 5 (mod p), so 2^128 r1 = 5/4 r1 (mod p) */
        uint64_t sr1 = r1 + (r1 >> 2);
        u128 d0 = (u128)h0 * r0 + (u128)h1 * sr1;
        u128 d1 = (u128)h0 * r1 + (u128)h1 * r0 + (u128)h2 * sr1;
        uint64_t d2 = h2 * r0;      /* h2 < 8, r0 < 2^60 */
        d1 += (uint64_t)(d0 >> 64);
        d2 += (uint64_t)(d1 >> 64);
        h0 = (uint64_t)d0;
        h1 = (uint64_t)d1;
        /* the part from 2^130 up, times 5, folds back in */
        uint64_t c = (d2 >> 2) + (d2 & ~3ull);
        h2 = d2 & 3;
        t = (u128)h0 + c;
        h0 = (uint64_t)t;
        t = (u128)h1 + (uint64_t)(t >> 64);
        h1 = (uint64_t)t;
        h2 += (uint64_t)(t >> 64);
        m += n;
        len -= n;
    }
    /* full reduction: h - p = h + 5 - 2^130; keep it if that does not borrow */
    u128 t = (u128)h0 + 5;
    uint64_t g0 = (uint64_t)t;
    t = (u128)h1 + (uint64_t)(t >> 64);
    uint64_t g1 = (uint64_t)t;
    uint64_t g2 = h2 + (uint64_t)(t >> 64);
    if (g2 >> 2) {
        h0 = g0;
        h1 = g1;
    }
    t = (u128)h0 + s0;
    h0 = (uint64_t)t;
    h1 = h1 + s1 + (uint64_t)(t >> 64);
    for (int i = 0; i < 8; i++) {
        tag[i] = (uint8_t)(h0 >> (8 * i));
        tag[8 + i] = (uint8_t)(h1 >> (8 * i));
    }
}

/* The reference reproduces the RFC 8439 vectors (so it can be trusted below). */
static void test_reference_matches_rfc(void **state)
{
    (void)state;
    for (size_t i = 0; i < ARRAY_LEN(kats); i++) {
        uint8_t key[POLY1305_KEY_SIZE], want[POLY1305_TAG_SIZE], tag[POLY1305_TAG_SIZE];
        uint8_t text[512];
        size_t len = kat_text(&kats[i], text, sizeof(text));
        unhex(kats[i].key_hex, key, sizeof(key));
        unhex(kats[i].tag_hex, want, sizeof(want));
        ref_poly1305(key, text, len, tag);
        if (memcmp(tag, want, sizeof(tag)))
            fail_msg("%s: the reference differs", kats[i].name);
    }
}

/* Random keys and messages, some extreme, one-shot and streamed, against the reference. */
static void test_random_against_reference(void **state)
{
    enum { MAXLEN = 5000, ITERS = 1500 };
    static uint8_t msg[MAXLEN];

    (void)state;
    test_rng_seed();
    for (int it = 0; it < ITERS; it++) {
        uint8_t key[POLY1305_KEY_SIZE], want[POLY1305_TAG_SIZE], got[POLY1305_TAG_SIZE];
        struct poly1305_ctx ctx;
        size_t len = it < 300 ? (size_t)it : test_rng_upto(MAXLEN), off = 0;

        test_rng_fill(key, sizeof(key));
        test_rng_fill(msg, len);
        if (it % 3 == 1)
            memset(key, 0xff, 16);
        if (it % 5 == 2)
            memset(msg, 0xff, len);
        ref_poly1305(key, msg, len, want);
        poly1305_mac(key, msg, len, got);
        if (memcmp(got, want, sizeof(got)))
            fail_msg("iteration %d, len %zu: one-shot tag differs from the reference", it, len);
        poly1305_init(&ctx, key);
        while (off < len) {
            size_t n = test_rng_chunk(len - off);
            poly1305_update(&ctx, msg + off, n);
            off += n;
        }
        poly1305_final(&ctx, got);
        if (memcmp(got, want, sizeof(got)))
            fail_msg("iteration %d, len %zu: streamed tag differs from the reference", it, len);
    }
}

static void test_verify(void **state)
{
    uint8_t a[POLY1305_TAG_SIZE], b[POLY1305_TAG_SIZE];

    (void)state;
    for (size_t i = 0; i < sizeof(a); i++)
        a[i] = (uint8_t)(i * 13 + 1);
    memcpy(b, a, sizeof(b));
    assert_true(poly1305_verify(a, b));
    assert_true(poly1305_verify(a, a));
    for (size_t i = 0; i < sizeof(a); i++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            b[i] ^= (uint8_t)(1u << bit);
            assert_false(poly1305_verify(a, b));
            assert_false(poly1305_verify(b, a));
            b[i] ^= (uint8_t)(1u << bit);
        }
    }
    memset(b, 0, sizeof(b));
    memset(a, 0, sizeof(a));
    assert_true(poly1305_verify(a, b));
    memset(b, 0xff, sizeof(b));
    assert_false(poly1305_verify(a, b));
}

static void test_final_wipes_context(void **state)
{
    uint8_t key[POLY1305_KEY_SIZE], tag[POLY1305_TAG_SIZE];
    struct poly1305_ctx ctx;

    (void)state;
    memset(key, 0x77, sizeof(key));
    poly1305_init(&ctx, key);
    poly1305_update(&ctx, "twenty-one bytes long", 21);
    poly1305_final(&ctx, tag);
    assert_true(all_zero(&ctx, sizeof(ctx)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc8439_vectors),
        cmocka_unit_test(test_empty_message_tag_is_s),
        cmocka_unit_test(test_boundary_splits),
        cmocka_unit_test(test_all_ones_stress_known_tag),
        cmocka_unit_test(test_reference_matches_rfc),
        cmocka_unit_test(test_random_against_reference),
        cmocka_unit_test(test_verify),
        cmocka_unit_test(test_final_wipes_context),
    };
    return cmocka_run_group_tests_name("crypto/poly1305", tests, NULL, NULL);
}
