/* SPDX-License-Identifier: MIT */
/* Sleep states the kernel asks for through shutdown_entry (shutdown.c). */
#ifndef SHUTDOWN_H
#define SHUTDOWN_H

#include "abi/tboot_shared.h"

/* Writes the PM1 control values the kernel computed (SLP_TYP | SLP_EN) to the registers it
 * named, after checking them; returns if the platform did not sleep. */
void acpi_pm1_sleep_kernel(const struct tboot_acpi_sleep_info *si);

#endif
