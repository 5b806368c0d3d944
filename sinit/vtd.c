/* SPDX-License-Identifier: MIT */
/* A VT-d remapping unit's protected memory regions (PLMR/PHMR; docs/txt-platform.md 0009). */
#include "arch/x86/io.h"
#include "lib/format.h"
#include "sinit.h"

#define VTD_CAP 0x08
#define VTD_CAP_PLMR (1u << 5)
#define VTD_CAP_PHMR (1u << 6)
#define VTD_PMEN 0x64
#define VTD_PMEN_EPM (1u << 31)
#define VTD_PMEN_PRS (1u << 0)
#define VTD_PLMBASE 0x68
#define VTD_PLMLIMIT 0x6c
#define VTD_PHMBASE 0x70
#define VTD_PHMLIMIT 0x78
#define PRS_SPINS 1000000u

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static void write64(uintptr_t a, uint64_t v)
{
    mmio_write32(a, (uint32_t)v);
    mmio_write32(a + 4, (uint32_t)(v >> 32));
}

int vtd_set_pmrs(uint64_t drhd, uint64_t lo_base, uint64_t lo_size, uint64_t hi_base,
                 uint64_t hi_size, char *err, unsigned errlen)
{
    if (drhd >= 0x100000000ull)
        FAIL("DRHD at 0x%llx: above 4 GiB", (unsigned long long)drhd);
    uintptr_t r = (uintptr_t)drhd;
    uint32_t cap = mmio_read32(r + VTD_CAP);
    if (!(cap & VTD_CAP_PLMR) || !(cap & VTD_CAP_PHMR))
        FAIL("DRHD at 0x%x has no protected memory regions (CAP 0x%x)", (unsigned)r, cap);
    /* a limit below its base is an empty region (the low bits read as 0s in a base, 1s in a
     * limit) */
    mmio_write32(r + VTD_PLMBASE, lo_size ? (uint32_t)lo_base : 0xffe00000u);
    mmio_write32(r + VTD_PLMLIMIT, lo_size ? (uint32_t)(lo_base + lo_size - 1) : 0);
    write64(r + VTD_PHMBASE, hi_size ? hi_base : ~0ull);
    write64(r + VTD_PHMLIMIT, hi_size ? hi_base + hi_size - 1 : 0);
    mmio_write32(r + VTD_PMEN, VTD_PMEN_EPM);
    for (uint32_t i = 0; !(mmio_read32(r + VTD_PMEN) & VTD_PMEN_PRS); i++)
        if (i == PRS_SPINS)
            FAIL("DRHD at 0x%x: PMEN.PRS never set", (unsigned)r);
    return 0;
}
