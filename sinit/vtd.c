/* SPDX-License-Identifier: MIT */
/* A VT-d remapping unit's protected memory regions (PLMR/PHMR; docs/txt-platform.md 0009):
 * the registers src/txt/vtd_units.c plans, each read back after it is written. */
#include "arch/x86/io.h"
#include "lib/format.h"
#include "sinit.h"
#include "txt/vtd_units.h"

#define VTD_CAP 0x08
#define VTD_PMEN 0x64
#define VTD_PMEN_EPM (1u << 31)
#define VTD_PMEN_PRS (1u << 0)
#define PRS_SPINS 1000000u

#define REFUSE(r, ...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return (r); } while (0)

int vtd_set_pmrs(uint32_t unit, uint64_t lo_base, uint64_t lo_size, uint64_t hi_base,
                 uint64_t hi_size, unsigned *reg, char *err, unsigned errlen)
{
    struct txt_pmr_reg r[TXT_PMR_REGS];
    uintptr_t u = unit;
    uint64_t cap = mmio_read32(u + VTD_CAP) | (uint64_t)mmio_read32(u + VTD_CAP + 4) << 32;
    if (txt_pmr_regs(cap, lo_base, lo_size, hi_base, hi_size, r, err, errlen))
        return TXT_VTD_UNIT_BAD;
    for (*reg = 0; *reg < TXT_PMR_REGS; ++*reg) {
        const struct txt_pmr_reg *p = &r[*reg];
        uint64_t back;
        mmio_write32(u + p->off, (uint32_t)p->value);
        if (p->bytes == 8)
            mmio_write32(u + p->off + 4, (uint32_t)(p->value >> 32));
        back = mmio_read32(u + p->off);
        if (p->bytes == 8)
            back |= (uint64_t)mmio_read32(u + p->off + 4) << 32;
        if (!txt_pmr_holds(p, back))
            REFUSE(TXT_PMR_NOT_HELD, "register 0x%x reads 0x%llx after 0x%llx was written",
                   p->off, (unsigned long long)back, (unsigned long long)p->value);
    }
    mmio_write32(u + VTD_PMEN, VTD_PMEN_EPM);
    for (uint32_t i = 0; !(mmio_read32(u + VTD_PMEN) & VTD_PMEN_PRS); i++)
        if (i == PRS_SPINS)
            REFUSE(TXT_VTD_UNIT_BAD, "PMEN.PRS never set");
    return 0;
}
