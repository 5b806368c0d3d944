/* SPDX-License-Identifier: MIT */
/*
 * SHA-512 (and SHA-384) block function for CPUs with AVX2, BMI1 and BMI2, written from
 * FIPS 180-4 §6.4.2. The message schedule of two blocks at once runs in the vector unit (one
 * block per 128-bit half of a ymm register, two 64-bit words per half) and leaves W_t + K_t in
 * memory; the 80 rounds run in general registers, with BMI2's rorx and BMI1's andn. The
 * vector work and the scalar rounds use different execution ports, so the schedule costs the
 * rounds little; the rounds are what is left, with their critical path kept short.
 * x86-64 only (impl.h says why).
 */
#include "crypto/impl.h"

#if CRYPTO_SHA512_AVX2
#include "crypto/sha2_k.h"
#include "crypto/x86_simd.h"
#include "lib/string.h"


static inline uint64_t ror64(uint64_t x, unsigned n)
{
    return x >> n | x << (64 - n);
}

#define SHA512_TARGET __attribute__((target("avx2,bmi,bmi2")))

/*
 * σ0(x) = ROTR1 ^ ROTR8 ^ SHR7, σ1(x) = ROTR19 ^ ROTR61 ^ SHR6 (§4.1.3). AVX2 has no 64-bit
 * rotate: each is two shifts, and all five shifts of a sigma go side by side into an xor tree
 * (ROTR8 is a byte shuffle). σ1(W_t-2) is the schedule's critical path (W_t needs W_t-2), so
 * it is added last, to the sum of the other three terms.
 */
#define VSSIG0(x)                                                                              \
    _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(x, 1), _mm256_slli_epi64(x, 63)),      \
                     _mm256_xor_si256(_mm256_shuffle_epi8(x, ror8), _mm256_srli_epi64(x, 7)))
#define VSSIG1(x)                                                                              \
    _mm256_xor_si256(                                                                          \
        _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(x, 19), _mm256_slli_epi64(x, 45)), \
                         _mm256_xor_si256(_mm256_srli_epi64(x, 61), _mm256_slli_epi64(x, 3))), \
        _mm256_srli_epi64(x, 6))

/*
 * Two blocks at a time. fr.w[i] = { W_2i + K_2i, W_2i+1 + K_2i+1 of block a, the same of
 * block b }: one 256-bit vector per pair of words, one block per 128-bit half. Block a's 80
 * rounds run on their own; during block b's rounds the vector unit computes the next two
 * blocks' schedule into the same array, each pair of words right after block b has read the
 * old one (so one buffer suffices and no round waits for the schedule). The rounds are loops
 * of 16, so that the code stays small enough for the CPU's decoded-instruction cache (the
 * fully unrolled version ran at 3/4 of this speed or at full speed depending on where the
 * linker put it); fr.k holds each K pair twice, on the stack next to fr.w, so that one index
 * register addresses both.
 */

/*
 * ---- the schedule ----
 *
 * x[i & 7] holds the pair W_2i, W_2i+1 of both blocks. Unit i (0..39) makes pair i and stores
 * it plus K: units 0-7 load and byte-swap the message, unit i >= 8 computes
 * W_t = σ1(W_t-2) + W_t-7 + σ0(W_t-15) + W_t-16 for t = 2i, 2i+1 from x[i-8] (W_t-16, W_t-15),
 * x[i-7], x[i-4], x[i-3] (for W_t-7, W_t-6) and x[i-1] (W_t-2, W_t-1); alignr takes the
 * odd-aligned pairs W_t-15, W_t-14 and W_t-7, W_t-6 within each half. σ1(W_t-2) is the
 * schedule's critical path, so it is added last. The ring index is i mod 8, a constant in
 * every expansion (the loops below advance by 8 units), so x stays in registers.
 * wp and kp point at fr.w and fr.k of the unit numbered 0 in the expansion.
 */
/* fr.w[unit k] = x[k] + the K pair */
#define VSTORE_WK(k)                                                                           \
    _mm256_store_si256((__m256i *)(void *)wp[k],                                               \
                       _mm256_add_epi64(x[k], _mm256_load_si256((const __m256i *)kp[k])))

