/* SPDX-License-Identifier: MIT */
/* CPUID and XGETBV: unprivileged, so vtboot and host programs (tests, bench) share them. */
#ifndef ARCH_X86_CPUID_H
#define ARCH_X86_CPUID_H

#include <stdint.h>

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    __asm__ __volatile__("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
                         : "a"(leaf), "c"(sub));
}

/* XCR0; only when CR4.OSXSAVE is set (CPUID.1:ECX.OSXSAVE says so), else #UD. */
static inline uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

#endif
