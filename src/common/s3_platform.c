/* SPDX-License-Identifier: MIT */
#include "abi/acpi.h"
#include "common/machine.h"
#include "common/s3_platform.h"
#include "drivers/pci.h"
#include "layout.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "log/printk.h"

extern char _s3_state[];

struct s3_state *s3_state_area(void)
{
    _Static_assert(sizeof(struct s3_state) <= 0x8000, "S3 state fits its area");
    return (struct s3_state *)_s3_state;
}

void s3_keep_rsdp(struct s3_state *s)
{
    const struct acpi_platform *acpi = machine_acpi();
    const struct acpi_rsdp *r = acpi ? phys_map(acpi->rsdp, ACPI_RSDP_V1_LEN) : 0;

    s->rsdp_len = !r ? 0 : r->revision >= 2 ? ACPI_RSDP_V2_LEN : ACPI_RSDP_V1_LEN;
    if (s->rsdp_len)
        memcpy(s->rsdp, phys_map(acpi->rsdp, s->rsdp_len), s->rsdp_len);
}

uint64_t s3_resume_rsdp(const struct s3_state *s)
{
    static uint8_t copy[BOOT_RSDP_MAX] __attribute__((aligned(16)));

    if (s->rsdp_len != ACPI_RSDP_V1_LEN && s->rsdp_len != ACPI_RSDP_V2_LEN)
        return 0;                    /* found by searching */
    memcpy(copy, s->rsdp, s->rsdp_len);
    return sym_addr(copy);
}

/*
 * q35's wake-up is a machine reset that clears the ICH9 LPC bridge's ACPI registers (PMBASE,
 * ACPI_CNTL, RCBA), and SeaBIOS programs them only at first boot: without them PM1a_CNT is
 * gone, and the next S3 or power off does nothing. A platform's firmware restores them on
 * resume; here vtboot's waking vector is that firmware.
 */
#define ICH9_LPC_DEV 31
#define ICH9_LPC_ID 0x29188086u              /* device 0x2918, vendor Intel */
static const unsigned lpc_regs[3] = { 0x40, 0x44, 0xf0 };

void s3_save_chipset(struct s3_state *s)
{
    if (pci_read32(ICH9_LPC_DEV, 0, 0) != ICH9_LPC_ID)
        return;
    for (unsigned i = 0; i < 3; i++)
        s->lpc_config[i] = pci_read32(ICH9_LPC_DEV, 0, lpc_regs[i]);
}

void s3_restore_chipset(const struct s3_state *s)
{
    if (!s->lpc_config[0] || pci_read32(ICH9_LPC_DEV, 0, 0) != ICH9_LPC_ID)
        return;
    for (unsigned i = 0; i < 3; i++)
        pci_write32(ICH9_LPC_DEV, 0, lpc_regs[i], s->lpc_config[i]);
    pr_detail("S3: ICH9 LPC PMBASE 0x%x, ACPI_CNTL 0x%x, RCBA 0x%x restored\n",
              s->lpc_config[0], s->lpc_config[1], s->lpc_config[2]);
}
