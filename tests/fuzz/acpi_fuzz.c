/* SPDX-License-Identifier: MIT */
/*
 * ACPI: byte 0 selects the mode, the rest is the payload.
 *   bit 0 set: the payload is an AML stream for acpi_aml_find_s5(); and for
 *              acpi_madt_enabled_cpus(), acpi_dmar_drhds() and acpi_mcfg_segment0()
 *              (src/acpi/tables.c) a whole table, header included, and also the entries alone
 *              after a zeroed 44-byte (MADT, MCFG) and 48-byte (DMAR) header, which they do
 *              not read, so that mutations reach the entries without growing a header first.
 *   else:      the payload is guest memory at 0xe0000 (the BIOS area), RSDP at its start, and
 *              acpi_read_platform() reads it; bit 1 fixes the checksums of the RSDP and every
 *              table reachable from it first, so mutations get past them; bit 2 searches the
 *              RSDP with acpi_find_rsdp() instead. Then acpi_find_table() looks up the FADT,
 *              MADT, DMAR and MCFG, and the tables.c parsers read what it finds.
 */
#include "fuzz_common.h"

#include "acpi/acpi.h"
#include "acpi/tables.h"
#include "lib/bytes.h"

#define MIB (1ull << 20)
#define DRHDS_MAX 8u

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

/* The three table parsers on `len` bytes at t (an exact-size heap copy, so ASan sees any
 * read past len). */
static void parse_tables(const uint8_t *t, uint32_t len)
{
    /* MADT: every counted CPU is an entry of at least 8 bytes after the 44-byte header */
    int cpus = acpi_madt_enabled_cpus(t, len);
    FUZZ_ASSERT(cpus >= -1, "madt %d", cpus);
    if (cpus >= 0)
        FUZZ_ASSERT((uint32_t)cpus <= (len > 44 ? (len - 44) / 8 : 0), "madt %d CPUs in %u bytes",
                    cpus, len);

    /* DMAR: at most `max` DRHDs written (an exact-size array), each at least 16 bytes after
     * the 48-byte header, all counted; with room for fewer the count and the first ones are
     * the same */
    struct acpi_drhd *drhds = malloc(DRHDS_MAX * sizeof(*drhds));
    struct acpi_drhd again[DRHDS_MAX];
    unsigned n = 0xeeee, n2 = 0xeeee;
    char err[128], err2[128];
    memset(err, 0x55, sizeof(err));
    int rc = acpi_dmar_drhds(t, len, drhds, DRHDS_MAX, &n, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    if (rc == 0) {
        FUZZ_ASSERT(len >= 48 && n * 16u <= len - 48, "dmar %u DRHDs in %u bytes", n, len);
        unsigned w = n < DRHDS_MAX ? n : DRHDS_MAX;
        if (w) {
            struct acpi_drhd *exact = malloc((w - 1 ? w - 1 : 1) * sizeof(*exact));
            FUZZ_ASSERT(acpi_dmar_drhds(t, len, exact, w - 1, &n2, err2, sizeof(err2)) == 0 &&
                        n2 == n, "dmar with max %u: %u of %u", w - 1, n2, n);
            FUZZ_ASSERT(memcmp(exact, drhds, (w - 1) * sizeof(*exact)) == 0,
                        "dmar DRHDs differ");
            free(exact);
        }
        FUZZ_ASSERT(acpi_dmar_drhds(t, len, again, 0, &n2, err2, sizeof(err2)) == 0 && n2 == n,
                    "dmar counted without room: %u of %u", n2, n);
    } else {
        FUZZ_ASSERT(strncmp(err, "DMAR: ", 6) == 0, "dmar message '%s'", err);
    }
    free(drhds);

    /* MCFG: a window of whole buses, 1 to 256 of them, from an entry that fits the table */
    uint64_t base = 0x5555, size = 0x5555;
    rc = acpi_mcfg_segment0(t, len, &base, &size);
    FUZZ_ASSERT(rc == 0 || rc == -1, "mcfg rc %d", rc);
    if (rc == 0) {
        FUZZ_ASSERT(len >= 44 + 16, "mcfg segment 0 in %u bytes", len);
        FUZZ_ASSERT(size % MIB == 0 && size >= MIB && size <= 256 * MIB, "mcfg size 0x%llx",
                    (unsigned long long)size);
        bool entry = false;
        for (uint32_t off = 44; off + 16 <= len && !entry; off += 16)
            entry = load_le16(t + off + 8) == 0 &&
                    base == load_le64(t + off) + ((uint64_t)t[off + 10] << 20) &&
                    size == (uint64_t)(t[off + 11] - t[off + 10] + 1) << 20;
        FUZZ_ASSERT(entry, "mcfg 0x%llx+0x%llx is no segment 0 entry", (unsigned long long)base,
                    (unsigned long long)size);
    } else {
        FUZZ_ASSERT(base == 0x5555 && size == 0x5555, "mcfg: failure wrote its outputs");
    }
}

/* acpi_find_table: what it finds is a whole, valid table of that signature inside the image,
 * and the parsers read it; the FADT is found exactly when acpi_read_platform got past it. */
static void find_tables(uint64_t rsdp, int platform_rc, const char *platform_err)
{
    static const char *const sigs[] = { "FACP", "APIC", "DMAR", "MCFG" };
    for (unsigned i = 0; i < 4; i++) {
        uint64_t addr = 0x5555;
        uint32_t len = 0x5555;
        char err[192];
        memset(err, 0x55, sizeof(err));
        int rc = acpi_find_table(rsdp, sigs[i], &addr, &len, err, sizeof(err));
        check_err(err, sizeof(err), rc);
        if (i == 0) {
            FUZZ_ASSERT(rc == 0 || (platform_rc == -1 && strcmp(err, platform_err) == 0),
                        "FADT: '%s', acpi_read_platform: '%s'", err, platform_err);
            FUZZ_ASSERT(rc == -1 || platform_rc == 0 || strstr(platform_err, "FADT is"),
                        "FADT found, acpi_read_platform: '%s'", platform_err);
        }
        if (rc) {
            FUZZ_ASSERT(strncmp(err, "ACPI: ", 6) == 0, "message '%s'", err);
            continue;
        }
        const uint8_t *t = at(addr, len);
        FUZZ_ASSERT(t && len >= 36 && len <= MIB, "%s at 0x%llx+0x%x", sigs[i],
                    (unsigned long long)addr, len);
        FUZZ_ASSERT(memcmp(t, sigs[i], 4) == 0 && get32(t, 4) == len, "%s header", sigs[i]);
        uint8_t sum = 0;
        for (uint32_t k = 0; k < len; k++)
            sum = (uint8_t)(sum + t[k]);
        FUZZ_ASSERT(sum == 0, "%s checksum", sigs[i]);
        if (i) {
            uint8_t *c = malloc(len);
            memcpy(c, t, len);
            parse_tables(c, len);
            free(c);
        }
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
        parse_tables(aml, (uint32_t)size);
        free(aml);
        uint8_t *t = calloc(1, 48 + size);
        memcpy(t + 48, data, size);
        parse_tables(t + 4, (uint32_t)size + 44);
        parse_tables(t, (uint32_t)size + 48);
        free(t);
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
    find_tables(rsdp, rc, rc ? err : "");      /* on success err is not written */
    phys_fake_reset();
    return 0;
}
