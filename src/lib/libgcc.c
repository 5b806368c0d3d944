/* SPDX-License-Identifier: MIT */
/*
 * The 64-bit division helpers gcc calls on i386. The pre-kernel links without libgcc (Debian's
 * gcc has no 32-bit libgcc unless gcc-multilib is installed), so it carries its own.
 */
#include <stdint.h>

uint64_t __udivmoddi4(uint64_t num, uint64_t den, uint64_t *rem);
uint64_t __udivdi3(uint64_t num, uint64_t den);
uint64_t __umoddi3(uint64_t num, uint64_t den);

uint64_t __udivmoddi4(uint64_t num, uint64_t den, uint64_t *rem)
{
    uint64_t quot = 0, bit = 1;

    if (den == 0) {
        __builtin_trap();
    }
    while (den < num && !(den & (1ull << 63))) {
        den <<= 1;
        bit <<= 1;
    }
    while (bit) {
        if (num >= den) {
            num -= den;
            quot |= bit;
        }
        den >>= 1;
        bit >>= 1;
    }
    if (rem)
        *rem = num;
    return quot;
}

uint64_t __udivdi3(uint64_t num, uint64_t den)
{
    return __udivmoddi4(num, den, 0);
}

uint64_t __umoddi3(uint64_t num, uint64_t den)
{
    uint64_t rem;
    __udivmoddi4(num, den, &rem);
    return rem;
}
