/* SPDX-License-Identifier: MIT */
/* ACPI fixed hardware: PM1 control/event registers and the reset register. */
#ifndef DRIVERS_ACPI_PM_H
#define DRIVERS_ACPI_PM_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/acpi.h"

/* Reads/writes a GAS register; false, touching nothing, unless acpi_gas_usable (acpi/gas.h). */
bool gas_read(const struct acpi_gas *g, uint32_t *v);
bool gas_write(const struct acpi_gas *g, uint32_t v);

/* Enters sleep state with SLP_TYP values typ_a/typ_b: writes PM1a/PM1b_CNT. Returns only if
 * the platform did not sleep (for S3: after wake-up, when WAK_STS is seen). */
void acpi_pm1_sleep(const struct acpi_gas *cnt_a, const struct acpi_gas *cnt_b, uint16_t val_a,
                    uint16_t val_b);

/* Resets the machine: the FADT reset register if given, then 0xcf9, then the keyboard
 * controller. Does not return. */
__attribute__((noreturn)) void acpi_pm_reset(const struct acpi_gas *reset_reg, uint8_t value);

#endif
