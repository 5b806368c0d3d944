/* SPDX-License-Identifier: MIT */
#include <stdbool.h>

#include "arch/x86/io.h"
#include "drivers/acpi_pm.h"
#include "log/printk.h"
#include "platform.h"

static struct acpi_platform acpi;
static bool acpi_ok;
static platform_halt_hook halt_hook;

void platform_set_halt_hook(platform_halt_hook hook)
{
    halt_hook = hook;
}

void platform_init(uint64_t rsdp)
{
    char err[128];

    if (!rsdp)
        rsdp = acpi_find_rsdp();
    if (!rsdp) {
        pr_warn("ACPI: no RSDP found; halt will stop the CPU instead of powering off\n");
        return;
    }
    if (acpi_read_platform(rsdp, &acpi, err, sizeof(err))) {
        pr_warn("%s\n", err);
        return;
    }
    acpi_ok = true;
    pr_detail("ACPI: RSDP 0x%llx FACS 0x%llx PM1a_CNT %s 0x%llx, S5 %s (SLP_TYP %u/%u)\n",
              (unsigned long long)acpi.rsdp, (unsigned long long)acpi.facs,
              acpi.pm1a_cnt.space_id == ACPI_GAS_IO ? "io" : "mem",
              (unsigned long long)acpi.pm1a_cnt.address, acpi.s5_known ? "known" : "unknown",
              acpi.s5_typ_a, acpi.s5_typ_b);
    if (!acpi.facs)
        pr_warn("ACPI: no FACS (the FADT's FIRMWARE_CTRL and X_FIRMWARE_CTRL are 0): no waking "
                "vector, so no S3; a suspend request will halt with PCRs capped\n");
}

const struct acpi_platform *platform_acpi(void)
{
    return acpi_ok ? &acpi : 0;
}

void platform_halt_silently(void)
{
    cpu_halt_forever();
}

void platform_poweroff(void)
{
    if (!acpi_ok)
        platform_init(0);            /* a halt before the tables were read: search for them */
    if (acpi_ok && acpi.s5_known) {
        uint32_t a = 0, b = 0;
        gas_read(&acpi.pm1a_cnt, &a);
        gas_read(&acpi.pm1b_cnt, &b);
        a = (a & ~ACPI_PM1_SLP_TYP_MASK) | ((uint32_t)acpi.s5_typ_a << ACPI_PM1_SLP_TYP_SHIFT) |
            ACPI_PM1_SLP_EN;
        b = (b & ~ACPI_PM1_SLP_TYP_MASK) | ((uint32_t)acpi.s5_typ_b << ACPI_PM1_SLP_TYP_SHIFT) |
            ACPI_PM1_SLP_EN;
        acpi_pm1_sleep(&acpi.pm1a_cnt, &acpi.pm1b_cnt, (uint16_t)a, (uint16_t)b);
    }
    /* a machine that will not power off is reset: it must end, never hang */
    pr_err("power-off did not happen; resetting the machine instead\n");
    platform_reboot();
}

void platform_reboot(void)
{
    platform_reset(acpi_ok && acpi.reset_supported ? &acpi.reset_reg : 0, acpi.reset_value);
}

void platform_halt(const char *why)
{
    platform_halt_hook hook = halt_hook;

    pr_err("HALT: %s\n", why);
    halt_hook = 0;                   /* a halt inside the hook ends here, not in a loop */
    if (hook)
        hook(why);
    platform_poweroff();
}
