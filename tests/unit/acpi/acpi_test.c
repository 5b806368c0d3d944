/* SPDX-License-Identifier: MIT */
/* acpi_find_rsdp / acpi_find_table / acpi_read_platform / acpi_aml_find_s5 on QEMU-like
 * tables; acpi_waking_vector. */
#include "test_common.h"

#include "acpi/acpi.h"

#define BIOS_BASE 0xe0000u
#define TABLES 0x7fe0000u

static struct gmem bios, tables;
static struct acpi_platform p;
static char err[192];

static void mem_setup(void)
{
    gmem_init(&bios, BIOS_BASE, phys_fake_add(BIOS_BASE, 0x20000), 0x20000);
    gmem_alloc(&bios, 0x15a00, 16);          /* SeaBIOS puts the RSDP at 0xf5a00 or so */
    gmem_init(&tables, TABLES, phys_fake_add(TABLES, 0x10000), 0x10000);
}

static int read_platform(uint64_t rsdp)
{
    memset(err, 0, sizeof(err));
    memset(&p, 0xa5, sizeof(p));
    return acpi_read_platform(rsdp, &p, err, sizeof(err));
}

static void expect_gas(const struct acpi_gas *g, uint8_t space, uint8_t width, uint8_t access,
                       uint64_t addr)
{
    assert_int_equal(g->space_id, space);
    assert_int_equal(g->bit_width, width);
    assert_int_equal(g->bit_offset, 0);
    assert_int_equal(g->access_size, access);
    assert_int_equal(g->address, addr);
}

static void qemu_pc(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_QEMU_PC);
    assert_int_equal(l.rsdp, 0xf5a00);
    assert_int_equal(acpi_find_rsdp(), 0xf5a00);
    assert_int_equal(read_platform(l.rsdp), 0);
    assert_string_equal(err, "");
    assert_int_equal(p.rsdp, 0xf5a00);
    assert_int_equal(p.facs, l.facs);
    assert_int_equal(p.dsdt, l.dsdt);
    assert_int_equal(p.fadt_flags, 0x84a5);
    expect_gas(&p.pm1a_evt, 1, 32, 0, 0x600);
    expect_gas(&p.pm1a_cnt, 1, 16, 0, 0x604);
    expect_gas(&p.pm1b_evt, 1, 0, 0, 0);         /* absent: address 0, no width */
    expect_gas(&p.pm1b_cnt, 1, 0, 0, 0);
    /* RESET_REG_SUP is set, but a 116-byte FADT has no RESET_REG */
    assert_false(p.reset_supported);
    assert_true(p.s5_known);
    assert_int_equal(p.s5_typ_a, 0);
    assert_int_equal(p.s5_typ_b, 0);
}

static void qemu_q35(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_QEMU_Q35);
    assert_int_equal(read_platform(l.rsdp), 0);
    assert_int_equal(p.facs, l.facs);
    assert_int_equal(p.dsdt, l.dsdt);
    expect_gas(&p.pm1a_evt, 1, 32, 0, 0x600);
    expect_gas(&p.pm1a_cnt, 1, 16, 0, 0x604);
    expect_gas(&p.pm1b_cnt, 1, 0, 0, 0);         /* X_PM1B zero, legacy zero */
    assert_true(p.reset_supported);
    expect_gas(&p.reset_reg, 1, 8, 0, 0xcf9);
    assert_int_equal(p.reset_value, 0x0f);
    assert_true(p.s5_known);
}

static void xsdt_only(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_XSDT_ONLY);
    assert_int_equal(read_platform(l.rsdp), 0);
    assert_int_equal(p.facs, l.facs);            /* from X_FIRMWARE_CTRL */
    assert_int_equal(p.dsdt, l.dsdt);            /* from X_DSDT */
    assert_int_equal(p.fadt_flags, 0x400);
    expect_gas(&p.pm1a_evt, 0, 32, 3, 0xfed00000ull);
    expect_gas(&p.pm1b_evt, 0, 32, 3, 0xfed00100ull);
    expect_gas(&p.pm1a_cnt, 0, 16, 2, 0xfed00004ull);
    expect_gas(&p.pm1b_cnt, 0, 16, 2, 0xfed00104ull);
    assert_true(p.reset_supported);
    expect_gas(&p.reset_reg, 0, 8, 1, 0xfee00cf9ull);
    assert_int_equal(p.reset_value, 6);
    assert_true(p.s5_known);
    assert_int_equal(p.s5_typ_a, 5);
    assert_int_equal(p.s5_typ_b, 7);
}

