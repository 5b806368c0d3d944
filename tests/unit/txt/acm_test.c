/* SPDX-License-Identifier: MIT */
/*
 * src/txt/acm.c: acm_build's layout field by field (docs/txt-platform.md 3.2), build -> parse
 * round trips, every refusal of acm_parse (is_sinit_acmod and the list bounds),
 * acm_match_platform (does_acmod_match_platform) and acm_check_launch (verify_acmod), each
 * once failing with its reason and once just passing, and the signed ranges.
 */
#include "test_common.h"

#include "lib/bytes.h"
#include "txt/acm.h"

#define FMS 0x00060fb1u
#define CAP (64u * 1024)

static uint8_t buf[CAP + ACM_SIZE_MAX_PADDING + 64];
static uint32_t size;
static char err[256];
static struct acm_info a;

static void build_default(void)
{
    struct acm_values v;
    uint8_t payload[100];
    for (unsigned i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)(i * 7 + 1);
    acm_values_default(&v, FMS, 0x20261204);
    v.entry_point = 0x10;
    memset(buf, 0, sizeof(buf));
    assert_int_equal(acm_build(&v, payload, sizeof(payload), buf, CAP, &size, err, sizeof(err)), 0);
}

static int parse(size_t len)
{
    err[0] = 0;
    return acm_parse(buf, len, &a, err, sizeof(err));
}

static void expect_refused(size_t len, const char *reason)
{
    assert_int_equal(parse(len), -1);
    assert_contains(err, reason);
}

static void build_layout(void **state)
{
    (void)state;
    build_default();
    /* header, as docs 3.2 lists it */
    assert_int_equal(load_le16(buf + 0), 2);
    assert_int_equal(load_le16(buf + 2), 0);
    assert_int_equal(load_le32(buf + 4), 0xA1);
    assert_int_equal(load_le32(buf + 8), 0);
    assert_int_equal(load_le16(buf + 12), 0xB00F);
    assert_int_equal(load_le16(buf + 14), 0);
    assert_int_equal(load_le32(buf + 16), 0x8086);
    assert_int_equal(load_le32(buf + 20), 0x20261204);
    assert_int_equal(load_le32(buf + 24) * 4, size);
    assert_int_equal(size % 64, 0);
    assert_int_equal(load_le32(buf + 40), 0x1F);
    assert_int_equal(load_le32(buf + 48), 0x08);
    assert_int_equal(load_le32(buf + 120), 64);
    assert_int_equal(load_le32(buf + 124), 0x8F);
    assert_int_equal(load_le32(buf + 0x180), 65537);
    /* the GDT acm_build laid out: null, flat code, flat data, null */
    uint32_t gdt = load_le32(buf + 44);
    assert_int_equal(gdt % 8, 0);
    assert_int_equal(load_le32(buf + gdt + 8), 0x0000ffff);
    assert_int_equal(load_le32(buf + gdt + 12), 0x00cf9b00);
    assert_int_equal(load_le32(buf + gdt + 20), 0x00cf9300);
    /* the payload at the 64-byte boundary, entered at its +0x10 */
    uint32_t entry = load_le32(buf + 52);
    assert_int_equal((entry - 0x10) % 64, 0);
    assert_int_equal(buf[entry - 0x10 + 3], 3 * 7 + 1);
    /* info table at 0x4C0 */
    static const uint8_t uuid[16] = ACM_UUID_V3_BYTES;
    assert_memory_equal(buf + 0x4C0, uuid, 16);
    assert_int_equal(buf[0x4C0 + 16], 1);
    assert_int_equal(buf[0x4C0 + 17], 5);
    assert_int_equal(load_le16(buf + 0x4C0 + 18), 48);
    assert_int_equal(load_le32(buf + 0x4C0 + 24), 7);
    assert_int_equal(load_le32(buf + 0x4C0 + 28), 0x00020000);
    assert_int_equal(load_le32(buf + 0x4C0 + 32), 0x261);
    assert_int_equal(buf[0x4C0 + 36], 1);
    assert_int_equal(buf[0x4C0 + 39], 1);
    /* lists */
    uint32_t cl = load_le32(buf + 0x4C0 + 20), pl = load_le32(buf + 0x4C0 + 40);
    uint32_t tl = load_le32(buf + 0x4C0 + 44);
    assert_int_equal(load_le32(buf + cl), 1);
    assert_int_equal(load_le32(buf + cl + 4), 0);
    assert_int_equal(load_le16(buf + cl + 8), 0x8086);
    assert_int_equal(load_le16(buf + cl + 10), 0xB00F);
    assert_int_equal(load_le16(buf + cl + 12), 1);
    assert_int_equal(load_le32(buf + pl), 1);
    assert_int_equal(load_le32(buf + pl + 4), 0x00060fb0);
    assert_int_equal(load_le32(buf + pl + 8), 0x0FFF3FF0);
    assert_true(load_le64(buf + pl + 12) == 0x0004000000000000ull);
    assert_true(load_le64(buf + pl + 20) == 0x001C000000000000ull);
    assert_int_equal(load_le32(buf + tl), 0x4A);
    assert_int_equal(load_le16(buf + tl + 4), 2);
    assert_int_equal(load_le16(buf + tl + 6), 0x0004);
    assert_int_equal(load_le16(buf + tl + 8), 0x000B);
    /* key and signature left to the signer */
    for (unsigned i = 0x80; i < 0x180; i++)
        assert_int_equal(buf[i], 0);
    for (unsigned i = 0x184; i < 0x4C0; i++)
        assert_int_equal(buf[i], 0);
}

