/* SPDX-License-Identifier: MIT */
/*
 * ACPI: byte 0 selects the mode, the rest is the payload.
 *   bit 0 set: the payload is an AML stream for acpi_aml_find_s5().
 *   else:      the payload is guest memory at 0xe0000 (the BIOS area), RSDP at its start, and
 *              acpi_read_platform() reads it; bit 1 fixes the checksums of the RSDP and every
 *              table reachable from it first, so mutations get past them; bit 2 searches the
 *              RSDP with acpi_find_rsdp() instead.
 */
#include "fuzz_common.h"

#include "acpi/acpi.h"

#define BASE 0xe0000u

static uint8_t *img;
static size_t img_len;

static uint8_t *at(uint64_t addr, uint64_t len)
{
    if (addr < BASE || addr - BASE > img_len || len > img_len - (addr - BASE))
        return NULL;
    return img + (addr - BASE);
}

static void fix_table(uint64_t addr)
{
    uint8_t *t = at(addr, 36);
    if (!t)
        return;
    uint32_t len = get32(t, 4);
    if (len >= 36 && at(addr, len))
        acpi_fix_checksum(t, len, 9);
}

static void fix_all(void)
{
    uint8_t *r = at(BASE, 20);
    if (!r)
        return;
    uint64_t roots[2] = { get32(r, 16), 0 };
    acpi_fix_checksum(r, 20, 8);
    if (r[15] >= 2 && at(BASE, 36)) {
        uint32_t len = get32(r, 20);
        roots[1] = get64(r, 24);
        if (len >= 36 && at(BASE, len))
            acpi_fix_checksum(r, len, 32);
    }
    for (unsigned k = 0; k < 2; k++) {
        uint8_t *t = at(roots[k], 36);
        if (!t)
            continue;
        uint32_t len = get32(t, 4), es = k ? 8 : 4;
        if (len < 36 || !at(roots[k], len))
            continue;
        for (uint32_t o = 36; o + es <= len && o < 36 + 8 * 16; o += es) {
            uint64_t f = es == 8 ? get64(t, o) : get32(t, o);
            uint8_t *ft = at(f, 36);
            if (!ft)
                continue;
            uint32_t flen = get32(ft, 4);
            if (flen >= 44 && at(f, flen)) {
                fix_table(get32(ft, 40));                 /* DSDT */
                if (flen >= 148)
                    fix_table(get64(ft, 140));            /* X_DSDT */
            }
            fix_table(f);
        }
        fix_table(roots[k]);
    }
    acpi_fix_checksum(r, 20, 8);
    if (r[15] >= 2 && at(BASE, 36)) {
        uint32_t len = get32(r, 20);
        if (len >= 36 && at(BASE, len))
            acpi_fix_checksum(r, len, 32);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 0x20001)
        return 0;
    uint8_t mode = data[0];
    data++;
    size--;

    if (mode & 1) {
        uint8_t *aml = malloc(size ? size : 1);
        memcpy(aml, data, size);
        /* twice, with different values in the outputs: when found, both are written */
        uint8_t a = 0xee, b = 0xee, a2 = 0x11, b2 = 0x11;
        bool found = acpi_aml_find_s5(aml, (uint32_t)size, &a, &b);
        bool found2 = acpi_aml_find_s5(aml, (uint32_t)size, &a2, &b2);
        FUZZ_ASSERT(found == found2, "not deterministic");
        if (found)
            FUZZ_ASSERT(a == a2 && b == b2, "found without writing both values");
        FUZZ_ASSERT(!found || (size >= 9 && memmem(aml, size, "_S5_", 4)), "found in %zu bytes",
                    size);
        free(aml);
        return 0;
    }

    phys_fake_reset();
    img = phys_fake_add_copy(BASE, data, size);
    img_len = size;
    if (mode & 2)
        fix_all();
    uint64_t rsdp = BASE;
    if (mode & 4) {
        rsdp = acpi_find_rsdp();
        if (!rsdp) {
            phys_fake_reset();
            return 0;
        }
        FUZZ_ASSERT(rsdp % 16 == 0 && rsdp >= BASE && rsdp + 20 <= BASE + size, "rsdp 0x%llx",
                    (unsigned long long)rsdp);
        FUZZ_ASSERT(memcmp(img + (rsdp - BASE), "RSD PTR ", 8) == 0, "no signature");
    }
    struct acpi_platform p;
    char err[192];
    memset(err, 0x55, sizeof(err));
    int rc = acpi_read_platform(rsdp, &p, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    if (rc == 0) {
        FUZZ_ASSERT(p.rsdp == rsdp, "rsdp");
        FUZZ_ASSERT(!p.reset_supported || p.reset_reg.address != 0, "reset without address");
    } else {
        FUZZ_ASSERT(strncmp(err, "ACPI: ", 6) == 0, "message '%s'", err);
    }
    phys_fake_reset();
    return 0;
}
