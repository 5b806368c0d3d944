/* SPDX-License-Identifier: MIT */
#include <stdbool.h>

#include "acpi/gas.h"
#include "arch/x86/io.h"
#include "common/machine.h"
#include "drivers/acpi_pm.h"
#include "log/printk.h"

static struct acpi_platform acpi;
static bool acpi_ok;

void machine_init(uint64_t rsdp)
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

const struct acpi_platform *machine_acpi(void)
{
    return acpi_ok ? &acpi : 0;
}

void machine_stop_cpu(void)
{
    cpu_halt_forever();
}

void machine_power_off(void)
{
    if (!acpi_ok)
        machine_init(0);             /* a halt before the tables were read: search for them */
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
    pr_err("power-off did not happen; resetting the machine instead\n");
    machine_reset();
}

void machine_reset(void)
{
    acpi_pm_reset(acpi_ok && acpi.reset_supported ? &acpi.reset_reg : 0, acpi.reset_value);
}

void machine_sleep_as_kernel_asks(const struct tboot_acpi_sleep_info *s)
{
    struct acpi_gas a, b = { 0 };

    if (!acpi_gas_from_kernel(&s->pm1a_cnt_blk, &a)) {
        pr_err("shutdown: the kernel's PM1a_CNT (space %u, width %u, 0x%llx) is unusable\n",
               s->pm1a_cnt_blk.space_id, s->pm1a_cnt_blk.bit_width,
               (unsigned long long)s->pm1a_cnt_blk.address);
        return;
    }
    if (!acpi_gas_from_kernel(&s->pm1b_cnt_blk, &b))
        b = (struct acpi_gas){ 0 };
    acpi_pm1_sleep(&a, &b, s->pm1a_cnt_val, s->pm1b_cnt_val);
    pr_err("shutdown: the platform did not enter the sleep state\n");
}