static void round_trip(void **state)
{
    (void)state;
    struct acm_values v;
    uint8_t payload[3000];
    for (unsigned i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)i;
    for (uint8_t ver = 3; ver <= 7; ver++) {
        acm_values_default(&v, 0x000906a3, 0x20250101);
        v.info_version = ver;
        v.nr_chipsets = 3;
        v.chipsets[2] = (struct txt_acm_chipset_id){ 1, 0x1234, 0x5678, 0x00f0, 0, 9 };
        v.nr_procs = 2;
        v.nr_algs = 3;
        v.algs[2] = 0x000C;
        v.flags = ACM_FLAG_DEBUG_SIGNED;
        assert_int_equal(acm_build(&v, payload, sizeof(payload), buf, CAP, &size, err,
                                   sizeof(err)), 0);
        assert_int_equal(parse(size), 0);
        assert_int_equal(a.size, size);
        assert_int_equal(a.padding, 0);
        assert_int_equal(a.info_off, 0x4C0);
        assert_int_equal(a.info.version, ver);
        assert_int_equal(a.hdr.flags, ACM_FLAG_DEBUG_SIGNED);
        assert_int_equal(a.nr_chipsets, 3);
        struct txt_acm_chipset_id c;
        acm_chipset(buf, &a, 2, &c);
        assert_memory_equal(&c, &v.chipsets[2], sizeof(c));
        assert_int_equal(a.nr_procs, ver >= 4 ? 2 : 0);
        if (ver >= 4) {
            struct txt_acm_processor_id p;
            acm_processor(buf, &a, 0, &p);
            assert_memory_equal(&p, &v.procs[0], sizeof(p));
        }
        assert_int_equal(a.has_tpm_info, ver >= 5);
        if (ver >= 5) {
            assert_int_equal(a.tpm_caps, v.tpm_caps);
            assert_int_equal(a.nr_algs, 3);
            assert_int_equal(acm_tpm_alg(buf, &a, 2), 0x000C);
        }
        assert_int_equal(acm_check_launch(&a, 0, err, sizeof(err)), 0);
        assert_memory_equal(buf + a.hdr.entry_point, payload, sizeof(payload));
    }
    /* a payload with its own GDT, and an empty payload */
    acm_values_default(&v, FMS, 0);
    v.gdt_in_payload = true;
    v.gdt_base = 0x100;
    v.gdt_limit = 0x1F;
    v.entry_point = 0x200;
    assert_int_equal(acm_build(&v, payload, sizeof(payload), buf, CAP, &size, err, sizeof(err)), 0);
    assert_int_equal(parse(size), 0);
    assert_int_equal(a.hdr.gdt_base, acm_payload_offset(&v) + 0x100);
    assert_int_equal(a.hdr.entry_point, acm_payload_offset(&v) + 0x200);
    acm_values_default(&v, FMS, 0);
    assert_int_equal(acm_build(&v, NULL, 0, buf, CAP, &size, err, sizeof(err)), 0);
    assert_int_equal(parse(size), 0);
    assert_int_equal(acm_check_launch(&a, 0, err, sizeof(err)), 0);
}

