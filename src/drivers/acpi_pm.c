/* SPDX-License-Identifier: MIT */
#include "acpi/gas.h"
#include "arch/x86/io.h"
#include "drivers/acpi_pm.h"

bool gas_read(const struct acpi_gas *g, uint32_t *v)
{
    if (!acpi_gas_usable(g))
        return false;
    if (g->space_id == ACPI_GAS_IO) {
        uint16_t port = (uint16_t)g->address;
        *v = g->bit_width == 8 ? inb(port) : g->bit_width == 32 ? inl(port) : inw(port);
    } else {
        uintptr_t a = (uintptr_t)g->address;
        *v = g->bit_width == 8 ? mmio_read8(a) : g->bit_width == 32 ? mmio_read32(a)
                                                                     : mmio_read16(a);
    }
    return true;
}

bool gas_write(const struct acpi_gas *g, uint32_t v)
{
    if (!acpi_gas_usable(g))
        return false;
    if (g->space_id == ACPI_GAS_IO) {
        uint16_t port = (uint16_t)g->address;
        if (g->bit_width == 8)
            outb(port, (uint8_t)v);
        else if (g->bit_width == 32)
            outl(port, v);
        else
            outw(port, (uint16_t)v);
    } else {
        uintptr_t a = (uintptr_t)g->address;
        if (g->bit_width == 8)
            mmio_write8(a, (uint8_t)v);
        else if (g->bit_width == 32)
            mmio_write32(a, v);
        else
            mmio_write16(a, (uint16_t)v);
    }
    return true;
}

void acpi_pm1_sleep(const struct acpi_gas *cnt_a, const struct acpi_gas *cnt_b, uint16_t val_a,
                    uint16_t val_b)
{
    wbinvd();
    if (!gas_write(cnt_a, val_a))
        return;
    gas_write(cnt_b, val_b);
    for (unsigned i = 0; i < 1000000u; i++)
        cpu_relax();
}

void acpi_pm_reset(const struct acpi_gas *reset_reg, uint8_t value)
{
    if (reset_reg && reset_reg->address)
        gas_write(reset_reg, value);
    outb(0xcf9, 0x02);
    outb(0xcf9, 0x06);
    outb(0x64, 0xfe);
    cpu_halt_forever();
}