#define VLOAD(k, pa, pb)                                                                       \
    do {                                                                                       \
        __m128i lo_ = _mm_loadu_si128((const __m128i *)(const void *)((pa) + 16 * (k)));       \
        __m128i hi_ = _mm_loadu_si128((const __m128i *)(const void *)((pb) + 16 * (k)));       \
        __m256i both_ = _mm256_inserti128_si256(_mm256_castsi128_si256(lo_), hi_, 1);          \
        x[k] = _mm256_shuffle_epi8(both_, bswap);                                              \
        VSTORE_WK(k);                                                                          \
    } while (0)

#define VCALC(k)                                                                               \
    do {                                                                                       \
        __m256i w15_ = _mm256_alignr_epi8(x[((k) + 1) & 7], x[k], 8);                          \
        __m256i w7_ = _mm256_alignr_epi8(x[((k) + 5) & 7], x[((k) + 4) & 7], 8);               \
        __m256i r_ = _mm256_add_epi64(_mm256_add_epi64(x[k], VSSIG0(w15_)), w7_);              \
        x[k] = _mm256_add_epi64(r_, VSSIG1(x[((k) + 7) & 7]));                                 \
        VSTORE_WK(k);                                                                          \
    } while (0)

/* ---- the rounds (§6.4.2 step 3), working variables renamed instead of shifted ---- */

/*
 * One round, written for a short critical path: the new e is d + h + W_t + K_t + Ch(e, f, g) +
 * Σ1(e), where d + h + W_t + K_t does not depend on e, so only Ch and Σ1 (side by side) and
 * two additions follow e. The new a is the new e - d + Σ0(a) + Maj(a, b, c), the last three
 * summed while e's path runs. rorx and andn need no copies; Maj(a, b, c) =
 * b ^ ((a ^ b) & (b ^ c)) reuses b ^ c, which is the previous round's a ^ b.
 * t: the round's number within the 16 that wp points at; off: 0 for block a, 2 for block b.
 */
#define RND(a, b, c, d, e, f, g, h, t, off)                                                    \
    do {                                                                                       \
        uint64_t hw_ = h + wp[(t) >> 1][((t) & 1) + (off)];                                   \
        uint64_t s1_ = ror64(e, 14) ^ ror64(e, 18) ^ ror64(e, 41);                             \
        uint64_t ch_ = (e & f) ^ (~e & g);                                                     \
        uint64_t ab_ = a ^ b;                                                                  \
        uint64_t x_ = (ror64(a, 28) ^ ror64(a, 34) ^ ror64(a, 39)) + (b ^ (ab_ & bc)) - d;    \
        d = ((d + hw_) + ch_) + s1_;                                                           \
        h = d + x_;                                                                            \
        bc = ab_;                                                                              \
    } while (0)

/* Sixteen rounds, U(k) after every second one (k = 0..7: the units of the same 16 words). */
#define RND16(off, U)                                                                          \
    do {                                                                                       \
        RND(a, b, c, d, e, f, g, h, 0, off);                                                   \
        RND(h, a, b, c, d, e, f, g, 1, off);                                                   \
        U(0);                                                                                  \
        RND(g, h, a, b, c, d, e, f, 2, off);                                                   \
        RND(f, g, h, a, b, c, d, e, 3, off);                                                   \
        U(1);                                                                                  \
        RND(e, f, g, h, a, b, c, d, 4, off);                                                   \
        RND(d, e, f, g, h, a, b, c, 5, off);                                                   \
        U(2);                                                                                  \
        RND(c, d, e, f, g, h, a, b, 6, off);                                                   \
        RND(b, c, d, e, f, g, h, a, 7, off);                                                   \
        U(3);                                                                                  \
        RND(a, b, c, d, e, f, g, h, 8, off);                                                   \
        RND(h, a, b, c, d, e, f, g, 9, off);                                                   \
        U(4);                                                                                  \
        RND(g, h, a, b, c, d, e, f, 10, off);                                                  \
        RND(f, g, h, a, b, c, d, e, 11, off);                                                  \
        U(5);                                                                                  \
        RND(e, f, g, h, a, b, c, d, 12, off);                                                  \
        RND(d, e, f, g, h, a, b, c, 13, off);                                                  \
        U(6);                                                                                  \
        RND(c, d, e, f, g, h, a, b, 14, off);                                                  \
        RND(b, c, d, e, f, g, h, a, 15, off);                                                  \
        U(7);                                                                                  \
    } while (0)

#define NO_UNIT(k) ((void)0)
#define LOAD_UNIT(k) VLOAD(k, na, na + 128)
#define CALC_UNIT(k) VCALC(k)