static void build_refusals(void **state)
{
    (void)state;
    struct acm_values v;
    uint8_t payload[64] = { 0 };
    acm_values_default(&v, FMS, 0);
    v.nr_chipsets = ACM_MAX_IDS + 1;
    assert_int_equal(acm_build(&v, payload, 64, buf, CAP, &size, err, sizeof(err)), -1);
    assert_contains(err, "at most 8 chipset");
    acm_values_default(&v, FMS, 0);
    v.nr_algs = ACM_MAX_ALGS + 1;
    assert_int_equal(acm_build(&v, payload, 64, buf, CAP, &size, err, sizeof(err)), -1);
    assert_contains(err, "at most 8 TPM");
    acm_values_default(&v, FMS, 0);
    v.info_version = 8;
    assert_int_equal(acm_build(&v, payload, 64, buf, CAP, &size, err, sizeof(err)), -1);
    assert_contains(err, "info table version 8, not 3-7");
    acm_values_default(&v, FMS, 0);
    assert_int_equal(acm_build(&v, payload, 64, buf, 0x500, &size, err, sizeof(err)), -1);
    assert_contains(err, "the buffer has 0x500");
    v.entry_point = 64;
    assert_int_equal(acm_build(&v, payload, 64, buf, CAP, &size, err, sizeof(err)), -1);
    assert_contains(err, "entry point 0x40 is outside the 0x40-byte payload");
    acm_values_default(&v, FMS, 0);
    v.gdt_in_payload = true;
    v.gdt_base = 0x28;
    v.gdt_limit = 0x18;
    assert_int_equal(acm_build(&v, payload, 64, buf, CAP, &size, err, sizeof(err)), -1);
    assert_contains(err, "GDT at 0x28 limit 0x18 is outside the 0x40-byte payload");
    v.gdt_limit = 0x17;                 /* ends at the payload's last byte */
    assert_int_equal(acm_build(&v, payload, 64, buf, CAP, &size, err, sizeof(err)), 0);
}

/* tboot's policy index follows the ACM's tpm_nv_index_set (tboot common/tpm_20.c): 0x01C10131
 * with it (our SINIT's default), 0x01200001 without it or without a TPM info list (< v5) */
static void tb_policy_index(void **state)
{
    (void)state;
    struct acm_values v;
    const struct { uint8_t ver; uint32_t nv_set; uint32_t index; } cases[] = {
        { 5, 1u << 6, 0x01C10131u }, { 7, 1u << 6, 0x01C10131u },
        { 5, 0, 0x01200001u }, { 4, 1u << 6, 0x01200001u },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        acm_values_default(&v, FMS, 0);
        assert_int_equal(v.tpm_caps & (1u << 6), 1u << 6);
        v.info_version = cases[i].ver;
        v.tpm_caps = (v.tpm_caps & ~(1u << 6)) | cases[i].nv_set;
        assert_int_equal(acm_build(&v, NULL, 0, buf, CAP, &size, err, sizeof(err)), 0);
        assert_int_equal(parse(size), 0);
        assert_int_equal(acm_tb_policy_index(&a), cases[i].index);
    }
}

static void set32(uint32_t off, uint32_t v)
{
    store_le32(buf + off, v);
}

