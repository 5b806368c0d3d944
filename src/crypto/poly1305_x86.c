/* SPDX-License-Identifier: MIT */
/*
 * Poly1305 with SSE2 (2 lanes), AVX2 (4) and AVX-512F (8): see poly1305_vec.h. Each function
 * carries its own target attribute; crypto_select runs one only when CPUID and XCR0 allow it.
 */
#include "crypto/impl.h"

#if CRYPTO_X86
#include "crypto/x86_simd.h"
#include "lib/string.h"

/* ---- SSE2: 2 lanes ---- */
#define FN poly1305_blocks_sse2
#define TARGET __attribute__((target("sse2")))
#define LANES 2
#define LANE_BLOCK { 0, 1 }
#define VEC __m128i
#define V_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define V_SET1(x) _mm_set1_epi64x((long long)(x))
#define V_LANE0(x) _mm_cvtsi32_si128((int)(x))
#define V_ADD _mm_add_epi64
#define V_MUL _mm_mul_epu32
#define V_AND _mm_and_si128
#define V_OR _mm_or_si128
#define V_SRLI _mm_srli_epi64
#define V_SLLI _mm_slli_epi64
#define V_UNPACKLO _mm_unpacklo_epi64
#define V_UNPACKHI _mm_unpackhi_epi64
#define V_STORE(p, v) _mm_storeu_si128((__m128i *)(void *)(p), v)
#define V_END() ((void)0)
#include "crypto/poly1305_vec.h"

/* ---- AVX2: 4 lanes; unpack works within 128-bit halves, so lanes hold blocks 0, 2, 1, 3 ---- */
#define FN poly1305_blocks_avx2
#define TARGET __attribute__((target("avx2")))
#define LANES 4
#define LANE_BLOCK { 0, 2, 1, 3 }
#define VEC __m256i
#define V_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define V_SET1(x) _mm256_set1_epi64x((long long)(x))
#define V_LANE0(x) _mm256_set_epi64x(0, 0, 0, (long long)(x))
#define V_ADD _mm256_add_epi64
#define V_MUL _mm256_mul_epu32
#define V_AND _mm256_and_si256
#define V_OR _mm256_or_si256
#define V_SRLI _mm256_srli_epi64
#define V_SLLI _mm256_slli_epi64
#define V_UNPACKLO _mm256_unpacklo_epi64
#define V_UNPACKHI _mm256_unpackhi_epi64
#define V_STORE(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
#define V_END() _mm256_zeroupper()
#include "crypto/poly1305_vec.h"

/* ---- AVX-512F: 8 lanes, blocks 0, 4, 1, 5, 2, 6, 3, 7 ---- */
#define FN poly1305_blocks_avx512
#define TARGET __attribute__((target("avx512f")))
#define LANES 8
#define LANE_BLOCK { 0, 4, 1, 5, 2, 6, 3, 7 }
#define VEC __m512i
#define V_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define V_SET1(x) _mm512_set1_epi64((long long)(x))
#define V_LANE0(x) _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, (long long)(x))
#define V_ADD _mm512_add_epi64
#define V_MUL _mm512_mul_epu32
#define V_AND _mm512_and_si512
#define V_OR _mm512_or_si512
#define V_SRLI _mm512_srli_epi64
#define V_SLLI _mm512_slli_epi64
#define V_UNPACKLO _mm512_unpacklo_epi64
#define V_UNPACKHI _mm512_unpackhi_epi64
#define V_STORE(p, v) _mm512_storeu_si512((void *)(p), v)
#define V_END() _mm256_zeroupper()
#include "crypto/poly1305_vec.h"

#endif
