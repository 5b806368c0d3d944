/* SPDX-License-Identifier: MIT */
/*
 * src/txt/sinit_mle.c: SinitMleData for q35 with 512 MiB and TXT (RAM below T - 4 MiB, DPR the
 * last 4 MiB, MCFG at 0xB0000000), record by record and byte by byte, accepted by
 * txt_sinit_mle_data_check (what tboot, Linux and Xen read); every refusal.
 */
#include "test_common.h"

#include "abi/txt.h"
#include "lib/bytes.h"
#include "txt/heap.h"
#include "txt/sinit_mle.h"

static uint8_t dmar[56];
static uint8_t out[4096];
static char err[200];

static void input(struct txt_sinit_mle_in *in)
{
    memset(in, 0, sizeof(*in));
    memset(dmar, 0, sizeof(dmar));
    memcpy(dmar, "DMAR", 4);
    store_le32(dmar + 4, sizeof(dmar));
    for (unsigned i = 10; i < sizeof(dmar); i++)
        dmar[i] = (uint8_t)(i * 3);
    uint8_t sum = 0;
    for (unsigned i = 0; i < sizeof(dmar); i++)
        sum = (uint8_t)(sum + dmar[i]);
    dmar[9] = (uint8_t)-sum;
    in->edx_senter_flags = 0;
    in->lcp_policy_control = 2;
    in->proc_scrtm_status = 0;
    in->nr_ram = 1;
    in->ram[0].base = 0;
    in->ram[0].size = 0x1fc00000;
    in->dpr_base = 0x1fc00000;
    in->dpr_size = 0x400000;
    in->mcfg_base = 0xb0000000;
    in->mcfg_size = 0x10000000;
    in->dmar = dmar;
    in->dmar_len = sizeof(dmar);
}

static void expect_mdr(const uint8_t *m, uint64_t base, uint64_t length, uint8_t type)
{
    assert_int_equal(load_le64(m), base);
    assert_int_equal(load_le64(m + 8), length);
    assert_int_equal(m[16], type);
    for (unsigned i = 17; i < 24; i++)
        assert_int_equal(m[i], 0);
}

static void q35_layout(void **state)
{
    (void)state;
    struct txt_sinit_mle_in in;
    struct txt_sinit_mle_data d;
    uint64_t size;

    input(&in);
    memset(out, 0xee, sizeof(out));
    assert_int_equal(txt_sinit_mle_data_build(&in, out, sizeof(out), &size, err, sizeof(err)), 0);
    /* 8 + 148 + END 8, 4 records of 24, the DMAR */
    assert_int_equal(size, 164 + 4 * 24 + 56);
    assert_int_equal(load_le64(out), size);
    assert_int_equal(out[size], 0xee);                     /* nothing written past it */
    assert_int_equal(txt_sinit_mle_data_check(out + 8, size, &d, err, sizeof(err)), 0);
    assert_int_equal(d.version, 9);
    assert_int_equal(d.lcp_policy_control, 2);
    assert_int_equal(d.num_mdrs, 4);
    assert_int_equal(d.mdrs_off, 164);
    assert_int_equal(d.num_vtd_dmars, 56);
    assert_int_equal(d.vtd_dmars_off, 164 + 96);
    assert_int_equal(load_le32(out + 8 + 148), 0);          /* END: type 0, size 8 */
    assert_int_equal(load_le32(out + 8 + 152), 8);
    expect_mdr(out + 164, 0, 0xa0000, TXT_MDR_GOOD);
    expect_mdr(out + 188, 0x100000, 0x1fb00000, TXT_MDR_GOOD);
    expect_mdr(out + 212, 0x1fc00000, 0x400000, TXT_MDR_PROTECTED);
    expect_mdr(out + 236, 0xb0000000, 0x10000000, TXT_MDR_PCIE_CONFIG);
    assert_memory_equal(out + 260, dmar, sizeof(dmar));

    /* RAM above 4 GiB, a range inside the legacy hole (no record), one across its end, no MCFG */
    in.nr_ram = 3;
    in.ram[0].size = 0x9f000;
    in.ram[1].base = 0xc0000;
    in.ram[1].size = 0x20000;
    in.ram[2].base = 0x100000000ull;
    in.ram[2].size = 0x40000000;
    in.mcfg_size = 0;
    assert_int_equal(txt_sinit_mle_data_build(&in, out, sizeof(out), &size, err, sizeof(err)), 0);
    assert_int_equal(txt_sinit_mle_data_check(out + 8, size, &d, err, sizeof(err)), 0);
    assert_int_equal(d.num_mdrs, 3);
    expect_mdr(out + 164, 0, 0x9f000, TXT_MDR_GOOD);
    expect_mdr(out + 188, 0x100000000ull, 0x40000000, TXT_MDR_GOOD);
    expect_mdr(out + 212, 0x1fc00000, 0x400000, TXT_MDR_PROTECTED);
    in.nr_ram = 1;
    in.ram[0].base = 0x80000;
    in.ram[0].size = 0x100000;
    assert_int_equal(txt_sinit_mle_data_build(&in, out, sizeof(out), &size, err, sizeof(err)), 0);
    expect_mdr(out + 164, 0x80000, 0x20000, TXT_MDR_GOOD);
    expect_mdr(out + 188, 0x100000, 0x80000, TXT_MDR_GOOD);
}

static void refused(void **state)
{
    (void)state;
    struct txt_sinit_mle_in in;
    uint64_t size = 77;

#define REFUSED(edit, cap, reason) do { \
        input(&in); \
        edit; \
        assert_int_equal(txt_sinit_mle_data_build(&in, out, cap, &size, err, sizeof(err)), -1); \
        assert_string_equal(err, reason); \
        assert_int_equal(size, 77); \
    } while (0)
    REFUSED(in.nr_ram = 0, sizeof(out), "0 RAM ranges, not 1-16");
    REFUSED(in.nr_ram = 17, sizeof(out), "17 RAM ranges, not 1-16");
    REFUSED(in.ram[0].size = 0, sizeof(out), "RAM range 0 0x0+0x0 is empty or wraps");
    REFUSED((in.ram[0].base = ~0ull - 10, in.ram[0].size = 12), sizeof(out),
            "RAM range 0 0xfffffffffffffff5+0xc is empty or wraps");
    REFUSED(in.dmar = NULL, sizeof(out), "no DMAR table to copy (tboot and the kernel need one)");
    REFUSED(dmar[0] = 'X', sizeof(out), "no DMAR table to copy (tboot and the kernel need one)");
    REFUSED((void)0, 164 + 96 + 55, "SinitMleData needs 0x13c bytes, the heap leaves 0x13b");
#undef REFUSED
    input(&in);
    assert_int_equal(txt_sinit_mle_data_build(&in, out, 164 + 96 + 56, &size, err, sizeof(err)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(q35_layout),
        cmocka_unit_test(refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