static void parse_refusals(void **state)
{
    (void)state;
    build_default();
    assert_int_equal(parse(size), 0);
    uint32_t cl = a.info.chipset_id_list, pl = a.info.processor_id_list;
    uint32_t tl = a.info.tpm_info_list_off;

    expect_refused(0x4BF, "ACM is 1215 bytes, shorter than its 0x4c0-byte header");
    /* the size field against the file, and tboot's padding window */
    set32(24, 0x40000000);
    expect_refused(size, "overflows 32 bits");
    set32(24, size / 4 + 1);
    expect_refused(size, "size field says 0x");
    set32(24, size / 4 - 16);
    expect_refused(size, "padding must be 0x10000-0x40000");
    set32(24, size / 4);
    assert_int_equal(parse(size + ACM_SIZE_MIN_PADDING - 1), -1);
    assert_int_equal(parse(size + ACM_SIZE_MIN_PADDING), 0);
    assert_int_equal(a.padding, ACM_SIZE_MIN_PADDING);
    assert_int_equal(parse(size + ACM_SIZE_MAX_PADDING), 0);
    expect_refused(size + ACM_SIZE_MAX_PADDING + 1, "padding must be");
    set32(24, 0x100);
    memset(buf + size, 0, 0x400);
    expect_refused(0x100 * 4 + ACM_SIZE_MIN_PADDING, "shorter than its header");
    set32(24, size / 4);
    /* type, vendor */
    store_le16(buf, 1);
    expect_refused(size, "module_type 1, not chipset (2)");
    store_le16(buf, 2);
    set32(16, 0x8087);
    expect_refused(size, "module_vendor 0x8087, not 0x8086");
    set32(16, 0x8086);
    /* the info table's place */
    set32(124, 0x8F + 0x1000);
    expect_refused(size, "does not fit in the");
    set32(124, 0xffffffff);
    expect_refused(size, "does not fit in the");
    set32(124, (size - 0x4C0 + 0x4C0 - 48) / 4 - 0xA1);   /* the table's last possible place */
    assert_int_equal(parse(size), -1);
    assert_contains(err, "UUID");
    set32(124, (size - 48) / 4 - 0xA1 + 1);
    expect_refused(size, "does not fit in the");
    set32(124, 0x8F);
    buf[0x4C0 + 15] ^= 1;
    expect_refused(size, "ACM info table UUID is not ACM_UUID_V3");
    buf[0x4C0 + 15] ^= 1;
    buf[0x4C0 + 17] = 2;
    expect_refused(size, "info table version 2, tboot needs 3 or later");
    buf[0x4C0 + 17] = 5;
    buf[0x4C0 + 16] = 0;
    expect_refused(size, "chipset_acm_type 0, not SINIT (1)");
    buf[0x4C0 + 16] = 1;
    assert_int_equal(parse(size), 0);
    /* lists: offsets and counts */
    set32(0x4C0 + 20, size - 3);
    expect_refused(size, "chipset ID list at");
    set32(0x4C0 + 20, size - 4);          /* just fits: a count (of 0) in the last dword */
    assert_int_equal(parse(size), 0);
    assert_int_equal(a.nr_chipsets, 0);
    set32(0x4C0 + 20, 0xfffffffe);
    expect_refused(size, "chipset ID list at 0xfffffffe is outside");
    set32(0x4C0 + 20, cl);
    set32(cl, (size - cl - 4) / 16 + 1);
    expect_refused(size, "entries do not fit");
    set32(cl, 0xffffffff);
    expect_refused(size, "4294967295 entries do not fit");
    set32(cl, (size - cl - 4) / 16);
    assert_int_equal(parse(size), 0);
    set32(cl, 1);
    set32(0x4C0 + 40, size);
    expect_refused(size, "processor ID list at");
    set32(0x4C0 + 40, pl);
    set32(pl, 0x20000000);
    expect_refused(size, "536870912 entries do not fit");
    set32(pl, 1);
    set32(0x4C0 + 44, size - 5);
    expect_refused(size, "TPM info list at");
    set32(0x4C0 + 44, tl);
    store_le16(buf + tl + 4, 0xffff);
    expect_refused(size, "65535 algorithms do not fit");
    store_le16(buf + tl + 4, 2);
    /* below version 5 and 4 the lists are not read */
    set32(0x4C0 + 44, 0xffffffff);
    buf[0x4C0 + 17] = 4;
    assert_int_equal(parse(size), 0);
    assert_false(a.has_tpm_info);
    assert_int_equal(a.info.tpm_info_list_off, 0);
    set32(0x4C0 + 40, 0xffffffff);
    buf[0x4C0 + 17] = 3;
    assert_int_equal(parse(size), 0);
    assert_int_equal(a.nr_procs, 0);
}

