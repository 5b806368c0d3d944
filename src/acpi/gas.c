/* SPDX-License-Identifier: MIT */
#include "acpi/gas.h"
#include "lib/string.h"

#define FOUR_GIB 0x100000000ull

bool acpi_gas_usable(const struct acpi_gas *g)
{
    if (!g->address)
        return false;
    if (g->bit_width != 8 && g->bit_width != 16 && g->bit_width != 32)
        return false;
    if (g->space_id == ACPI_GAS_IO)
        return g->address <= 0xffff;
    return g->space_id == ACPI_GAS_MEMORY && g->address < FOUR_GIB;
}

bool acpi_gas_from_kernel(const struct tboot_acpi_gas *in, struct acpi_gas *out)
{
    *out = (struct acpi_gas){ in->space_id, in->bit_width, in->bit_offset, in->access_width,
                              in->address };
    if (acpi_gas_usable(out))
        return true;
    memset(out, 0, sizeof(*out));
    return false;
}
