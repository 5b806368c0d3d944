/* SPDX-License-Identifier: MIT */
/*
 * The SIMD state for the crypto paths (crypto/cpu.h rules 1-2, drivers/simd.h), on the CPU
 * that hashes: boot_simd_enable at the MLE's start (boot and S3 resume) and at shutdown_entry
 * (not on a CPU that parks), before the first hash; boot_simd_log says what was chosen, in one
 * line ("crypto: ..."); boot_simd_restore before every jump into a kernel (portable code,
 * vector registers zeroed, CR0/CR4/XCR0 as found). Without boot_simd_enable (the pre-launch
 * half) the portable code runs and nothing is changed.
 */
#ifndef COMMON_SIMD_STATE_H
#define COMMON_SIMD_STATE_H

void boot_simd_enable(void);
void boot_simd_log(void);
void boot_simd_restore(void);

#endif