static void rsdp_in_ebda(void **state)
{
    (void)state;
    mem_setup();
    uint8_t *bda = phys_fake_add(0x400, 0x100);
    put16(bda, 0x0e, 0x9fc0);
    struct gmem ebda;
    gmem_init(&ebda, 0x9fc00, phys_fake_add(0x9fc00, 0x400), 0x400);
    gmem_alloc(&ebda, 0x100, 16);
    struct acpi_layout l = acpi_build(&tables, &ebda, ACPI_QEMU_PC);
    assert_int_equal(l.rsdp, 0x9fd00);
    assert_int_equal(acpi_find_rsdp(), 0x9fd00);
    /* an EBDA segment outside 0x80000-0x9ffff is not searched */
    put16(bda, 0x0e, 0x7000);
    assert_int_equal(acpi_find_rsdp(), 0);
    put16(bda, 0x0e, 0);
    assert_int_equal(acpi_find_rsdp(), 0);
}

static void find_rsdp_misses(void **state)
{
    (void)state;
    mem_setup();
    assert_int_equal(acpi_find_rsdp(), 0);
    /* a signature with a bad checksum, and one off the 16-byte grid */
    uint8_t *b = phys_fake_ptr(0xf0000);
    memcpy(b, "RSD PTR ", 8);
    memcpy(b + 0x28, "RSD PTR ", 8);
    acpi_fix_checksum(b + 0x28, 20, 8);
    assert_int_equal(acpi_find_rsdp(), 0);
    /* the last 16-byte slot of the BIOS area is searched */
    uint8_t *last = phys_fake_ptr(0xfffe0);
    memcpy(last, "RSD PTR ", 8);
    acpi_fix_checksum(last, 20, 8);
    assert_int_equal(acpi_find_rsdp(), 0xfffe0);
    phys_fake_reset();
    assert_int_equal(acpi_find_rsdp(), 0);       /* nothing mapped at all */
}

static void xsdt_preferred_then_fallback(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_QEMU_Q35);
    /* add an XSDT pointing at a different FADT (the PC one) and a rev 2 RSDP for both */
    struct acpi_layout pc = acpi_build(&tables, &tables, ACPI_QEMU_PC);
    uint8_t x[8];
    put64(x, 0, pc.fadt);
    uint64_t xsdt = acpi_put_table(&tables, "XSDT", 1, x, 8);
    uint64_t rsdp = acpi_put_rsdp(&bios, 2, (uint32_t)l.rsdt, xsdt);
    assert_int_equal(read_platform(rsdp), 0);
    assert_false(p.reset_supported);             /* the PC FADT, through the XSDT */
    /* a bad extended checksum: the RSDT is used */
    uint8_t *r = phys_fake_ptr(rsdp);
    r[32] ^= 1;
    assert_int_equal(read_platform(rsdp), 0);
    assert_true(p.reset_supported);
    r[32] ^= 1;
    /* a bad XSDT checksum: the RSDT is used */
    uint8_t *xt = phys_fake_ptr(xsdt);
    xt[9] ^= 1;
    assert_int_equal(read_platform(rsdp), 0);
    assert_true(p.reset_supported);
    xt[9] ^= 1;
    /* a bad RSDP length */
    put32(r, 20, 20);
    acpi_fix_checksum(r, 36, 32);
    acpi_fix_checksum(r, 20, 8);
    assert_int_equal(read_platform(rsdp), 0);
    assert_true(p.reset_supported);
    put32(r, 20, 0x2000);
    acpi_fix_checksum(r, 20, 8);
    assert_int_equal(read_platform(rsdp), 0);
    assert_true(p.reset_supported);
}

