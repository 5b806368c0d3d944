/* SPDX-License-Identifier: MIT */
/* Ending the machine from vtboot itself: a clean halt powers the VM off through ACPI S5 so
 * the host sees a defined end; without usable ACPI the CPU stops with interrupts off. */
#ifndef PLATFORM_H
#define PLATFORM_H

#include "acpi/acpi.h"

/* Finds the platform's ACPI tables (rsdp: a loader-given copy's address, or 0 to search). */
void platform_init(uint64_t rsdp);
const struct acpi_platform *platform_acpi(void);

/* Runs before every halt (the launch caps its PCRs there); one hook, set once launched. */
typedef void (*platform_halt_hook)(const char *why);
void platform_set_halt_hook(platform_halt_hook hook);

/* Says why, runs the hook, powers off. */
__attribute__((noreturn)) void platform_halt(const char *why);
__attribute__((noreturn)) void platform_halt_silently(void);
__attribute__((noreturn)) void platform_poweroff(void);
__attribute__((noreturn)) void platform_reboot(void);

#endif
