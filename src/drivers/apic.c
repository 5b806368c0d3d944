/* SPDX-License-Identifier: MIT */
#include <stdint.h>

#include "arch/x86/io.h"
#include "drivers/apic.h"
#include "intc/intc.h"

#define MSR_APIC_BASE 0x1bu
#define APIC_BASE_BSP (1u << 8)
#define XAPIC_ICR_LOW 0x300u
#define XAPIC_ICR_HIGH 0x310u
#define XAPIC_TIMER_INITIAL_COUNT 0x380u

#define ICR_INIT (5u << 8)
#define ICR_STARTUP (6u << 8)
#define ICR_DELIVERY_PENDING (1u << 12)
#define ICR_LEVEL_ASSERT (1u << 14)
#define ICR_ALL_EXCLUDING_SELF (3u << 18)
#define ICR_SPINS 1000000u

/* timer, thermal, performance counter, LINT0, LINT1, error */
static const uint16_t lvt_regs[] = { 0x320, 0x330, 0x340, 0x350, 0x360, 0x370 };

static uint32_t apic_read(uint32_t reg)
{
    return mmio_read32(APIC_DEFAULT_BASE + reg);
}

static void apic_write(uint32_t reg, uint32_t v)
{
    mmio_write32(APIC_DEFAULT_BASE + reg, v);
}

void apic_take_over(void)
{
    wrmsr(MSR_APIC_BASE, apic_base_for_vtboot(rdmsr(MSR_APIC_BASE)));
    for (unsigned i = 0; i < sizeof(lvt_regs) / sizeof(lvt_regs[0]); i++)
        apic_write(lvt_regs[i], intc_entry_masked(apic_read(lvt_regs[i])));
    apic_write(XAPIC_TIMER_INITIAL_COUNT, 0);
}

bool apic_is_boot_cpu(void)
{
    return (rdmsr(MSR_APIC_BASE) & APIC_BASE_BSP) != 0;
}

static void send_to_others(uint32_t icr)
{
    apic_write(XAPIC_ICR_HIGH, 0);
    apic_write(XAPIC_ICR_LOW, ICR_ALL_EXCLUDING_SELF | icr);
    for (uint32_t i = 0; i < ICR_SPINS && (apic_read(XAPIC_ICR_LOW) & ICR_DELIVERY_PENDING); i++)
        cpu_relax();
}

void apic_init_others(void)
{
    send_to_others(ICR_LEVEL_ASSERT | ICR_INIT);
}

void apic_startup_others(uint32_t page)
{
    send_to_others(ICR_LEVEL_ASSERT | ICR_STARTUP | (page >> 12));
}