/* An RSDP whose length is more than 36: the extended checksum covers all of it. */
static void rsdp_v2_longer(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_XSDT_ONLY);
    uint8_t *r = phys_fake_ptr(l.rsdp);
    gmem_alloc(&bios, 64, 16);                   /* room after the RSDP */
    put32(r, 20, 100);
    memset(r + 36, 0x11, 64);
    acpi_fix_checksum(r, 100, 32);
    assert_int_equal(read_platform(l.rsdp), 0);
    assert_int_equal(p.dsdt, l.dsdt);
    /* the bytes past 36 count */
    r[99] ^= 1;
    assert_int_equal(read_platform(l.rsdp), -1);
    assert_contains(err, "RSDT/XSDT missing");
}

static void bad_rsdp(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_QEMU_PC);
    uint8_t *r = phys_fake_ptr(l.rsdp);
    r[8] ^= 0x40;
    assert_int_equal(read_platform(l.rsdp), -1);
    assert_string_equal(err, "ACPI: no valid RSDP at 0xf5a00");
    r[8] ^= 0x40;
    r[0] = 'r';
    acpi_fix_checksum(r, 20, 8);
    assert_int_equal(read_platform(l.rsdp), -1);
    assert_contains(err, "no valid RSDP");
    assert_int_equal(read_platform(0x12345000), -1);
    assert_string_equal(err, "ACPI: no valid RSDP at 0x12345000");
    assert_int_equal(read_platform(0), -1);
    assert_int_equal(read_platform(0x100000000ull), -1);
    assert_string_equal(err, "ACPI: no valid RSDP at 0x100000000");
}

static void bad_root(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_QEMU_PC);
    uint8_t *rsdt = phys_fake_ptr(l.rsdt);
    rsdt[20] ^= 1;                               /* checksum */
    assert_int_equal(read_platform(l.rsdp), -1);
    assert_string_equal(err, "ACPI: RSDT/XSDT missing or bad checksum");
    rsdt[20] ^= 1;
    memcpy(rsdt, "XSDT", 4);                     /* wrong signature */
    acpi_fix_checksum(rsdt, 44, 9);
    assert_int_equal(read_platform(l.rsdp), -1);
    assert_contains(err, "RSDT/XSDT missing");
    memcpy(rsdt, "RSDT", 4);
    put32(rsdt, 4, 35);                          /* shorter than its header */
    acpi_fix_checksum(rsdt, 35, 9);
    assert_int_equal(read_platform(l.rsdp), -1);
    assert_contains(err, "RSDT/XSDT missing");
    put32(rsdt, 4, 0x200000);                    /* longer than memory (and than 1 MiB) */
    assert_int_equal(read_platform(l.rsdp), -1);
    assert_contains(err, "RSDT/XSDT missing");
    put32(rsdt, 4, 0x10000);                     /* runs past the end of memory */
    assert_int_equal(read_platform(l.rsdp), -1);
    assert_contains(err, "RSDT/XSDT missing");
    /* an RSDP with no RSDT at all */
    uint64_t r0 = acpi_put_rsdp(&bios, 0, 0, 0);
    assert_int_equal(read_platform(r0), -1);
    assert_contains(err, "RSDT/XSDT missing");
    /* XSDT_ONLY with a broken XSDT has no RSDT to fall back to */
    struct acpi_layout x = acpi_build(&tables, &bios, ACPI_XSDT_ONLY);
    ((uint8_t *)phys_fake_ptr(x.xsdt))[9] ^= 1;
    assert_int_equal(read_platform(x.rsdp), -1);
    assert_contains(err, "RSDT/XSDT missing");
}

