/* SPDX-License-Identifier: MIT */
/*
 * The machine's ACPI fixed hardware, as vtboot ends or sleeps it: power off through S5, reset,
 * or the sleep state the kernel computed. Nothing here caps PCRs: after a launch, ending the
 * machine goes through halt() (common/halt.h) or the shutdown path, which cap first.
 */
#ifndef COMMON_MACHINE_H
#define COMMON_MACHINE_H

#include "abi/tboot_shared.h"
#include "acpi/acpi.h"

/* Finds the platform's ACPI tables (rsdp: a loader-given copy's address, or 0 to search). */
void machine_init(uint64_t rsdp);
const struct acpi_platform *machine_acpi(void);

/* S5 from the FADT; a machine that will not power off is reset: it ends, never hangs. */
__attribute__((noreturn)) void machine_power_off(void);
/* The FADT's reset register if any, then 0xcf9, then the keyboard controller. */
__attribute__((noreturn)) void machine_reset(void);
/* This CPU stops, interrupts off (no console known, or a CPU that is not the one ending). */
__attribute__((noreturn)) void machine_stop_cpu(void);

/* Writes the PM1 control values the kernel computed (SLP_TYP | SLP_EN) to the registers it
 * named, after checking them (acpi_gas_from_kernel); returns if the platform did not sleep. */
void machine_sleep_as_kernel_asks(const struct tboot_acpi_sleep_info *si);

#endif
