/* SPDX-License-Identifier: MIT */
/*
 * src/txt/sinit_mle.c: SinitMleData for q35 with 512 MiB and TXT (RAM below T - 4 MiB, DPR the
 * last 4 MiB, MCFG at 0xB0000000), record by record and byte by byte, accepted by
 * txt_sinit_mle_data_check (what tboot, Linux and Xen read); every refusal. And
 * txt_ram_from_fw_cfg_e820 on QEMU's fw_cfg etc/e820 (packed 20-byte {addr, len, type}).
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

/* ---- fw_cfg etc/e820 ---- */

static uint8_t e820[32 * 20];
static uint32_t e820_len;

static void e820_add(uint64_t addr, uint64_t len, uint32_t type)
{
    assert_true(e820_len + 20 <= sizeof(e820));
    store_le64(e820 + e820_len, addr);
    store_le64(e820 + e820_len + 8, len);
    store_le32(e820 + e820_len + 16, type);
    e820_len += 20;
}

/* on an exact-size copy: ASan sees any read past len */
static int ram_from_e820(uint32_t len, struct txt_sinit_mle_in *in)
{
    uint8_t *c = malloc(len ? len : 1);
    memcpy(c, e820, len);
    memset(err, 0, sizeof(err));
    int rc = txt_ram_from_fw_cfg_e820(c, len, in, err, sizeof(err));
    free(c);
    return rc;
}

static void fw_cfg_e820(void **state)
{
    (void)state;
    struct txt_sinit_mle_in in;

    /* QEMU -m 512: its RAM, and the reserved 16 KiB below 4 GiB (type 2) */
    input(&in);
    in.nr_ram = 5;
    in.ram[1].base = 0x1234;
    e820_len = 0;
    e820_add(0, 0x20000000, 1);
    e820_add(0xfeffc000ull, 0x4000, 2);
    assert_int_equal(ram_from_e820(e820_len, &in), 0);
    assert_string_equal(err, "");
    assert_int_equal(in.nr_ram, 1);
    assert_int_equal(in.ram[0].base, 0);
    assert_int_equal(in.ram[0].size, 0x20000000);
    /* the rest of the input is left as it was */
    assert_int_equal(in.dpr_base, 0x1fc00000);
    assert_int_equal(in.mcfg_base, 0xb0000000);
    assert_ptr_equal(in.dmar, dmar);
    /* what it reads goes into SinitMleData */
    uint64_t size;
    assert_int_equal(txt_sinit_mle_data_build(&in, out, sizeof(out), &size, err, sizeof(err)), 0);
    expect_mdr(out + 164, 0, 0xa0000, TXT_MDR_GOOD);
    expect_mdr(out + 188, 0x100000, 0x1ff00000, TXT_MDR_GOOD);

    /* -m 8G: RAM below and above the PCI hole, in order; ACPI, NVS, unusable and unknown
     * types and empty RAM entries are not RAM */
    input(&in);
    e820_len = 0;
    e820_add(0, 0x80000000ull, 1);
    e820_add(0xfeffc000ull, 0x4000, 2);
    e820_add(0x7ffe0000ull, 0x20000, 3);
    e820_add(0x7ffd0000ull, 0x10000, 4);
    e820_add(0x7ffc0000ull, 0x10000, 5);
    e820_add(0x7ffb0000ull, 0x10000, 0x101);    /* type 1 in its low byte only */
    e820_add(0x90000000ull, 0, 1);              /* empty */
    e820_add(0x100000000ull, 0x180000000ull, 1);
    e820_add(0xfd00000000ull, 0x300000000ull, 2);
    assert_int_equal(ram_from_e820(e820_len, &in), 0);
    assert_int_equal(in.nr_ram, 2);
    assert_int_equal(in.ram[0].base, 0);
    assert_int_equal(in.ram[0].size, 0x80000000ull);
    assert_int_equal(in.ram[1].base, 0x100000000ull);
    assert_int_equal(in.ram[1].size, 0x180000000ull);

    /* 16 RAM ranges fit, among other entries */
    input(&in);
    e820_len = 0;
    for (unsigned i = 0; i < 16; i++) {
        e820_add(0x10000000ull * i, 0x1000000, 1);
        e820_add(0x10000000ull * i + 0x1000000, 0x1000, 2);
    }
    assert_int_equal(ram_from_e820(e820_len, &in), 0);
    assert_int_equal(in.nr_ram, 16);
    assert_int_equal(in.ram[15].base, 0xf0000000ull);
    assert_int_equal(in.ram[15].size, 0x1000000);
}

static void fw_cfg_e820_refused(void **state)
{
    (void)state;
    struct txt_sinit_mle_in in;

    /* a partial entry */
    input(&in);
    e820_len = 0;
    e820_add(0, 0x20000000, 1);
    e820_add(0xfeffc000ull, 0x4000, 2);
    assert_int_equal(ram_from_e820(e820_len - 1, &in), -1);
    assert_string_equal(err, "etc/e820 is 39 bytes, not a multiple of 20");
    assert_int_equal(ram_from_e820(e820_len + 4, &in), -1);   /* 4 bytes more: an 8-byte map? */
    assert_string_equal(err, "etc/e820 is 44 bytes, not a multiple of 20");
    assert_int_equal(ram_from_e820(24, &in), -1);             /* {u64, u64, u32} padded to 24 */
    assert_string_equal(err, "etc/e820 is 24 bytes, not a multiple of 20");
    assert_int_equal(ram_from_e820(1, &in), -1);
    assert_string_equal(err, "etc/e820 is 1 bytes, not a multiple of 20");

    /* no RAM: nothing, only other types, only empty RAM */
    assert_int_equal(ram_from_e820(0, &in), -1);
    assert_string_equal(err, "etc/e820 lists no RAM");
    assert_int_equal(in.nr_ram, 0);
    e820_len = 0;
    e820_add(0xfeffc000ull, 0x4000, 2);
    e820_add(0, 0x20000000, 3);
    e820_add(0x100000, 0, 1);
    assert_int_equal(ram_from_e820(e820_len, &in), -1);
    assert_string_equal(err, "etc/e820 lists no RAM");

    /* 17 RAM ranges, one more than TXT_SINIT_MLE_MAX_RAM */
    e820_len = 0;
    for (unsigned i = 0; i < 17; i++)
        e820_add(0x10000000ull * i, 0x1000000, 1);
    assert_int_equal(ram_from_e820(e820_len, &in), -1);
    assert_string_equal(err, "etc/e820 lists more than 16 RAM ranges");
    /* the 17th empty: fine */
    store_le64(e820 + 16 * 20 + 8, 0);
    assert_int_equal(ram_from_e820(e820_len, &in), 0);
    assert_int_equal(in.nr_ram, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(q35_layout),
        cmocka_unit_test(refused),
        cmocka_unit_test(fw_cfg_e820),
        cmocka_unit_test(fw_cfg_e820_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