static void bad_fadt(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_QEMU_PC);
    uint8_t *f = phys_fake_ptr(l.fadt);
    f[9] ^= 1;
    assert_int_equal(read_platform(l.rsdp), -1);
    assert_string_equal(err, "ACPI: no valid FADT");
    f[9] ^= 1;
    /* too short for ACPI 1.0 */
    put32(f, 4, 100);
    acpi_fix_checksum(f, 100, 9);
    assert_int_equal(read_platform(l.rsdp), -1);
    assert_string_equal(err, "ACPI: FADT is 100 bytes, shorter than ACPI 1.0's 116");
    put32(f, 4, 36);
    acpi_fix_checksum(f, 36, 9);
    assert_int_equal(read_platform(l.rsdp), -1);
    assert_contains(err, "FADT is 36 bytes");
    /* an RSDT with no entries */
    uint64_t rsdt = acpi_put_table(&tables, "RSDT", 1, NULL, 0);
    uint64_t rsdp = acpi_put_rsdp(&bios, 0, (uint32_t)rsdt, 0);
    assert_int_equal(read_platform(rsdp), -1);
    assert_string_equal(err, "ACPI: no valid FADT");
    /* XSDT entries above 4 GiB are skipped */
    uint8_t x[8];
    put64(x, 0, 0x100000000ull + l.fadt);
    uint64_t xsdt = acpi_put_table(&tables, "XSDT", 1, x, 8);
    rsdp = acpi_put_rsdp(&bios, 2, 0, xsdt);
    assert_int_equal(read_platform(rsdp), -1);
    assert_string_equal(err, "ACPI: no valid FADT");
}

static void missing_dsdt(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_QEMU_Q35);
    uint8_t *f = phys_fake_ptr(l.fadt);
    /* X_DSDT zero falls back to DSDT */
    put64(f, 140, 0);
    acpi_fix_checksum(f, 244, 9);
    assert_int_equal(read_platform(l.rsdp), 0);
    assert_int_equal(p.dsdt, l.dsdt);
    assert_true(p.s5_known);
    /* both zero: no DSDT, no \_S5, but the rest is fine */
    put32(f, 40, 0);
    acpi_fix_checksum(f, 244, 9);
    assert_int_equal(read_platform(l.rsdp), 0);
    assert_int_equal(p.dsdt, 0);
    assert_false(p.s5_known);
    assert_true(p.reset_supported);
    /* a DSDT with a bad checksum */
    put32(f, 40, (uint32_t)l.dsdt);
    acpi_fix_checksum(f, 244, 9);
    ((uint8_t *)phys_fake_ptr(l.dsdt))[9] ^= 1;
    assert_int_equal(read_platform(l.rsdp), 0);
    assert_int_equal(p.dsdt, l.dsdt);
    assert_false(p.s5_known);
    /* X_DSDT above 4 GiB */
    ((uint8_t *)phys_fake_ptr(l.dsdt))[9] ^= 1;
    put64(f, 140, 0x123400000ull);
    acpi_fix_checksum(f, 244, 9);
    assert_int_equal(read_platform(l.rsdp), 0);
    assert_int_equal(p.dsdt, 0x123400000ull);
    assert_false(p.s5_known);
    /* a table that is not a DSDT */
    put64(f, 140, l.rsdt);
    acpi_fix_checksum(f, 244, 9);
    assert_int_equal(read_platform(l.rsdp), 0);
    assert_false(p.s5_known);
}

/* ---- acpi_find_table ---- */

static uint64_t found_addr;
static uint32_t found_len;

static int find(uint64_t rsdp, const char *sig)
{
    memset(err, 0, sizeof(err));
    found_addr = 0x5555;
    found_len = 0x5555;
    return acpi_find_table(rsdp, sig, &found_addr, &found_len, err, sizeof(err));
}

static void expect_found(uint64_t rsdp, const char *sig, uint64_t addr, uint32_t len)
{
    assert_int_equal(find(rsdp, sig), 0);
    assert_string_equal(err, "");
    assert_int_equal(found_addr, addr);
    assert_int_equal(found_len, len);
}

static void expect_not_found(uint64_t rsdp, const char *sig, const char *reason)
{
    assert_int_equal(find(rsdp, sig), -1);
    assert_string_equal(err, reason);
}

/* Tables as QEMU adds them for q35 with intel-iommu: a MADT, an MCFG, a DMAR, each of its
 * own length, listed by the RSDT after the FACS and the FADT. */
struct extra_tables {
    uint64_t apic, mcfg, dmar;
};

