/* SPDX-License-Identifier: MIT */
/*
 * src/txt/mtrr.c: the MTRRs as tboot leaves them for SENTER (default UC, fixed off, the SINIT
 * region WB through one or two variable MTRRs) accepted; every other setting refused with
 * its reason. tboot 1.10.5's 36-bit masks (bits 35:12) on a CPU with more address bits read
 * as 36 bits wide; a mask with bits above 35 still as wide as the CPU's.
 */
#include "test_common.h"

#include "txt/mtrr.h"

#define SINIT 0x7bf00000ull              /* -m 2048's T - 3 MiB: 256 KiB, 256 KiB aligned */
#define SINIT_SIZE 0x40000ull
static char err[200];
static struct txt_mtrrs m;

/* tboot's way: one WB MTRR over the SINIT region, the rest disabled */
static void tboot_mtrrs(void)
{
    memset(&m, 0, sizeof(m));
    m.cap = 0x508;                      /* VCNT 8, fixed, WC */
    m.def_type = 1u << 11;              /* E, default UC, FE off */
    m.phys_bits = 40;
    m.base[0] = SINIT | 6;
    m.mask[0] = (0xffffffffffull & ~(SINIT_SIZE - 1)) | (1u << 11);
}

static int check(void)
{
    err[0] = 0;
    return txt_mtrrs_check(&m, SINIT, SINIT_SIZE, err, sizeof(err));
}

static void accepted(void **state)
{
    (void)state;
    tboot_mtrrs();
    assert_int_equal(check(), 0);
    /* two halves; a UC range elsewhere; a disabled MTRR with anything in it */
    m.mask[0] = (0xffffffffffull & ~(SINIT_SIZE / 2 - 1)) | (1u << 11);
    m.base[1] = (SINIT + SINIT_SIZE / 2) | 6;
    m.mask[1] = m.mask[0];
    m.base[2] = 0x0 | 0;
    m.mask[2] = (0xffffffffffull & ~(0x80000000ull - 1)) | (1u << 11);
    m.base[3] = 0x12345 | 5;
    m.mask[3] = 0x3;
    assert_int_equal(check(), 0);
    /* an SINIT region that is not a power of two: the WB ranges may cover it in pieces */
    tboot_mtrrs();
    assert_int_equal(txt_mtrrs_check(&m, SINIT, 0x30000, err, sizeof(err)), -1);
    assert_string_equal(err, "variable MTRR 0: WB range 0x7bf00000+0x40000 outside the SINIT "
                             "region 0x7bf00000+0x30000");
}

static void refused(void **state)
{
    (void)state;
#define REFUSED(edit, reason) do { \
        tboot_mtrrs(); \
        edit; \
        assert_int_equal(check(), -1); \
        assert_string_equal(err, reason); \
    } while (0)
    REFUSED(m.phys_bits = 32, "physical address width 32, not 36-52");
    REFUSED(m.cap = 17, "17 variable MTRRs, more than 16");
    REFUSED(m.def_type = 0, "MTRRs disabled (IA32_MTRR_DEF_TYPE 0x0)");
    REFUSED(m.def_type |= 1u << 10, "fixed-range MTRRs enabled (IA32_MTRR_DEF_TYPE 0xc00)");
    REFUSED(m.def_type |= 6, "default memory type 6, not UC");
    REFUSED(m.base[0] = SINIT | 5, "variable MTRR 0: memory type 5, neither UC nor WB");
    REFUSED(m.mask[0] = 0xff0ff00000ull | (1u << 11),
            "variable MTRR 0: mask 0xff0ff00800 is not contiguous");
    REFUSED(m.base[0] = (SINIT + 0x1000) | 6,
            "variable MTRR 0: base 0x7bf01006 not aligned to its mask 0xfffffc0800");
    REFUSED((m.base[1] = 0x100000 | 6, m.mask[1] = m.mask[0]),
            "variable MTRR 1: WB range 0x100000+0x40000 outside the SINIT region "
            "0x7bf00000+0x40000");
    REFUSED(m.mask[0] &= ~(1ull << 11), "SINIT page 0x7bf00000 is not write-back (no WB MTRR "
                                         "covers it)");
    REFUSED((m.mask[0] = (0xffffffffffull & ~(SINIT_SIZE / 2 - 1)) | (1u << 11)),
            "SINIT page 0x7bf20000 is not write-back (no WB MTRR covers it)");
    /* a WB MTRR beyond VCNT is not a variable MTRR of this CPU */
    REFUSED((m.cap = 1, m.mask[0] = 0, m.base[1] = SINIT | 6, m.mask[1] = m.mask[0]),
            "SINIT page 0x7bf00000 is not write-back (no WB MTRR covers it)");
    REFUSED(m.mask[0] = 1u << 11, "variable MTRR 0: mask 0x800 is not contiguous");
#undef REFUSED
    tboot_mtrrs();
    assert_int_equal(txt_mtrrs_check(&m, SINIT, 0, err, sizeof(err)), -1);
    assert_string_equal(err, "SINIT region 0x7bf00000+0x0");
}

/* tboot 1.10.5 (txt/mtrrs.c) computes the mask for 36 address bits whatever CPUID says */
#define MASK36(size) ((0xfffffffffull & ~((size) - 1)) | (1u << 11))

