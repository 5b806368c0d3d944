/* SPDX-License-Identifier: MIT */
/* CR0, CR4 and XCR0 for the SIMD crypto paths: see simd.h. 32-bit protected mode, ring 0. */
#include "drivers/simd.h"

#include "arch/x86/cpuid.h"

static uint32_t read_cr0(void)
{
    uint32_t v;
    __asm__ volatile("mov %%cr0, %0" : "=r"(v));
    return v;
}

static uint32_t read_cr4(void)
{
    uint32_t v;
    __asm__ volatile("mov %%cr4, %0" : "=r"(v));
    return v;
}

static void write_cr0(uint32_t v)
{
    __asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static void write_cr4(uint32_t v)
{
    __asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static void xsetbv0(uint64_t v)
{
    __asm__ volatile("xsetbv" : : "a"((uint32_t)v), "d"((uint32_t)(v >> 32)), "c"(0) : "memory");
}

bool simd_enable(struct simd_saved *saved, struct cpu_features *f)
{
    struct simd_plan plan;
    uint32_t cr0 = read_cr0(), cr4 = read_cr4();
    uint64_t xcr0 = (cr4 & CR4_OSXSAVE) ? xgetbv0() : XCR0_X87;
    bool sse_on;

    cpu_features_read(f, false);
    saved->cr0 = cr0;
    saved->cr4 = cr4;
    saved->xcr0 = xcr0;
    simd_plan(f, cr0, cr4, xcr0, &plan);
    saved->changed = plan.simd;
    if (plan.simd) {
        write_cr0(plan.cr0);
        write_cr4(plan.cr4);
        if (plan.set_xcr0)
            xsetbv0(plan.xcr0);
        cr0 = plan.cr0;
        cr4 = plan.cr4;
    }
    sse_on = (cr4 & CR4_OSFXSR) && !(cr0 & (CR0_EM | CR0_TS));
    cpu_features_read(f, sse_on);       /* OSXSAVE and XCR0 as they are now */
    saved->avx = (f->ecx1 & CPUID1_ECX_OSXSAVE) && (f->xcr0 & XCR0_AVX);
    crypto_select(f);
    return plan.simd;
}

void simd_restore(const struct simd_saved *saved)
{
    crypto_select_portable();
    if (!saved->changed)
        return;
    /* Registers 0-7 are all a 32-bit mode has; vzeroall clears their full width (AVX-512 too). */
    if (saved->avx)
        __asm__ volatile("vzeroall" ::: "memory");
    else
        __asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\t"
                         "pxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"
                         "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
                         "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7" ::: "memory");
    if (read_cr4() & CR4_OSXSAVE)
        xsetbv0((saved->cr4 & CR4_OSXSAVE) ? saved->xcr0 : XCR0_X87);
    write_cr4(saved->cr4);
    write_cr0(saved->cr0);
}
