/* SPDX-License-Identifier: MIT */
/*
 * SHA-1 and SHA-256 block functions with the x86 SHA extensions, written from the
 * instructions' definitions (Intel SDM Vol. 2: SHA1RNDS4, SHA1NEXTE, SHA1MSG1, SHA1MSG2,
 * SHA256RNDS2, SHA256MSG1, SHA256MSG2) and FIPS 180-4 §6.1.2 and §6.2.2.
 * Run only when CPUID reports SHA, SSSE3 and SSE4.1 (crypto_choose).
 */
#include "crypto/impl.h"

#if CRYPTO_X86
#include "crypto/sha2_k.h"
#include "crypto/x86_simd.h"

#define SHANI_TARGET __attribute__((target("sha,ssse3,sse4.1")))

/*
 * SHA-1. SHA1RNDS4 keeps A, B, C, D in one register, A in the top dword, and takes
 * W_t + E, W_t+1, W_t+2, W_t+3 (top to bottom) for four rounds; its immediate picks the
 * function and constant of rounds 0-19, 20-39, 40-59, 60-79. E of the next four rounds is
 * ROTL30 of A four rounds back, which SHA1NEXTE adds to the next message words. So the words
 * are loaded with W_t in the top dword: the whole 16 bytes reversed.
 *
 * Schedule: W_t..W_t+3 = SHA1MSG2(SHA1MSG1(W_t-16.., W_t-12..) ^ W_t-8.., W_t-4..).
 */
#define SHA1_MSG(m0, m1, m2, m3)                                                               \
    _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32(m0, m1), m2), m3)

/*
 * Four rounds with wk = the message words, E added to the top one (wk is evaluated first: it
 * reads prev); keeps this ABCD in prev for the E four rounds on.
 */
#define SHA1_R4(func, wk)                                                                      \
    do {                                                                                       \
        __m128i wk_ = (wk);                                                                    \
        prev = abcd;                                                                           \
        abcd = _mm_sha1rnds4_epu32(abcd, wk_, func);                                           \
    } while (0)

CRYPTO_SIMD_ENTRY SHANI_TARGET
void sha1_blocks_shani(uint32_t state[5], const uint8_t *p, size_t nblocks)
{
    const __m128i rev = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m128i abcd = _mm_loadu_si128((const __m128i *)(const void *)state);
    __m128i e0 = _mm_set_epi32((int)state[4], 0, 0, 0);

    abcd = _mm_shuffle_epi32(abcd, 0x1b);       /* A in the top dword */
    for (; nblocks; nblocks--, p += 64) {
        const __m128i abcd_in = abcd, e_in = e0;
        __m128i m0, m1, m2, m3, prev;

        m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), rev);
        m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)), rev);
        m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 32)), rev);
        m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 48)), rev);

        /* Rounds 0-15: the loaded words. */
        SHA1_R4(0, _mm_add_epi32(e0, m0));
        SHA1_R4(0, _mm_sha1nexte_epu32(prev, m1));
        SHA1_R4(0, _mm_sha1nexte_epu32(prev, m2));
        SHA1_R4(0, _mm_sha1nexte_epu32(prev, m3));
        /* Rounds 16-79: the ring of four registers m0..m3 moves on by one each step. */
        m0 = SHA1_MSG(m0, m1, m2, m3);
        SHA1_R4(0, _mm_sha1nexte_epu32(prev, m0));          /* 16-19 */
        m1 = SHA1_MSG(m1, m2, m3, m0);
        SHA1_R4(1, _mm_sha1nexte_epu32(prev, m1));          /* 20-23 */
        m2 = SHA1_MSG(m2, m3, m0, m1);
        SHA1_R4(1, _mm_sha1nexte_epu32(prev, m2));
        m3 = SHA1_MSG(m3, m0, m1, m2);
        SHA1_R4(1, _mm_sha1nexte_epu32(prev, m3));
        m0 = SHA1_MSG(m0, m1, m2, m3);
        SHA1_R4(1, _mm_sha1nexte_epu32(prev, m0));
        m1 = SHA1_MSG(m1, m2, m3, m0);
        SHA1_R4(1, _mm_sha1nexte_epu32(prev, m1));          /* 36-39 */
        m2 = SHA1_MSG(m2, m3, m0, m1);
        SHA1_R4(2, _mm_sha1nexte_epu32(prev, m2));          /* 40-43 */
        m3 = SHA1_MSG(m3, m0, m1, m2);
        SHA1_R4(2, _mm_sha1nexte_epu32(prev, m3));
        m0 = SHA1_MSG(m0, m1, m2, m3);
        SHA1_R4(2, _mm_sha1nexte_epu32(prev, m0));
        m1 = SHA1_MSG(m1, m2, m3, m0);
        SHA1_R4(2, _mm_sha1nexte_epu32(prev, m1));
        m2 = SHA1_MSG(m2, m3, m0, m1);
        SHA1_R4(2, _mm_sha1nexte_epu32(prev, m2));          /* 56-59 */
        m3 = SHA1_MSG(m3, m0, m1, m2);
        SHA1_R4(3, _mm_sha1nexte_epu32(prev, m3));          /* 60-63 */
        m0 = SHA1_MSG(m0, m1, m2, m3);
        SHA1_R4(3, _mm_sha1nexte_epu32(prev, m0));
        m1 = SHA1_MSG(m1, m2, m3, m0);
        SHA1_R4(3, _mm_sha1nexte_epu32(prev, m1));
        m2 = SHA1_MSG(m2, m3, m0, m1);
        SHA1_R4(3, _mm_sha1nexte_epu32(prev, m2));
        m3 = SHA1_MSG(m3, m0, m1, m2);
        SHA1_R4(3, _mm_sha1nexte_epu32(prev, m3));          /* 76-79 */

        /* E after round 79 is ROTL30 of A before round 76, added to the input E. */
        e0 = _mm_sha1nexte_epu32(prev, e_in);
        abcd = _mm_add_epi32(abcd, abcd_in);
    }
    abcd = _mm_shuffle_epi32(abcd, 0x1b);
    _mm_storeu_si128((__m128i *)(void *)state, abcd);
    state[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

/*
 * SHA-256. SHA256RNDS2 does two rounds on the state split as (A, B, E, F) and (C, D, G, H),
 * top dword first, with W_t + K_t and W_t+1 + K_t+1 in the low two dwords of XMM0; after it
 * the old (A, B, E, F) is the new (C, D, G, H). Message words are kept W_t in the low dword:
 * each dword byte-swapped. Schedule:
 *   W_t..W_t+3 = SHA256MSG2(SHA256MSG1(W_t-16.., W_t-12..) + W_t-7..W_t-4, W_t-4..).
 */

#define SHA256_K(i) _mm_load_si128((const __m128i *)(const void *)(sha256_k + 4 * (i)))

/* Four rounds with message words m (W_t in the low dword), t = 4 * i. */
#define SHA256_R4(m, i)                                                                        \
    do {                                                                                       \
        __m128i wk_ = _mm_add_epi32(m, SHA256_K(i));                                           \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk_);                                         \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk_, 0x0e));                \
    } while (0)

