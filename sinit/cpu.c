/* SPDX-License-Identifier: MIT */
/* The SINIT's CPU: its IDT (every exception a failed launch), CPUID and the MTRRs. */
#include "arch/x86/cpuid.h"
#include "arch/x86/io.h"
#include "sinit.h"

#define NR_VECTORS 32u
#define IA32_MTRRCAP 0xfe
#define IA32_MTRR_DEF_TYPE 0x2ff
#define IA32_MTRR_PHYSBASE0 0x200

struct idt_gate {
    uint16_t off_lo, sel;
    uint8_t zero, type;
    uint16_t off_hi;
} __attribute__((packed));

static struct idt_gate idt[NR_VECTORS];

void cpu_load_idt(void)
{
    uint16_t cs;
    __asm__ __volatile__("mov %%cs, %0" : "=r"(cs));
    for (unsigned i = 0; i < NR_VECTORS; i++) {
        uint32_t a = (uint32_t)(uintptr_t)sinit_exception_stubs + i * SINIT_STUB_SIZE;
        idt[i] = (struct idt_gate){ (uint16_t)a, cs, 0, 0x8e, (uint16_t)(a >> 16) };
    }
    struct {
        uint16_t limit;
        uint32_t base;
    } __attribute__((packed)) d = { sizeof(idt) - 1, (uint32_t)(uintptr_t)idt };
    __asm__ __volatile__("lidt %0" : : "m"(d));
}

uint32_t cpu_fms(void)
{
    uint32_t r[4];
    cpuid(1, 0, r);
    return r[0];
}

void cpu_read_mtrrs(struct txt_mtrrs *m)
{
    uint32_t r[4];

    m->cap = rdmsr(IA32_MTRRCAP);
    m->def_type = rdmsr(IA32_MTRR_DEF_TYPE);
    unsigned n = (unsigned)(m->cap & 0xff);
    for (unsigned i = 0; i < n && i < TXT_MTRR_MAX_VAR; i++) {
        m->base[i] = rdmsr(IA32_MTRR_PHYSBASE0 + 2 * i);
        m->mask[i] = rdmsr(IA32_MTRR_PHYSBASE0 + 2 * i + 1);
    }
    cpuid(0x80000000u, 0, r);
    if (r[0] >= 0x80000008u) {
        cpuid(0x80000008u, 0, r);
        m->phys_bits = r[0] & 0xff;
    } else {
        m->phys_bits = 36;
    }
}