static void tboot_36bit_masks(void **state)
{
    (void)state;
    tboot_mtrrs();
    assert_int_equal(m.phys_bits, 40);
    m.mask[0] = MASK36(SINIT_SIZE);
    assert_int_equal(m.mask[0], 0xffffc0800ull);
    assert_int_equal(check(), 0);
    assert_string_equal(err, "");
    /* two halves of 128 KiB: 0xffffe0800 each */
    m.mask[0] = MASK36(SINIT_SIZE / 2);
    assert_int_equal(m.mask[0], 0xffffe0800ull);
    m.base[1] = (SINIT + SINIT_SIZE / 2) | 6;
    m.mask[1] = m.mask[0];
    assert_int_equal(check(), 0);
    /* one 36-bit, one 40-bit; and a UC MTRR with a 36-bit mask elsewhere */
    m.mask[1] = (0xffffffffffull & ~(SINIT_SIZE / 2 - 1)) | (1u << 11);
    m.base[2] = 0x80000000ull;
    m.mask[2] = MASK36(0x80000000ull);
    assert_int_equal(check(), 0);
    /* 36-bit masks on CPUs of 36, 39, 46 and 52 bits */
    static const unsigned widths[] = { 36, 39, 46, 52 };
    for (unsigned i = 0; i < 4; i++) {
        tboot_mtrrs();
        m.phys_bits = widths[i];
        m.mask[0] = MASK36(SINIT_SIZE);
        assert_int_equal(check(), 0);
    }
    /* the 36-bit base must still be aligned to the mask */
    tboot_mtrrs();
    m.mask[0] = MASK36(SINIT_SIZE);
    m.base[0] = (SINIT + 0x20000) | 6;
    assert_int_equal(check(), -1);
    assert_string_equal(err, "variable MTRR 0: base 0x7bf20006 not aligned to its mask "
                             "0xffffc0800");
    /* a 36-bit WB range outside the region is still outside it */
    tboot_mtrrs();
    m.base[1] = 0x100000 | 6;
    m.mask[1] = MASK36(SINIT_SIZE);
    assert_int_equal(check(), -1);
    assert_string_equal(err, "variable MTRR 1: WB range 0x100000+0x40000 outside the SINIT "
                             "region 0x7bf00000+0x40000");
    /* a 36-bit WB mask wider than the region */
    tboot_mtrrs();
    m.base[0] = 0x40000000 | 6;
    m.mask[0] = MASK36(0x40000000ull);
    assert_int_equal(check(), -1);
    assert_string_equal(err, "variable MTRR 0: WB range 0x40000000+0x40000000 outside the SINIT "
                             "region 0x7bf00000+0x40000");
}

static void tboot_36bit_masks_refused(void **state)
{
    (void)state;
    /* a non-contiguous 36-bit mask: holes at bits 28-31 */
    tboot_mtrrs();
    m.mask[0] = 0xff0fc0800ull;
    assert_int_equal(check(), -1);
    assert_string_equal(err, "variable MTRR 0: mask 0xff0fc0800 is not contiguous");
    /* a 36-bit mask with a hole at its top bit, 35 */
    m.mask[0] = 0x7fffc0800ull;
    assert_int_equal(check(), -1);
    assert_string_equal(err, "variable MTRR 0: mask 0x7fffc0800 is not contiguous");
    /* a 40-bit mask with a hole at bit 37 */
    m.mask[0] = 0xdffffc0800ull;
    assert_int_equal(check(), -1);
    assert_string_equal(err, "variable MTRR 0: mask 0xdffffc0800 is not contiguous");
    /* with bits 36-39 partly set, it is a 40-bit mask: bit 36 alone is a hole at 37-39 */
    m.mask[0] = 0x1ffffc0800ull;
    assert_int_equal(check(), -1);
    assert_string_equal(err, "variable MTRR 0: mask 0x1ffffc0800 is not contiguous");
    m.mask[0] = 0x7ffffc0800ull;
    assert_int_equal(check(), -1);
    assert_string_equal(err, "variable MTRR 0: mask 0x7ffffc0800 is not contiguous");
    /* only the valid bit */
    m.mask[0] = 0x800;
    assert_int_equal(check(), -1);
    assert_string_equal(err, "variable MTRR 0: mask 0x800 is not contiguous");
    /* bits 39-36 only: a contiguous 40-bit mask (64 GiB), not a 36-bit one with nothing in
     * it; the SINIT base is not aligned to it */
    m.mask[0] = 0xf000000800ull;
    assert_int_equal(check(), -1);
    assert_string_equal(err, "variable MTRR 0: base 0x7bf00006 not aligned to its mask "
                             "0xf000000800");
    /* bits above the CPU's width are not address bits: a 36-bit mask with bit 45 set on a
     * 40-bit CPU is still a 36-bit mask */
    m.mask[0] = (1ull << 45) | 0xffffc0800ull;
    assert_int_equal(check(), 0);
    /* a 36-bit mask on a 40-bit CPU covers the region below 64 GiB only: a region above it
     * (SINIT at 64 GiB + SINIT) is not covered by a 36-bit WB range based at SINIT */
    tboot_mtrrs();
    m.mask[0] = 0xffffc0800ull;
    assert_int_equal(txt_mtrrs_check(&m, 0x1000000000ull + SINIT, SINIT_SIZE, err, sizeof(err)),
                     -1);
    assert_string_equal(err, "variable MTRR 0: WB range 0x7bf00000+0x40000 outside the SINIT "
                             "region 0x107bf00000+0x40000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepted),
        cmocka_unit_test(refused),
        cmocka_unit_test(tboot_36bit_masks),
        cmocka_unit_test(tboot_36bit_masks_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