static struct acm_platform platform(void)
{
    struct acm_platform p = {
        .ver_fsbif = TXT_VER_PROD_FUSED,
        .didvid = TXT_DIDVID(0x8086, 0xB00F, 1),
        .fms = FMS,
        .platform_id = 0x0004000000000000ull,
        .bios_data_version = 6,
        .bios_data_flags = (uint64_t)TXT_PLATFORM_TYPE_CLIENT << TXT_BIOS_FLAGS_PLATFORM_TYPE_SHIFT,
    };
    return p;
}

static int match(const struct acm_platform *p)
{
    err[0] = 0;
    return acm_match_platform(buf, &a, p, err, sizeof(err));
}

static void match_platform(void **state)
{
    (void)state;
    build_default();
    assert_int_equal(parse(size), 0);
    struct acm_platform p = platform();
    assert_int_equal(match(&p), 0);
    /* any stepping, not another model; platform ID bits outside the mask ignored */
    p.fms = FMS ^ 0xf;
    p.platform_id |= 0x00e0000000000001ull;
    assert_int_equal(match(&p), 0);
    p.fms = FMS ^ 0x10;
    assert_int_equal(match(&p), -1);
    assert_contains(err, "processor fms 0x60fa1 platform ID");
    p = platform();
    p.platform_id = 0x0008000000000000ull;
    assert_int_equal(match(&p), -1);
    assert_contains(err, "is not in the ACM's 1 processor IDs");
    /* chipset: vendor, device, revision exact without flag bit 0 */
    p = platform();
    p.didvid = TXT_DIDVID(0x8086, 0xB010, 1);
    assert_int_equal(match(&p), -1);
    assert_contains(err, "chipset 8086:b010 revision 1 is not in the ACM's 1 chipset IDs");
    p.didvid = TXT_DIDVID(0x8087, 0xB00F, 1);
    assert_int_equal(match(&p), -1);
    p.didvid = TXT_DIDVID(0x8086, 0xB00F, 3);
    assert_int_equal(match(&p), -1);
    /* flag bit 0: revision is a mask */
    store_le32(buf + a.chipsets_off, ACM_CHIPSET_FLAG_REVISION_MASK);
    assert_int_equal(match(&p), 0);
    p.didvid = TXT_DIDVID(0x8086, 0xB00F, 2);
    assert_int_equal(match(&p), -1);
    store_le32(buf + a.chipsets_off, 0);
    /* production fusing against debug_signed; QPIIF when FSBIF reads 0 or ~0 */
    p = platform();
    p.ver_fsbif = 0;
    assert_int_equal(match(&p), -1);
    assert_contains(err, "production/debug mismatch: chipset debug fused, ACM production signed");
    p.ver_qpiif = TXT_VER_PROD_FUSED;
    assert_int_equal(match(&p), 0);
    p.ver_fsbif = 0xffffffffull;
    assert_int_equal(match(&p), 0);
    p.ver_fsbif = 0x1;
    assert_int_equal(match(&p), -1);
    /* client/server, from BiosData version 6 and info table version 5 */
    p = platform();
    p.bios_data_flags = (uint64_t)TXT_PLATFORM_TYPE_SERVER << TXT_BIOS_FLAGS_PLATFORM_TYPE_SHIFT;
    assert_int_equal(match(&p), -1);
    assert_contains(err, "non-server ACM (platform type 1) on a server platform");
    p.bios_data_version = 5;
    assert_int_equal(match(&p), 0);
    p = platform();
    a.info.capabilities &= ~TXT_CAP_PLATFORM_TYPE_MASK;
    assert_int_equal(match(&p), -1);
    assert_contains(err, "non-client ACM (platform type 0) on a client platform");
    a.info.version = 4;
    assert_int_equal(match(&p), 0);
    /* an info table of version 3 has no processor list to match */
    a.info.version = 3;
    p.fms = 0;
    assert_int_equal(match(&p), 0);
}

