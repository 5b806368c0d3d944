/* SPDX-License-Identifier: MIT */
/*
 * Which ACPI Generic Address Structures vtboot touches: the rule drivers/acpi_pm.c applies
 * before a read or write, and the conversion of the registers the kernel hands over in the
 * shared page (tboot_acpi_sleep_info), which the platform's sleep then writes.
 */
#ifndef ACPI_GAS_H
#define ACPI_GAS_H

#include <stdbool.h>

#include "abi/acpi.h"
#include "abi/tboot_shared.h"

/*
 * A register vtboot can access: a nonzero address; 8, 16 or 32 bits wide; in system I/O space
 * at a port up to 0xffff or in system memory below 4 GiB. bit_offset and access_size are not
 * looked at (vtboot accesses the whole register at its width).
 *
 * The width rule is the stricter of the two vtboot had: the kernel's registers (shutdown's
 * gas_usable) had it; drivers/acpi_pm.c's gas_read/gas_write, used for the FADT's own
 * registers, accepted any width and accessed one that is not 8 or 32 as 16 bits. Every FADT
 * that follows ACPI gives the registers vtboot uses a width the stricter rule accepts
 * (PM1x_CNT: PM1_CNT_LEN >= 2, so 16 or 32 bits; acpi.c gives a legacy block width
 * PM1_CNT_LEN * 8; RESET_REG: 8 bits), and QEMU's (pc, q35) give 16 and 8. Only a firmware
 * with another width (0, 24, 64 in an X_ block) would see a difference: today a 16-bit access
 * at that address, with this rule no access and the caller's fallback (a power-off falls to
 * the reset, the reset register to port 0xcf9). The kernel's registers do not differ: Linux's
 * ACPICA (tbfadt.c, acpi_tb_setup_fadt_registers) sets a PM1 block whose width is not its
 * default to the default (16 bits for PM1x_CNT) before the kernel copies it.
 */
bool acpi_gas_usable(const struct acpi_gas *g);

/* The kernel's GAS (the same fields under tboot's names) as vtboot's, if acpi_gas_usable;
 * else false and *out all zero (an absent register: address 0, refused by every access). */
bool acpi_gas_from_kernel(const struct tboot_acpi_gas *in, struct acpi_gas *out);

#endif
