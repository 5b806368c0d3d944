/* SPDX-License-Identifier: MIT */
/*
 * Reads what the CPU reports: CPUID and, when the OS has set CR4.OSXSAVE, XCR0. Both are
 * unprivileged, so this runs in vtboot and in host programs (bench, tests) alike.
 */
#include "crypto/cpu.h"

#include "crypto/impl.h"

#if CRYPTO_X86
#include "arch/x86/cpuid.h"
#endif

void cpu_features_read(struct cpu_features *f, bool sse_enabled)
{
    f->max_leaf = f->ecx1 = f->edx1 = f->ebx7 = 0;
    f->xcr0_supported = f->xcr0 = 0;
    f->sse_enabled = false;
    f->tcg = false;
#if CRYPTO_X86
    uint32_t r[4];

    cpuid(0, 0, r);
    f->max_leaf = r[0];
    if (f->max_leaf >= 1) {
        cpuid(1, 0, r);
        f->ecx1 = r[2];
        f->edx1 = r[3];
    }
    if (f->max_leaf >= 7) {
        cpuid(7, 0, r);
        f->ebx7 = r[1];
    }
    if (f->max_leaf >= 0xd) {
        cpuid(0xd, 0, r);
        f->xcr0_supported = (uint64_t)r[3] << 32 | r[0];
    }
    if (f->ecx1 & CPUID1_ECX_OSXSAVE)
        f->xcr0 = xgetbv0();
    if (f->ecx1 & (1u << 31)) {         /* a hypervisor: its leaves start at 0x40000000 */
        cpuid(0x40000000, 0, r);
        f->tcg = r[1] == 0x54474354u && r[2] == 0x43544743u && r[3] == 0x47435447u;
    }
    f->sse_enabled = sse_enabled;
#else
    (void)sse_enabled;
#endif
}
