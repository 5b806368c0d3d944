/* SPDX-License-Identifier: MIT */
#include "arch/x86/io.h"
#include "drivers/ioapic.h"
#include "intc/intc.h"

#define IOAPIC_BASE 0xfec00000u
#define IOAPIC_REGSEL 0x00u
#define IOAPIC_WINDOW 0x10u
#define IOAPIC_VERSION 0x01u
#define IOAPIC_REDIRECTION_LOW(n) (0x10u + 2u * (n))

static uint32_t ioapic_read(uint32_t reg)
{
    mmio_write32(IOAPIC_BASE + IOAPIC_REGSEL, reg);
    return mmio_read32(IOAPIC_BASE + IOAPIC_WINDOW);
}

static void ioapic_write(uint32_t reg, uint32_t v)
{
    mmio_write32(IOAPIC_BASE + IOAPIC_REGSEL, reg);
    mmio_write32(IOAPIC_BASE + IOAPIC_WINDOW, v);
}

void ioapic_mask_all(void)
{
    unsigned n = ioapic_redirection_entries(ioapic_read(IOAPIC_VERSION));
    for (unsigned i = 0; i < n; i++)
        ioapic_write(IOAPIC_REDIRECTION_LOW(i),
                     intc_entry_masked(ioapic_read(IOAPIC_REDIRECTION_LOW(i))));
}
