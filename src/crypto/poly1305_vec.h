/* SPDX-License-Identifier: MIT */
/*
 * Poly1305 over LANES blocks at a time, one accumulator per 64-bit lane (included by
 * poly1305_x86.c once per vector width).
 *
 * Horner's rule split LANES ways: with blocks m_1..m_n (n = LANES*g) and the running h,
 *   h' = (h + m_1) r^n + m_2 r^(n-1) + ... + m_n r.
 * Lane j accumulates the blocks j, j + LANES, j + 2 LANES, ...: a_j = a_j * r^LANES + m, starting
 * from a_0 = h + m_1 and a_j = m_(j+1); at the end h' = sum_j a_j * r^(LANES - j). Each lane is a
 * number mod p in five 26-bit limbs, one limb per vector, in the low 32 bits of a 64-bit lane,
 * so that the unsigned 32x32->64 multiply (pmuludq) forms the products. The loads leave the
 * blocks in the lanes in the order LANE_BLOCK lists; only the final powers depend on it.
 *
 * Bounds: the accumulators are below 2^26 + 2^9 per limb after a carry pass and below 2^27 + 2^9
 * after adding a block's limbs (each < 2^26); the multipliers r^k have limbs below 2^26 + 2^6 and
 * 5 r^k below 2^28.33; a product is below 2^55.4 and a sum of five below 2^58, so no 64-bit lane
 * overflows and every carry fits. The carry pass (two interleaved chains) leaves limbs 0, 2, 3
 * below 2^26, limb 1 below 2^26 + 2^9 and limb 4 below 2^26 + 2^8.
 *
 * The includer defines: FN (the function's name), TARGET (its target attribute), LANES,
 * LANE_BLOCK (an initialiser: the block index of each lane), VEC, V_LOAD(p) (unaligned),
 * V_SET1(x), V_LANE0(x) (x in lane 0, zero elsewhere), V_ADD, V_MUL (low 32 x low 32 -> 64),
 * V_AND, V_OR, V_SRLI, V_SLLI, V_UNPACKLO, V_UNPACKHI (64-bit interleave), V_STORE(p, v)
 * (unaligned), V_END (vzeroupper or nothing). This file undefines them all at its end, so the
 * next width starts clean.
 */

#if defined(__i386__)
#define RLOAD(x) (*(const volatile uint32_t *)&(x))
#else
#define RLOAD(x) (x)
#endif

/* d = a * (r0..r4, s1..s4), then the carry pass; a and d may be the same variables. */
#define VMUL_CARRY(a0, a1, a2, a3, a4, R0, R1, R2, R3, R4, S1, S2, S3, S4)                      \
    do {                                                                                       \
        VEC d0_, d1_, d2_, d3_, d4_, c_;                                                       \
        d0_ = V_ADD(V_ADD(V_MUL(a0, R0), V_MUL(a1, S4)),                                       \
                    V_ADD(V_ADD(V_MUL(a2, S3), V_MUL(a3, S2)), V_MUL(a4, S1)));                \
        d1_ = V_ADD(V_ADD(V_MUL(a0, R1), V_MUL(a1, R0)),                                       \
                    V_ADD(V_ADD(V_MUL(a2, S4), V_MUL(a3, S3)), V_MUL(a4, S2)));                \
        d2_ = V_ADD(V_ADD(V_MUL(a0, R2), V_MUL(a1, R1)),                                       \
                    V_ADD(V_ADD(V_MUL(a2, R0), V_MUL(a3, S4)), V_MUL(a4, S3)));                \
        d3_ = V_ADD(V_ADD(V_MUL(a0, R3), V_MUL(a1, R2)),                                       \
                    V_ADD(V_ADD(V_MUL(a2, R1), V_MUL(a3, R0)), V_MUL(a4, S4)));                \
        d4_ = V_ADD(V_ADD(V_MUL(a0, R4), V_MUL(a1, R3)),                                       \
                    V_ADD(V_ADD(V_MUL(a2, R2), V_MUL(a3, R1)), V_MUL(a4, R0)));                \
        c_ = V_SRLI(d0_, 26);                                                                  \
        d0_ = V_AND(d0_, mask);                                                                \
        d1_ = V_ADD(d1_, c_);                                                                  \
        c_ = V_SRLI(d3_, 26);                                                                  \
        d3_ = V_AND(d3_, mask);                                                                \
        d4_ = V_ADD(d4_, c_);                                                                  \
        c_ = V_SRLI(d1_, 26);                                                                  \
        d1_ = V_AND(d1_, mask);                                                                \
        d2_ = V_ADD(d2_, c_);                                                                  \
        c_ = V_SRLI(d4_, 26);                                                                  \
        d4_ = V_AND(d4_, mask);                                                                \
        d0_ = V_ADD(d0_, V_ADD(c_, V_SLLI(c_, 2))); /* 2^130 = 5 mod p */                      \
        c_ = V_SRLI(d2_, 26);                                                                  \
        d2_ = V_AND(d2_, mask);                                                                \
        d3_ = V_ADD(d3_, c_);                                                                  \
        c_ = V_SRLI(d0_, 26);                                                                  \
        d0_ = V_AND(d0_, mask);                                                                \
        d1_ = V_ADD(d1_, c_);                                                                  \
        c_ = V_SRLI(d3_, 26);                                                                  \
        d3_ = V_AND(d3_, mask);                                                                \
        d4_ = V_ADD(d4_, c_);                                                                  \
        a0 = d0_;                                                                              \
        a1 = d1_;                                                                              \
        a2 = d2_;                                                                              \
        a3 = d3_;                                                                              \
        a4 = d4_;                                                                              \
    } while (0)

