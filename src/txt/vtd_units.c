/* SPDX-License-Identifier: MIT */
#include "txt/vtd_units.h"

#include "abi/txt.h"
#include "acpi/acpi.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
#define REFUSE(r, ...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return (r); } while (0)

#define VTD_CAP_PLMR (1u << 5)
#define VTD_CAP_PHMR (1u << 6)
#define VTD_CAP_MGAW(c) ((unsigned)(((c) >> 16) & 0x3fu) + 1u)
#define VTD_PLMBASE 0x68u
#define VTD_PLMLIMIT 0x6cu
#define VTD_PHMBASE 0x70u
#define VTD_PHMLIMIT 0x78u
#define PMR_LOW_BITS 0x1fffffull             /* below the 2 MiB granularity */

/* QEMU's q35 with the TXT device (qemu/patches 0004: DIDVID 0x8086:0xB00F): the one
 * intel-iommu at Q35_HOST_BRIDGE_IOMMU_ADDR, which QEMU 7.2's DMAR names in segment 0 with
 * flags 0 and a device scope for the IOAPIC and every PCI device behind it
 * (hw/i386/acpi-build.c build_dmar_q35). Every base below 4 GiB: the SINIT reaches the
 * units in 32-bit flat mode. */
static const struct acpi_drhd q35_units[] = {
    { .base = 0xfed90000ull, .segment = 0, .flags = 0 },
};

static const struct {
    uint16_t vendor, device;
    const struct acpi_drhd *units;
    unsigned n;
} chipsets[] = {
    { 0x8086, 0xb00f, q35_units, sizeof(q35_units) / sizeof(q35_units[0]) },
};

const struct acpi_drhd *txt_chipset_vtd_units(uint64_t didvid, unsigned *n)
{
    for (unsigned i = 0; i < sizeof(chipsets) / sizeof(chipsets[0]); i++)
        if (chipsets[i].vendor == TXT_DIDVID_VENDOR(didvid) &&
            chipsets[i].device == TXT_DIDVID_DEVICE(didvid)) {
            *n = chipsets[i].n;
            return chipsets[i].units;
        }
    *n = 0;
    return NULL;
}

enum txt_dmar_result txt_dmar_take(const uint8_t *ram, uint32_t len, uint8_t *copy,
                                   uint32_t cap, const struct acpi_drhd *units, unsigned n,
                                   unsigned *sub, char *err, unsigned errlen)
{
    /* one more than the units: a DMAR naming more has an unknown or a twice-named unit among
     * its first n + 1 */
    struct acpi_drhd d[TXT_VTD_MAX_UNITS + 1];
    bool named[TXT_VTD_MAX_UNITS] = { false };
    unsigned nd;

    *sub = 0;
    if (len > cap)
        REFUSE(TXT_DMAR_TOO_BIG, "DMAR: %u bytes, more than the SINIT's %u", len, cap);
    memcpy(copy, ram, len);
    if (len < sizeof(struct acpi_sdt_header) || memcmp(copy, "DMAR", 4) ||
        load_le32(copy + 4) != len || acpi_checksum(copy, len))
        REFUSE(TXT_DMAR_MALFORMED, "DMAR: the copy's signature, length or checksum is wrong");
    if (acpi_dmar_drhds(copy, len, d, TXT_VTD_MAX_UNITS + 1, &nd, err, errlen))
        return TXT_DMAR_MALFORMED;
    for (unsigned i = 0; i < nd && i <= TXT_VTD_MAX_UNITS; i++) {
        unsigned u = 0;
        while (u < n && u < TXT_VTD_MAX_UNITS && units[u].base != d[i].base)
            u++;
        *sub = u == n || u == TXT_VTD_MAX_UNITS ? TXT_DMAR_UNIT_UNKNOWN
               : named[u]                      ? TXT_DMAR_UNIT_TWICE
               : units[u].segment != d[i].segment || units[u].flags != d[i].flags
                   ? TXT_DMAR_UNIT_DIFFERS : 0;
        if (*sub)
            REFUSE(TXT_DMAR_UNITS, "DMAR: DRHD %u (0x%llx, segment %u, flags 0x%x) %s", i,
                   (unsigned long long)d[i].base, d[i].segment, d[i].flags,
                   *sub == TXT_DMAR_UNIT_UNKNOWN ? "is no remapping unit of this chipset"
                   : *sub == TXT_DMAR_UNIT_TWICE ? "names a unit a second time"
                                                 : "differs from the chipset's unit");
        named[u] = true;
    }
    for (unsigned u = 0; u < n && u < TXT_VTD_MAX_UNITS; u++)
        if (!named[u]) {
            *sub = TXT_DMAR_UNIT_MISSING;
            REFUSE(TXT_DMAR_UNITS, "DMAR: no DRHD for the chipset's remapping unit at 0x%llx",
                   (unsigned long long)units[u].base);
        }
    return TXT_DMAR_OK;
}

int txt_pmr_regs(uint64_t cap, uint64_t lo_base, uint64_t lo_size, uint64_t hi_base,
                 uint64_t hi_size, struct txt_pmr_reg r[TXT_PMR_REGS], char *err,
                 unsigned errlen)
{
    if (!(cap & VTD_CAP_PLMR) || !(cap & VTD_CAP_PHMR))
        FAIL("no protected memory regions (CAP 0x%llx)", (unsigned long long)cap);
    unsigned mgaw = VTD_CAP_MGAW(cap);
    uint64_t hi_bits = (mgaw >= 64 ? ~0ull : (1ull << mgaw) - 1) & ~PMR_LOW_BITS;
    uint64_t lo_bits = 0xffffffffull & ~PMR_LOW_BITS;
    /* a limit below its base is an empty region (the low bits read as 0s in a base, 1s in a
     * limit) */
    r[0] = (struct txt_pmr_reg){ VTD_PLMBASE, 4, lo_size ? (uint32_t)lo_base : 0xffe00000u,
                                 lo_bits };
    r[1] = (struct txt_pmr_reg){ VTD_PLMLIMIT, 4,
                                 lo_size ? (uint32_t)(lo_base + lo_size - 1) : 0, lo_bits };
    r[2] = (struct txt_pmr_reg){ VTD_PHMBASE, 8, hi_size ? hi_base : ~0ull, hi_bits };
    r[3] = (struct txt_pmr_reg){ VTD_PHMLIMIT, 8, hi_size ? hi_base + hi_size - 1 : 0, hi_bits };
    return 0;
}

bool txt_pmr_holds(const struct txt_pmr_reg *r, uint64_t readback)
{
    return ((readback ^ r->value) & r->holds) == 0;
}
