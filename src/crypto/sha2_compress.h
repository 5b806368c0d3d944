/* SPDX-License-Identifier: MIT */
/*
 * The SHA-2 compression function (FIPS 180-4 §6.2.2 and §6.4.2), shared by SHA-256 and SHA-512,
 * which differ only in word size, round count, constants and the sigma functions. The file that
 * includes this defines SHA2_WORD, SHA2_K, SHA2_ROUNDS, SHA2_BLOCK_SIZE, SHA2_LOAD(p), the
 * functions CH, BSIG0, BSIG1, SSIG0, SSIG1, and SHA2_BLOCKS, the name of the function this
 * defines: void SHA2_BLOCKS(SHA2_WORD state[8], const uint8_t *block, size_t nblocks).
 */

/* The schedule lives in a 16-word ring: w[t & 15] holds W_t once computed (step 1). */
#define W_LOAD(t)  (w[t] = SHA2_LOAD(block + sizeof(SHA2_WORD) * (t)))
#define W_SCHED(t)                                                                             \
    (w[t] += SSIG1(w[((t) + 14) & 15]) + w[((t) + 9) & 15] + SSIG0(w[((t) + 1) & 15]))

/*
 * One round (step 3) with the working variables renamed instead of shifted.
 * Maj(a, b, c) = b ^ ((a ^ b) & (b ^ c)), and this round's b ^ c is the previous round's a ^ b
 * (the renaming moves a to b and b to c), so bc carries it from round to round.
 */
#define ROUND(a, b, c, d, e, f, g, h, t, W)                                                    \
    do {                                                                                       \
        SHA2_WORD t1 = h + BSIG1(e) + CH(e, f, g) + SHA2_K[j + (t)] + W(t);                    \
        SHA2_WORD ab = a ^ b;                                                                  \
        d += t1;                                                                               \
        h = t1 + BSIG0(a) + (b ^ (ab & bc));                                                   \
        bc = ab;                                                                               \
    } while (0)

#define ROUNDS16(W)                                                                            \
    do {                                                                                       \
        ROUND(a, b, c, d, e, f, g, h, 0, W);                                                   \
        ROUND(h, a, b, c, d, e, f, g, 1, W);                                                   \
        ROUND(g, h, a, b, c, d, e, f, 2, W);                                                   \
        ROUND(f, g, h, a, b, c, d, e, 3, W);                                                   \
        ROUND(e, f, g, h, a, b, c, d, 4, W);                                                   \
        ROUND(d, e, f, g, h, a, b, c, 5, W);                                                   \
        ROUND(c, d, e, f, g, h, a, b, 6, W);                                                   \
        ROUND(b, c, d, e, f, g, h, a, 7, W);                                                   \
        ROUND(a, b, c, d, e, f, g, h, 8, W);                                                   \
        ROUND(h, a, b, c, d, e, f, g, 9, W);                                                   \
        ROUND(g, h, a, b, c, d, e, f, 10, W);                                                  \
        ROUND(f, g, h, a, b, c, d, e, 11, W);                                                  \
        ROUND(e, f, g, h, a, b, c, d, 12, W);                                                  \
        ROUND(d, e, f, g, h, a, b, c, 13, W);                                                  \
        ROUND(c, d, e, f, g, h, a, b, 14, W);                                                  \
        ROUND(b, c, d, e, f, g, h, a, 15, W);                                                  \
    } while (0)

/* Processes nblocks consecutive blocks. */
void SHA2_BLOCKS(SHA2_WORD state[8], const uint8_t *block, size_t nblocks)
{
    SHA2_WORD w[16];

    for (; nblocks; nblocks--, block += SHA2_BLOCK_SIZE) {
        SHA2_WORD a = state[0], b = state[1], c = state[2], d = state[3];
        SHA2_WORD e = state[4], f = state[5], g = state[6], h = state[7];
        SHA2_WORD bc = b ^ c;
        unsigned j = 0;

        ROUNDS16(W_LOAD);
        for (j = 16; j < SHA2_ROUNDS; j += 16)
            ROUNDS16(W_SCHED);

        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
    memzero_explicit(w, sizeof(w));
}