#define STATE_IN                                                                               \
    a = state[0], b = state[1], c = state[2], d = state[3];                                    \
    e = state[4], f = state[5], g = state[6], h = state[7];                                    \
    bc = b ^ c

#define STATE_OUT                                                                              \
    state[0] += a, state[1] += b, state[2] += c, state[3] += d;                                \
    state[4] += e, state[5] += f, state[6] += g, state[7] += h

CRYPTO_SIMD_ENTRY SHA512_TARGET
void sha512_blocks_avx2(uint64_t state[8], const uint8_t *p, size_t nblocks)
{
    const __m256i bswap = _mm256_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,
                                          8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i ror8 =
        _mm256_set_epi8(8, 15, 14, 13, 12, 11, 10, 9, 0, 7, 6, 5, 4, 3, 2, 1, 8, 15, 14, 13, 12,
                        11, 10, 9, 0, 7, 6, 5, 4, 3, 2, 1);
    struct {
        uint64_t w[40][4];
        uint64_t k[40][4];
    } fr __attribute__((aligned(32)));
    uint64_t a, b, c, d, e, f, g, h, bc;
    uint64_t (*wp)[4];
    const uint64_t (*kp)[4];
    __m256i x[8];

    if (nblocks == 0)
        return;
    for (unsigned i = 0; i < 40; i++) {
        __m256i k2 = _mm256_broadcastsi128_si256(
            _mm_load_si128((const __m128i *)(const void *)(sha512_k + 2 * i)));
        _mm256_store_si256((__m256i *)(void *)fr.k[i], k2);
    }

    /* The first pair's schedule on its own (an odd last block is scheduled twice). */
    {
        const uint8_t *pb = nblocks >= 2 ? p + 128 : p;
        wp = fr.w;
        kp = (const uint64_t(*)[4])fr.k;
        VLOAD(0, p, pb); VLOAD(1, p, pb); VLOAD(2, p, pb); VLOAD(3, p, pb);
        VLOAD(4, p, pb); VLOAD(5, p, pb); VLOAD(6, p, pb); VLOAD(7, p, pb);
        for (unsigned u = 8; u < 40; u += 8) {
            wp = fr.w + u;
            kp = (const uint64_t(*)[4])fr.k + u;
            VCALC(0); VCALC(1); VCALC(2); VCALC(3); VCALC(4); VCALC(5); VCALC(6); VCALC(7);
        }
    }

    for (;;) {
        /* block a */
        STATE_IN;
        for (unsigned u = 0; u < 40; u += 8) {
            wp = fr.w + u;
            RND16(0, NO_UNIT);
        }
        STATE_OUT;
        if (nblocks == 1)
            break;

        /* block b, and with it the next pair's schedule if there are two more blocks */
        STATE_IN;
        if (nblocks >= 4) {
            const uint8_t *na = p + 256;
            wp = fr.w;
            kp = (const uint64_t(*)[4])fr.k;
            RND16(2, LOAD_UNIT);
            for (unsigned u = 8; u < 40; u += 8) {
                wp = fr.w + u;
                kp = (const uint64_t(*)[4])fr.k + u;
                RND16(2, CALC_UNIT);
            }
        } else {
            for (unsigned u = 0; u < 40; u += 8) {
                wp = fr.w + u;
                RND16(2, NO_UNIT);
            }
        }
        STATE_OUT;
        p += 256;
        nblocks -= 2;
        if (nblocks < 2) {
            if (nblocks == 0)
                break;
            /* one block left: schedule it alone (twice), then run block a */
            wp = fr.w;
            kp = (const uint64_t(*)[4])fr.k;
            VLOAD(0, p, p); VLOAD(1, p, p); VLOAD(2, p, p); VLOAD(3, p, p);
            VLOAD(4, p, p); VLOAD(5, p, p); VLOAD(6, p, p); VLOAD(7, p, p);
            for (unsigned u = 8; u < 40; u += 8) {
                wp = fr.w + u;
                kp = (const uint64_t(*)[4])fr.k + u;
                VCALC(0); VCALC(1); VCALC(2); VCALC(3); VCALC(4); VCALC(5); VCALC(6); VCALC(7);
            }
        }
    }
    _mm256_zeroupper();
    memzero_explicit(&fr, sizeof(fr));
}

#undef VSTORE_WK
#undef VLOAD
#undef VCALC
#undef RND
#undef RND16
#undef NO_UNIT
#undef LOAD_UNIT
#undef CALC_UNIT
#undef STATE_IN
#undef STATE_OUT

#endif
