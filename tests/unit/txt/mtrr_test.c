/* SPDX-License-Identifier: MIT */
/*
 * src/txt/mtrr.c: the MTRRs as tboot leaves them for SENTER (default UC, fixed off, the SINIT
 * region WB through one or two variable MTRRs) accepted; every other setting refused with
 * its reason.
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepted),
        cmocka_unit_test(refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