static int launch(uint32_t max)
{
    err[0] = 0;
    return acm_check_launch(&a, max, err, sizeof(err));
}

static void check_launch(void **state)
{
    (void)state;
    build_default();
    assert_int_equal(parse(size), 0);
    struct acm_info good = a;
    assert_int_equal(launch(size), 0);
    assert_int_equal(launch(size - 64), -1);
    assert_contains(err, "larger than the processor's maximum");
    a.size = size + 4;
    assert_int_equal(launch(0), -1);
    assert_contains(err, "not a nonzero multiple of 64");
    a = good;
    a.hdr.entry_point = size - 1;
    assert_int_equal(launch(0), 0);
    a.hdr.entry_point = size;
    assert_int_equal(launch(0), -1);
    assert_contains(err, "entry point 0x");
    a = good;
    a.hdr.seg_sel = 0;
    assert_int_equal(launch(0), -1);
    assert_contains(err, "segment selector 0x0 is invalid for GDT limit 0x1f");
    a.hdr.seg_sel = 0x0c;
    assert_int_equal(launch(0), -1);
    a.hdr.seg_sel = 0x18;
    assert_int_equal(launch(0), -1);
    a.hdr.seg_sel = 0x10;
    assert_int_equal(launch(0), 0);
    a = good;
    a.info.min_mle_hdr_ver = 0x00020002;
    assert_int_equal(launch(0), -1);
    assert_contains(err, "MLE header version 0x00020002");
    a.info.min_mle_hdr_ver = 0x00020001;
    assert_int_equal(launch(0), 0);
    a = good;
    a.info.capabilities &= ~TXT_CAP_RLP_WAKE_GETSEC;
    assert_int_equal(launch(0), -1);
    assert_contains(err, "offer no RLP wake method");
    a.info.capabilities |= TXT_CAP_RLP_WAKE_MONITOR;
    assert_int_equal(launch(0), 0);
    a = good;
    a.info.os_sinit_data_ver = 3;
    assert_int_equal(launch(0), -1);
    assert_contains(err, "OsSinitData version 3, tboot needs 4");
}

static void signed_ranges(void **state)
{
    (void)state;
    struct acm_range r[ACM_NR_SIGNED_RANGES];
    acm_signed_ranges(0x1140, r);
    assert_int_equal(r[0].off, 0);
    assert_int_equal(r[0].len, 0x184);
    assert_int_equal(r[1].off, 0x4C0);
    assert_int_equal(r[1].len, 0x1140 - 0x4C0);
    /* the signature and the scratch area are exactly what is left out */
    assert_int_equal(r[1].off - (r[0].off + r[0].len), 256 + 143 * 4);
    assert_int_equal(offsetof(struct txt_acm_hdr, rsa2048_sig), r[0].len);
    acm_signed_ranges(0x4C0, r);
    assert_int_equal(r[1].len, 0);
    acm_signed_ranges(0x100, r);
    assert_int_equal(r[0].len, 0x100);
    assert_int_equal(r[1].len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(build_layout),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(build_refusals),
        cmocka_unit_test(parse_refusals),
        cmocka_unit_test(match_platform),
        cmocka_unit_test(check_launch),
        cmocka_unit_test(signed_ranges),
        cmocka_unit_test(tb_policy_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
