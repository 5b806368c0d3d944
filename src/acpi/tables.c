/* SPDX-License-Identifier: MIT */
#include "acpi/tables.h"

#include "abi/acpi.h"
#include "lib/bytes.h"
#include "lib/format.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

#define MADT_ENTRIES 44u                 /* header, local APIC address, flags */
#define MADT_LAPIC 0u
#define MADT_X2APIC 9u
#define MADT_LAPIC_FLAGS 4u              /* type, length, processor id, APIC id, flags */
#define MADT_X2APIC_FLAGS 8u             /* type, length, reserved, x2APIC id, flags */
#define MADT_ENABLED 1u
#define DMAR_STRUCTS 48u                 /* header, host address width, flags, reserved */
#define DMAR_DRHD 0u
#define DMAR_DRHD_MIN 16u                /* type, length, flags, reserved, segment, base */
#define MCFG_ENTRIES 44u                 /* header, 8 reserved */
#define MCFG_ENTRY 16u                   /* base, segment, start bus, end bus, reserved */

int acpi_madt_enabled_cpus(const uint8_t *madt, uint32_t len)
{
    int n = 0;
    for (uint32_t off = MADT_ENTRIES; off < len;) {
        if (len - off < 2 || madt[off + 1] < 2 || madt[off + 1] > len - off)
            return -1;
        uint8_t type = madt[off], elen = madt[off + 1];
        if (type == MADT_LAPIC && elen >= MADT_LAPIC_FLAGS + 4 &&
            (load_le32(madt + off + MADT_LAPIC_FLAGS) & MADT_ENABLED))
            n++;
        if (type == MADT_X2APIC && elen >= MADT_X2APIC_FLAGS + 4 &&
            (load_le32(madt + off + MADT_X2APIC_FLAGS) & MADT_ENABLED))
            n++;
        off += elen;
    }
    return n;
}

int acpi_dmar_drhds(const uint8_t *dmar, uint32_t len, struct acpi_drhd *drhds, unsigned max,
                    unsigned *n, char *err, unsigned errlen)
{
    *n = 0;
    if (len < DMAR_STRUCTS)
        FAIL("DMAR: %u bytes, shorter than its header", len);
    for (uint32_t off = DMAR_STRUCTS; off < len;) {
        if (len - off < 4)
            FAIL("DMAR: a structure header at %u runs past the table", off);
        uint16_t type = load_le16(dmar + off), slen = load_le16(dmar + off + 2);
        if (slen < 4 || slen > len - off)
            FAIL("DMAR: structure at %u has length %u (the table ends at %u)", off, slen, len);
        if (type == DMAR_DRHD) {
            if (slen < DMAR_DRHD_MIN)
                FAIL("DMAR: DRHD at %u is %u bytes, shorter than 16", off, slen);
            if (*n < max)
                drhds[*n] = (struct acpi_drhd){ .base = load_le64(dmar + off + 8),
                                                .segment = load_le16(dmar + off + 6),
                                                .flags = dmar[off + 4] };
            ++*n;
        }
        off += slen;
    }
    return 0;
}

int acpi_mcfg_segment0(const uint8_t *mcfg, uint32_t len, uint64_t *base, uint64_t *size)
{
    for (uint32_t off = MCFG_ENTRIES; len >= MCFG_ENTRY && off <= len - MCFG_ENTRY;
         off += MCFG_ENTRY) {
        const uint8_t *e = mcfg + off;
        if (load_le16(e + 8) != 0 || e[11] < e[10])
            continue;
        *base = load_le64(e) + ((uint64_t)e[10] << 20);   /* ECAM: bus b at base + b MiB */
        *size = (uint64_t)(e[11] - e[10] + 1) << 20;
        return 0;
    }
    return -1;
}