#define SHA256_MSG(m0, m1, m2, m3)                                                             \
    _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(m0, m1),                           \
                                       _mm_alignr_epi8(m3, m2, 4)), m3)

CRYPTO_SIMD_ENTRY SHANI_TARGET
void sha256_blocks_shani(uint32_t state[8], const uint8_t *p, size_t nblocks)
{
    const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    __m128i t0 = _mm_loadu_si128((const __m128i *)(const void *)state);        /* D C B A */
    __m128i t1 = _mm_loadu_si128((const __m128i *)(const void *)(state + 4));  /* H G F E */
    __m128i abef, cdgh;

    /* Dwords listed top first: abef = A B E F, cdgh = C D G H. */
    t0 = _mm_shuffle_epi32(t0, 0x1b);           /* A B C D */
    t1 = _mm_shuffle_epi32(t1, 0x1b);           /* E F G H */
    abef = _mm_unpackhi_epi64(t1, t0);
    cdgh = _mm_unpacklo_epi64(t1, t0);

    for (; nblocks; nblocks--, p += 64) {
        const __m128i abef_in = abef, cdgh_in = cdgh;
        __m128i m0, m1, m2, m3;

        m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), bswap);
        m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)), bswap);
        m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 32)), bswap);
        m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 48)), bswap);

        SHA256_R4(m0, 0);
        SHA256_R4(m1, 1);
        SHA256_R4(m2, 2);
        SHA256_R4(m3, 3);
        for (unsigned i = 4; i < 16; i += 4) {
            m0 = SHA256_MSG(m0, m1, m2, m3);
            SHA256_R4(m0, i);
            m1 = SHA256_MSG(m1, m2, m3, m0);
            SHA256_R4(m1, i + 1);
            m2 = SHA256_MSG(m2, m3, m0, m1);
            SHA256_R4(m2, i + 2);
            m3 = SHA256_MSG(m3, m0, m1, m2);
            SHA256_R4(m3, i + 3);
        }
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }

    t0 = _mm_unpackhi_epi64(cdgh, abef);        /* A B C D, top first */
    t1 = _mm_unpacklo_epi64(cdgh, abef);        /* E F G H */
    _mm_storeu_si128((__m128i *)(void *)state, _mm_shuffle_epi32(t0, 0x1b));
    _mm_storeu_si128((__m128i *)(void *)(state + 4), _mm_shuffle_epi32(t1, 0x1b));
}

#endif