static struct extra_tables put_extra_tables(void)
{
    struct extra_tables x;
    uint8_t madt[8 + 2 * 8] = { 0 };
    put32(madt, 0, 0xfee00000u);
    put8(madt, 8, 0);
    put8(madt, 9, 8);
    put32(madt, 12, 1);
    put8(madt, 16, 0);
    put8(madt, 17, 8);
    put8(madt, 19, 1);
    put32(madt, 20, 1);
    x.apic = acpi_put_table(&tables, "APIC", 3, madt, sizeof(madt));
    uint8_t mcfg[8 + 16] = { 0 };
    put64(mcfg, 8, 0xb0000000ull);
    put8(mcfg, 19, 255);
    x.mcfg = acpi_put_table(&tables, "MCFG", 1, mcfg, sizeof(mcfg));
    uint8_t dmar[12 + 16] = { 0 };
    put8(dmar, 0, 38);
    put16(dmar, 12, 0);
    put16(dmar, 14, 16);
    put64(dmar, 20, 0xfed90000ull);
    x.dmar = acpi_put_table(&tables, "DMAR", 1, dmar, sizeof(dmar));
    return x;
}

static uint64_t put_rsdt(const uint64_t *entries, unsigned n)
{
    uint8_t r[64];
    assert_true(n <= 16);
    for (unsigned i = 0; i < n; i++)
        put32(r, 4 * i, (uint32_t)entries[i]);
    return acpi_put_table(&tables, "RSDT", 1, r, 4 * n);
}

static uint64_t put_xsdt(const uint64_t *entries, unsigned n)
{
    uint8_t x[128];
    assert_true(n <= 16);
    for (unsigned i = 0; i < n; i++)
        put64(x, 8 * i, entries[i]);
    return acpi_put_table(&tables, "XSDT", 1, x, 8 * n);
}

static void find_table_rsdt(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_QEMU_Q35);
    /* QEMU's own RSDT: the FADT, after the FACS (no SDT checksum: skipped) */
    expect_found(l.rsdp, "FACP", l.fadt, 244);
    expect_not_found(l.rsdp, "FACS", "ACPI: no valid FACS table");
    expect_not_found(l.rsdp, "APIC", "ACPI: no valid APIC table");
    /* the DSDT is the FADT's, not the RSDT's */
    expect_not_found(l.rsdp, "DSDT", "ACPI: no valid DSDT table");

    struct extra_tables x = put_extra_tables();
    uint64_t e[] = { l.facs, l.fadt, x.apic, x.mcfg, x.dmar };
    uint64_t rsdp = acpi_put_rsdp(&bios, 0, (uint32_t)put_rsdt(e, 5), 0);
    expect_found(rsdp, "FACP", l.fadt, 244);
    expect_found(rsdp, "APIC", x.apic, 36 + 24);
    expect_found(rsdp, "MCFG", x.mcfg, 36 + 24);
    expect_found(rsdp, "DMAR", x.dmar, 36 + 28);
    expect_not_found(rsdp, "HPET", "ACPI: no valid HPET table");
    /* only the first 4 characters of the signature count */
    expect_found(rsdp, "MCFGxyz", x.mcfg, 60);
    /* the FADT has its own message (acpi_read_platform's) */
    uint64_t e2[] = { x.apic, x.mcfg };
    uint64_t rsdp2 = acpi_put_rsdp(&bios, 0, (uint32_t)put_rsdt(e2, 2), 0);
    expect_not_found(rsdp2, "FACP", "ACPI: no valid FADT");
    expect_found(rsdp2, "MCFG", x.mcfg, 60);
    /* an RSDT with no entries */
    uint64_t rsdp3 = acpi_put_rsdp(&bios, 0, (uint32_t)put_rsdt(NULL, 0), 0);
    expect_not_found(rsdp3, "APIC", "ACPI: no valid APIC table");
}

/* A table with a bad checksum, a bad length or the wrong signature is passed over; the
 * first valid one is the answer. */
