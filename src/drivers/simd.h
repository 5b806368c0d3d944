/* SPDX-License-Identifier: MIT */
/*
 * Turning the CPU's SIMD state on for the crypto paths (crypto/cpu.h) and back off before a
 * hand-over. The decisions are simd_plan's and crypto_choose's (pure, unit-tested); this only
 * reads and writes CR0, CR4 and XCR0.
 *
 *   simd_enable(&saved, &f)  at vtboot's entry, and at shutdown_entry: saves CR0/CR4/XCR0 as
 *                            found, sets what the chosen paths need (nothing under QEMU TCG or
 *                            on a CPU without SSE2), reads the features back into f and
 *                            installs the choice (crypto_select). Returns f's SIMD use.
 *   simd_restore(&saved)     before every jump into Linux (kernel entry, S3 waking vector):
 *                            selects the portable code, zeroes the vector registers the paths
 *                            use (xmm/ymm/zmm 0-7: Poly1305 leaves key powers there), and puts
 *                            XCR0, CR4 and CR0 back as found (XCR0 first, while OSXSAVE is on).
 */
#ifndef DRIVERS_SIMD_H
#define DRIVERS_SIMD_H

#include <stdbool.h>
#include <stdint.h>

#include "crypto/cpu.h"

struct simd_saved {
    uint32_t cr0, cr4;
    uint64_t xcr0;                      /* valid if cr4 has OSXSAVE */
    bool changed;                       /* simd_enable wrote CR0/CR4 (and XCR0) */
    bool avx;                           /* AVX state was on while vtboot ran */
};

bool simd_enable(struct simd_saved *saved, struct cpu_features *f);
void simd_restore(const struct simd_saved *saved);

#endif
