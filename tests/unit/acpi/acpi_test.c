/* SPDX-License-Identifier: MIT */
/* acpi_find_rsdp / acpi_read_platform / acpi_aml_find_s5 on QEMU-like tables;
 * acpi_waking_vector. */
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
        T(aml_s5),
        T(aml_s5_negative),
        T(waking_vector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