static void find_table_skips_bad(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_QEMU_Q35);
    struct extra_tables bad = put_extra_tables(), good = put_extra_tables(),
                        later = put_extra_tables();
    uint8_t *mcfg_bad = phys_fake_ptr(bad.mcfg);
    mcfg_bad[36 + 8] ^= 0x10;                    /* the base address: checksum now wrong */
    uint64_t e[] = { bad.mcfg, good.mcfg, later.mcfg, good.apic, later.apic };
    uint64_t rsdp = acpi_put_rsdp(&bios, 0, (uint32_t)put_rsdt(e, 5), 0);
    expect_found(rsdp, "MCFG", good.mcfg, 60);
    expect_found(rsdp, "APIC", good.apic, 60);   /* the first of two valid ones */
    /* only the bad one listed */
    uint64_t e1[] = { bad.mcfg, l.fadt };
    uint64_t rsdp1 = acpi_put_rsdp(&bios, 0, (uint32_t)put_rsdt(e1, 2), 0);
    expect_not_found(rsdp1, "MCFG", "ACPI: no valid MCFG table");
    mcfg_bad[36 + 8] ^= 0x10;
    expect_found(rsdp1, "MCFG", bad.mcfg, 60);
    /* a length shorter than the header, longer than 1 MiB, past the end of memory */
    put32(mcfg_bad, 4, 35);
    acpi_fix_checksum(mcfg_bad, 35, 9);
    expect_not_found(rsdp1, "MCFG", "ACPI: no valid MCFG table");
    put32(mcfg_bad, 4, 0x100001);
    expect_not_found(rsdp1, "MCFG", "ACPI: no valid MCFG table");
    put32(mcfg_bad, 4, 0x10000);
    expect_not_found(rsdp1, "MCFG", "ACPI: no valid MCFG table");
    put32(mcfg_bad, 4, 60);
    acpi_fix_checksum(mcfg_bad, 60, 9);
    expect_found(rsdp1, "MCFG", bad.mcfg, 60);
    /* a bad FADT and a good one: the good one */
    uint8_t *f = phys_fake_ptr(l.fadt);
    f[9] ^= 1;
    struct acpi_layout l2 = acpi_build(&tables, &bios, ACPI_QEMU_PC);
    uint64_t e3[] = { l.fadt, l2.fadt };
    uint64_t rsdp3 = acpi_put_rsdp(&bios, 0, (uint32_t)put_rsdt(e3, 2), 0);
    expect_found(rsdp3, "FACP", l2.fadt, 116);
    /* entries at 0 and where nothing is mapped */
    uint64_t e4[] = { 0, 0x12345000, 0xfffffff0u, good.dmar };
    uint64_t rsdp4 = acpi_put_rsdp(&bios, 0, (uint32_t)put_rsdt(e4, 4), 0);
    expect_found(rsdp4, "DMAR", good.dmar, 64);
}

static void find_table_xsdt(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_XSDT_ONLY);
    expect_found(l.rsdp, "FACP", l.fadt, 244);   /* after an entry that points at nothing */
    struct extra_tables r = put_extra_tables(), x = put_extra_tables();
    /* an XSDT entry at 4 GiB + the table's address is not the table */
    uint64_t xe[] = { 0x100000000ull + x.apic, x.apic, x.dmar };
    uint64_t re[] = { r.apic, r.dmar, r.mcfg };
    uint64_t xsdt = put_xsdt(xe, 3);
    uint64_t rsdp = acpi_put_rsdp(&bios, 2, (uint32_t)put_rsdt(re, 3), xsdt);
    /* the XSDT, when the RSDP is 2.0 and it is valid */
    expect_found(rsdp, "APIC", x.apic, 60);
    expect_found(rsdp, "DMAR", x.dmar, 64);
    expect_not_found(rsdp, "MCFG", "ACPI: no valid MCFG table");   /* not the RSDT's */
    uint64_t only_high[] = { 0x100000000ull + x.apic };
    uint64_t rsdp_high = acpi_put_rsdp(&bios, 2, 0, put_xsdt(only_high, 1));
    expect_not_found(rsdp_high, "APIC", "ACPI: no valid APIC table");
    /* a bad XSDT checksum: the RSDT */
    ((uint8_t *)phys_fake_ptr(xsdt))[9] ^= 1;
    expect_found(rsdp, "APIC", r.apic, 60);
    expect_found(rsdp, "MCFG", r.mcfg, 60);
}

