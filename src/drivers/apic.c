/* SPDX-License-Identifier: MIT */
#include <stdint.h>

#include "arch/x86/io.h"
#include "drivers/apic.h"

#define MSR_APIC_BASE 0x1bu
#define APIC_BASE_X2APIC (1u << 10)
#define APIC_BASE_ENABLE (1u << 11)
#define APIC_BASE_ADDR_MASK 0xfffff000u
#define APIC_DEFAULT_BASE 0xfee00000u
#define MSR_X2APIC_ICR 0x830u
#define XAPIC_ICR_LOW 0x300u
#define XAPIC_ICR_HIGH 0x310u

#define ICR_INIT (5u << 8)
#define ICR_DELIVERY_PENDING (1u << 12)
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_ALL_EXCLUDING_SELF (3u << 18)
#define ICR_SPINS 1000000u

void apic_init_others(void)
{
    uint64_t base = rdmsr(MSR_APIC_BASE);
    const uint32_t icr = ICR_ALL_EXCLUDING_SELF | ICR_LEVEL_ASSERT | ICR_INIT;

    if (!(base & APIC_BASE_ENABLE)) {
        base = (base & ~(uint64_t)APIC_BASE_ADDR_MASK) | APIC_DEFAULT_BASE | APIC_BASE_ENABLE;
        wrmsr(MSR_APIC_BASE, base);
    }
    if (base & APIC_BASE_X2APIC) {
        wrmsr(MSR_X2APIC_ICR, icr);
        return;
    }
    uintptr_t mmio = (uintptr_t)(base & APIC_BASE_ADDR_MASK);
    mmio_write32(mmio + XAPIC_ICR_HIGH, 0);
    mmio_write32(mmio + XAPIC_ICR_LOW, icr);
    for (uint32_t i = 0; i < ICR_SPINS && (mmio_read32(mmio + XAPIC_ICR_LOW) & ICR_DELIVERY_PENDING);
         i++)
        cpu_relax();
}
