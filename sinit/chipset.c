/* SPDX-License-Identifier: MIT */
/* The TXT chipset's configuration spaces, as the SINIT uses them (include/abi/txt.h), and the
 * MCH's SMRAM control. */
#include "abi/txt.h"
#include "arch/x86/io.h"
#include "drivers/pci.h"
#include "txt/smram.h"
#include "sinit.h"

static uint64_t read64(uintptr_t a)
{
    uint32_t lo = mmio_read32(a), hi = mmio_read32(a + 4);
    return (uint64_t)hi << 32 | lo;
}

uint64_t txt_priv_read(uint32_t off)
{
    return read64(TXT_PRIV_CONFIG_REGS_BASE + off);
}

uint64_t txt_pub_read(uint32_t off)
{
    return read64(TXT_PUB_CONFIG_REGS_BASE + off);
}

void txt_priv_cmd(uint32_t off)
{
    mmio_write32(TXT_PRIV_CONFIG_REGS_BASE + off, 1);
    (void)mmio_read32(TXT_PRIV_CONFIG_REGS_BASE + TXTCR_E2STS);   /* a fence, as tboot reads */
}

void txt_error_reset(uint32_t code)
{
    mmio_write32(TXT_PRIV_CONFIG_REGS_BASE + TXTCR_ERRORCODE, code);
    txt_priv_cmd(TXTCR_CMD_RESET);
    for (;;)
        __asm__ __volatile__("hlt");
}

/* through 0xcf8/0xcfc, which no one can move (the MMCONFIG window's base is the loader's) */
uint8_t mch_smramc(void)
{
    return (uint8_t)(pci_read32(0, 0, MCH_SMRAMC & ~3u) >> (MCH_SMRAMC & 3u) * 8);
}