static void find_table_no_rsdp(void **state)
{
    (void)state;
    mem_setup();
    struct acpi_layout l = acpi_build(&tables, &bios, ACPI_QEMU_Q35);
    expect_not_found(0x12345000, "FACP", "ACPI: no valid RSDP at 0x12345000");
    expect_not_found(0, "APIC", "ACPI: no valid RSDP at 0x0");
    expect_not_found(l.rsdp + 16, "APIC", "ACPI: no valid RSDP at 0xf5a10");
    expect_not_found(0x100000000ull, "APIC", "ACPI: no valid RSDP at 0x100000000");
    uint8_t *r = phys_fake_ptr(l.rsdp);
    r[8] ^= 0x40;                                /* checksum */
    expect_not_found(l.rsdp, "FACP", "ACPI: no valid RSDP at 0xf5a00");
    expect_not_found(l.rsdp, "MCFG", "ACPI: no valid RSDP at 0xf5a00");
    r[8] ^= 0x40;
    expect_found(l.rsdp, "FACP", l.fadt, 244);
    /* an RSDP, but no root table */
    uint64_t r0 = acpi_put_rsdp(&bios, 0, 0, 0);
    expect_not_found(r0, "APIC", "ACPI: RSDT/XSDT missing or bad checksum");
    ((uint8_t *)phys_fake_ptr(l.rsdt))[9] ^= 1;
    expect_not_found(l.rsdp, "FACP", "ACPI: RSDT/XSDT missing or bad checksum");
}

/* ---- AML ---- */

static bool s5(const uint8_t *aml, uint32_t len, uint8_t *a, uint8_t *b)
{
    /* exact-size copy so ASan sees any read past len */
    uint8_t *c = malloc(len ? len : 1);
    memcpy(c, aml, len);
    *a = *b = 0xee;
    bool r = acpi_aml_find_s5(c, len, a, b);
    free(c);
    return r;
}

#define S5(bytes, ...)                                                                       \
    do {                                                                                     \
        static const uint8_t aml_[] = { bytes };                                            \
        ok = s5(aml_, sizeof(aml_), &a, &b);                                                 \
    } while (0)
#define B(...) __VA_ARGS__