/* The limbs of LANES blocks at m: lo/hi are each block's two little-endian 64-bit halves. */
#define VLOAD_LIMBS(m, l0, l1, l2, l3, l4)                                                     \
    do {                                                                                       \
        VEC x_ = V_LOAD(m), y_ = V_LOAD((m) + 8 * LANES);                                      \
        VEC lo_ = V_UNPACKLO(x_, y_), hi_ = V_UNPACKHI(x_, y_);                                \
        l0 = V_AND(lo_, mask);                                                                 \
        l1 = V_AND(V_SRLI(lo_, 26), mask);                                                     \
        l2 = V_AND(V_OR(V_SRLI(lo_, 52), V_SLLI(hi_, 12)), mask);                              \
        l3 = V_AND(V_SRLI(hi_, 14), mask);                                                     \
        l4 = V_OR(V_SRLI(hi_, 40), hibit);                                                     \
    } while (0)

CRYPTO_SIMD_ENTRY TARGET
size_t FN(struct poly1305_ctx *ctx, const uint8_t *m, size_t nblocks)
{
    static const unsigned lane_block[LANES] = LANE_BLOCK;
    const size_t groups = nblocks / LANES;
    uint64_t tmp[5][LANES], sum[5];
    VEC a0, a1, a2, a3, a4, l0, l1, l2, l3, l4;

    if (groups == 0)
        return 0;
    poly1305_powers(ctx, LANES);

    const VEC mask = V_SET1(0x3ffffff), hibit = V_SET1(1u << 24);
    VLOAD_LIMBS(m, a0, a1, a2, a3, a4);
    a0 = V_ADD(a0, V_LANE0(ctx->h[0]));
    a1 = V_ADD(a1, V_LANE0(ctx->h[1]));
    a2 = V_ADD(a2, V_LANE0(ctx->h[2]));
    a3 = V_ADD(a3, V_LANE0(ctx->h[3]));
    a4 = V_ADD(a4, V_LANE0(ctx->h[4]));
    m += POLY1305_BLOCK_SIZE * LANES;

    {
        /*
         * r^LANES and 5 r^LANES, broadcast. With only 8 vector registers (32-bit mode) they
         * are read from memory in every iteration instead of spilled (64-byte spill slots
         * would not fit vtboot's 4 KiB shutdown stacks).
         */
        const uint32_t *rn = ctx->rpow[LANES - 1];
        const uint32_t sn[5] = { 0, rn[1] * 5, rn[2] * 5, rn[3] * 5, rn[4] * 5 };
        for (size_t g = 1; g < groups; g++, m += POLY1305_BLOCK_SIZE * LANES) {
            const VEC R0 = V_SET1(RLOAD(rn[0])), R1 = V_SET1(RLOAD(rn[1]));
            const VEC R2 = V_SET1(RLOAD(rn[2])), R3 = V_SET1(RLOAD(rn[3]));
            const VEC R4 = V_SET1(RLOAD(rn[4])), S1 = V_SET1(RLOAD(sn[1]));
            const VEC S2 = V_SET1(RLOAD(sn[2])), S3 = V_SET1(RLOAD(sn[3]));
            const VEC S4 = V_SET1(RLOAD(sn[4]));
            VMUL_CARRY(a0, a1, a2, a3, a4, R0, R1, R2, R3, R4, S1, S2, S3, S4);
            VLOAD_LIMBS(m, l0, l1, l2, l3, l4);
            a0 = V_ADD(a0, l0);
            a1 = V_ADD(a1, l1);
            a2 = V_ADD(a2, l2);
            a3 = V_ADD(a3, l3);
            a4 = V_ADD(a4, l4);
        }
    }

    V_STORE(tmp[0], a0);
    V_STORE(tmp[1], a1);
    V_STORE(tmp[2], a2);
    V_STORE(tmp[3], a3);
    V_STORE(tmp[4], a4);
    V_END();

    /*
     * Lane j holds block lane_block[j] of its group: it is multiplied by r^(LANES - that), in
     * general registers (once per call; no vector registers or stack for the powers), and the
     * products are summed over the lanes before one carry pass: each lane's limbs are below
     * 2^27 + 2^9, each product sum below 2^58, the sum of up to 8 lanes below 2^61.
     */
    for (unsigned i = 0; i < 5; i++)
        sum[i] = 0;
    for (unsigned j = 0; j < LANES; j++) {
        const uint32_t *rk = ctx->rpow[LANES - 1 - lane_block[j]];
        const uint32_t h0 = (uint32_t)tmp[0][j], h1 = (uint32_t)tmp[1][j];
        const uint32_t h2 = (uint32_t)tmp[2][j], h3 = (uint32_t)tmp[3][j];
        const uint32_t h4 = (uint32_t)tmp[4][j];
        const uint32_t s1 = rk[1] * 5, s2 = rk[2] * 5, s3 = rk[3] * 5, s4 = rk[4] * 5;
        sum[0] += (uint64_t)h0 * rk[0] + (uint64_t)h1 * s4 + (uint64_t)h2 * s3 +
                  (uint64_t)h3 * s2 + (uint64_t)h4 * s1;
        sum[1] += (uint64_t)h0 * rk[1] + (uint64_t)h1 * rk[0] + (uint64_t)h2 * s4 +
                  (uint64_t)h3 * s3 + (uint64_t)h4 * s2;
        sum[2] += (uint64_t)h0 * rk[2] + (uint64_t)h1 * rk[1] + (uint64_t)h2 * rk[0] +
                  (uint64_t)h3 * s4 + (uint64_t)h4 * s3;
        sum[3] += (uint64_t)h0 * rk[3] + (uint64_t)h1 * rk[2] + (uint64_t)h2 * rk[1] +
                  (uint64_t)h3 * rk[0] + (uint64_t)h4 * s4;
        sum[4] += (uint64_t)h0 * rk[4] + (uint64_t)h1 * rk[3] + (uint64_t)h2 * rk[2] +
                  (uint64_t)h3 * rk[1] + (uint64_t)h4 * rk[0];
    }
    poly1305_set_h(ctx, sum);
    memzero_explicit(tmp, sizeof(tmp));
    memzero_explicit(sum, sizeof(sum));
    return groups * LANES;
}

#undef VMUL_CARRY
#undef RLOAD
#undef VLOAD_LIMBS
#undef FN
#undef TARGET
#undef LANES
#undef LANE_BLOCK
#undef VEC
#undef V_LOAD
#undef V_SET1
#undef V_LANE0
#undef V_ADD
#undef V_MUL
#undef V_AND
#undef V_OR
#undef V_SRLI
#undef V_SLLI
#undef V_UNPACKLO
#undef V_UNPACKHI
#undef V_STORE
#undef V_END