static void aml_s5(void **state)
{
    (void)state;
    uint8_t a, b;
    bool ok;
    assert_true(s5(aml_qemu_s5, 12, &a, &b));
    assert_int_equal(a, 0);
    assert_int_equal(b, 0);
    /* BytePrefix values */
    S5(B(0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04, 0x0a, 0x05, 0x0a, 0x07, 0x00, 0x00));
    assert_true(ok);
    assert_int_equal(a, 5);
    assert_int_equal(b, 7);
    /* root prefix */
    S5(B(0x08, '\\', '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x01, 0x0a, 0x03, 0x00, 0x00));
    assert_true(ok);
    assert_int_equal(a, 1);
    assert_int_equal(b, 3);
    /* Word and DWord prefixes: the low byte */
    S5(B(0x08, '_', 'S', '5', '_', 0x12, 0x0b, 0x02, 0x0b, 0x05, 0x01, 0x0c, 0x07, 0, 0, 1));
    assert_true(ok);
    assert_int_equal(a, 5);
    assert_int_equal(b, 7);
    /* a two-byte PkgLength */
    S5(B(0x08, '_', 'S', '5', '_', 0x12, 0x46, 0x00, 0x04, 0x0a, 0x02, 0x0a, 0x04, 0, 0));
    assert_true(ok);
    assert_int_equal(a, 2);
    assert_int_equal(b, 4);
    /* a single element: typ_b 0 */
    S5(B(0x08, '_', 'S', '5', '_', 0x12, 0x03, 0x01, 0x0a, 0x06));
    assert_true(ok);
    assert_int_equal(a, 6);
    assert_int_equal(b, 0);
    /* embedded in other AML, after a false _S5_ (a method name without NameOp) */
    S5(B(0x14, 0x08, '_', 'S', '5', '_', 0x00, 0xa3, 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04,
         0x0a, 0x05, 0x0a, 0x05, 0x00, 0x00));
    assert_true(ok);
    assert_int_equal(a, 5);
    /* a NameOp _S5_ that is not a package, then the real one */
    S5(B(0x08, '_', 'S', '5', '_', 0x0a, 0x01, 0x08, '_', 'S', '5', '_', 0x12, 0x04, 0x02, 0x01,
         0x01));
    assert_true(ok);
    assert_int_equal(a, 1);
    assert_int_equal(b, 1);
}

static void aml_s5_negative(void **state)
{
    (void)state;
    uint8_t a, b;
    bool ok;
    assert_false(s5(aml_qemu_s5, 0, &a, &b));
    /* every truncation of QEMU's S5 before its first value fails */
    for (uint32_t n = 0; n < 9; n++)
        assert_false(s5(aml_qemu_s5, n, &a, &b));
    /* typ_a present, typ_b cut off: typ_b reads as 0 */
    assert_true(s5(aml_qemu_s5, 9, &a, &b));
    assert_int_equal(b, 0);
    /* no NameOp */
    S5(B('_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x00, 0x00, 0x00, 0x00));
    assert_false(ok);
    S5(B(0x10, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x00, 0x00, 0x00, 0x00));
    assert_false(ok);
    /* root prefix without NameOp */
    S5(B(0x10, '\\', '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x00, 0x00, 0x00, 0x00));
    assert_false(ok);
    /* truncated BytePrefix, Word, DWord */
    S5(B(0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0a));
    assert_false(ok);
    S5(B(0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0b, 0x05));
    assert_false(ok);
    S5(B(0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0c, 0x05, 0, 0));
    assert_false(ok);
    /* a PkgLength whose extra bytes run past the end */
    S5(B(0x08, '_', 'S', '5', '_', 0x12, 0xc6, 0x00, 0x00));
    assert_false(ok);
    /* an element that is not an integer constant */
    S5(B(0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0d, 'x', 0x00, 0x00));
    assert_false(ok);
    /* just the name */
    S5(B(0x08, '_', 'S', '5', '_'));
    assert_false(ok);
    S5(B(0x08, '_', 'S', '5'));
    assert_false(ok);
    /* _S4_ is not _S5_ */
    S5(B(0x08, '_', 'S', '4', '_', 0x12, 0x06, 0x04, 0x00, 0x00, 0x00, 0x00));
    assert_false(ok);
}

static void expect_vector(uint64_t facs, uint64_t kernel_vector, uint32_t kernel_width,
                          uint64_t field, bool kernel_differs)
{
    struct acpi_waking_vector w = acpi_waking_vector(facs, kernel_vector, kernel_width);
    assert_int_equal(w.field, field);
    assert_int_equal(w.kernel_differs, kernel_differs);
}

/* The S3 waking vector goes into the FACS vtboot found, whatever the kernel pointed at. */
static void waking_vector(void **state)
{
    (void)state;
    /* Linux's acpi_sinfo: FACS+12, 32 bits */
    expect_vector(0x7fe0000, 0x7fe000c, 32, 0x7fe000c, false);
    /* the kernel points elsewhere, or at the 64-bit X_FIRMWARE_WAKING_VECTOR, or nowhere */
    expect_vector(0x7fe0000, 0x7fe0018, 32, 0x7fe000c, true);
    expect_vector(0x7fe0000, 0x7fe000c, 64, 0x7fe000c, true);
    expect_vector(0x7fe0000, 0, 0, 0x7fe000c, true);
    /* no FACS: no S3, even where Linux 6.1 computes 0 + 12 */
    expect_vector(0, 0xc, 32, 0, false);
    expect_vector(0, 0, 0, 0, false);
    /* the field must lie below 4 GiB; the last FACS that fits ends its vector at 4 GiB */
    expect_vector(0xfffffff0, 0xfffffffc, 32, 0xfffffffc, false);
    expect_vector(0xfffffff1, 0xfffffffd, 32, 0, false);
    expect_vector(0x100000000ull, 0x10000000cull, 32, 0, false);
    expect_vector(UINT64_MAX - 3, 0, 32, 0, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(qemu_pc),
        T(qemu_q35),
        T(xsdt_only),
        T(rsdp_in_ebda),
        T(find_rsdp_misses),
        T(xsdt_preferred_then_fallback),
        T(rsdp_v2_longer),
        T(bad_rsdp),
        T(bad_root),
        T(bad_fadt),
        T(missing_dsdt),
        T(find_table_rsdt),
        T(find_table_skips_bad),
        T(find_table_xsdt),
        T(find_table_no_rsdp),
        T(aml_s5),
        T(aml_s5_negative),
        T(waking_vector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
