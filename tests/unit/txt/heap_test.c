/* SPDX-License-Identifier: MIT */
/*
 * src/txt/heap.c over a heap laid out as the emulated BIOS and tboot 1.10.5 lay it out
 * (BiosData v6 with a BIOS_SPEC_VER element, tboot's OsMleData, OsSinitData v7 with the TCG
 * event-log pointer): the walk, BiosData, the extended-element chain and OsSinitData, each
 * rule once failing with its exact reason and once just passing.
 */
#include "test_common.h"

#include "lib/bytes.h"
#include "txt/heap.h"

#define HEAP_BASE 0x7ae00000ull
#define HEAP_SIZE 0xe0000ull

static uint8_t heap[HEAP_SIZE];

static char err[256];
static struct txt_heap_view v;

/* BiosData 8 + 36 + 14 + 8, OsMleData 0x15120, OsSinitData 136, SinitMleData 0x1000 */
#define BIOS_SIZE (8u + 36u + 14u + 8u)
#define OSMLE_OFF BIOS_SIZE
#define OSSINIT_OFF (OSMLE_OFF + TXT_OS_MLE_DATA_SIZE)
#define SINITMLE_OFF (OSSINIT_OFF + 136u)
#define OSMLE_PHYS (HEAP_BASE + OSMLE_OFF + 8)
#define EVTLOG_PHYS (OSMLE_PHYS + offsetof(struct txt_os_mle_data, event_log_buffer))

static uint8_t *bios(void) { return heap + 8; }
static uint8_t *ossinit(void) { return heap + OSSINIT_OFF + 8; }

static void lay_out(void)
{
    memset(heap, 0, sizeof(heap));
    /* BiosData v6: 1 CPU, client platform, BIOS_SPEC_VER 2.0.0, END */
    store_le64(heap, BIOS_SIZE);
    uint8_t *b = bios();
    store_le32(b + 0, 6);
    store_le32(b + 24, 1);
    store_le64(b + 28, (uint64_t)TXT_PLATFORM_TYPE_CLIENT << TXT_BIOS_FLAGS_PLATFORM_TYPE_SHIFT);
    store_le32(b + 36, HEAP_EXTDATA_TYPE_BIOS_SPEC_VER);
    store_le32(b + 40, 14);
    store_le16(b + 44, 2);
    store_le32(b + 50, HEAP_EXTDATA_TYPE_END);
    store_le32(b + 54, 8);
    /* OsMleData: tboot's */
    store_le64(heap + OSMLE_OFF, TXT_OS_MLE_DATA_SIZE);
    store_le32(heap + OSMLE_OFF + 8, 3);
    /* OsSinitData v7 as tboot 1.10.5 writes it for a TPM 2.0 with the TCG log */
    store_le64(heap + OSSINIT_OFF, 136);
    uint8_t *o = ossinit();
    store_le32(o + 0, 7);
    store_le32(o + 4, 1);                       /* extpol=sha256: the embedded algorithms */
    store_le64(o + 8, 0x801000);
    store_le64(o + 16, 0x49000);
    store_le64(o + 24, 0x1b340);
    store_le64(o + 32, 0);                      /* low PMR: 0 - 2 GiB */
    store_le64(o + 40, 0x80000000);
    store_le64(o + 48, 0xFFFFFFFFFFE00000ull);  /* tboot's high PMR without high RAM */
    store_le64(o + 56, 0x200000);
    store_le64(o + 64, OSMLE_PHYS + offsetof(struct txt_os_mle_data, lcp_po_data));
    store_le64(o + 72, 0x100);
    store_le32(o + 80, 0x601);                  /* getsec wake, TCG log, cbnt (from tboot) */
    store_le32(o + 92, HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR_2_1);
    store_le32(o + 96, 28);
    store_le64(o + 100, EVTLOG_PHYS);
    store_le32(o + 108, 0x2000);
    store_le32(o + 120, HEAP_EXTDATA_TYPE_END);
    store_le32(o + 124, 8);
    /* SinitMleData: a size only */
    store_le64(heap + SINITMLE_OFF, 0x1000);
}

static struct txt_os_sinit_expect expect(void)
{
    struct txt_os_sinit_expect e = {
        .acm_caps = 0x261,
        .acm_os_sinit_ver = 7,
        .tpm_ext_policy = ACM_TPM_EXT_POLICY_EMBEDDED,
        .heap_base = HEAP_BASE,
        .heap_size = HEAP_SIZE,
        .os_mle_base = OSMLE_PHYS,
        .os_mle_size = TXT_OS_MLE_DATA_SIZE - 8,
        .evtlog_min_size = 0x1000,
    };
    return e;
}

static int walk(unsigned nr, uint64_t size)
{
    err[0] = 0;
    return txt_heap_walk(heap, size, nr, &v, err, sizeof(err));
}

static void expect_walk_fails(unsigned nr, uint64_t size, const char *reason)
{
    assert_int_equal(walk(nr, size), -1);
    assert_contains(err, reason);
}

static void heap_walk(void **state)
{
    (void)state;
    lay_out();
    assert_int_equal(walk(4, HEAP_SIZE), 0);
    assert_int_equal(v.nr, 4);
    assert_true(v.off[1] == OSMLE_OFF && v.size[1] == TXT_OS_MLE_DATA_SIZE);
    assert_true(v.off[2] == OSSINIT_OFF && v.size[2] == 136);
    assert_true(v.off[3] == SINITMLE_OFF && v.size[3] == 0x1000);
    /* exactly filling the heap is fine; one byte less is not */
    uint64_t end = SINITMLE_OFF + 0x1000;
    assert_int_equal(walk(4, end), 0);
    expect_walk_fails(4, end - 1, "heap regions up to SinitMleData end at 0x");
    /* before SINIT: three regions, the fourth size not read */
    store_le64(heap + SINITMLE_OFF, 0);
    assert_int_equal(walk(3, HEAP_SIZE), 0);
    assert_int_equal(v.nr, 3);
    expect_walk_fails(4, HEAP_SIZE, "SinitMleData size is 0");
    expect_walk_fails(3, SINITMLE_OFF - 1, "heap regions up to OsSinitData end at");
    expect_walk_fails(4, SINITMLE_OFF + 7, "SinitMleData size field at heap offset");
    expect_walk_fails(0, HEAP_SIZE, "0 heap regions, not 1-4");
    expect_walk_fails(5, HEAP_SIZE, "5 heap regions");
    lay_out();
    store_le64(heap, 0);
    expect_walk_fails(4, HEAP_SIZE, "BiosData size is 0");
    store_le64(heap, 7);
    expect_walk_fails(4, HEAP_SIZE, "BiosData size 7 is smaller than its own 8-byte size field");
    store_le64(heap, HEAP_SIZE + 1);
    expect_walk_fails(4, HEAP_SIZE, "BiosData size 0xe0001 is larger than the heap (0xe0000)");
    lay_out();
    store_le64(heap + OSMLE_OFF, ~0ull);
    expect_walk_fails(4, HEAP_SIZE, "OsMleData size 0xffffffffffffffff is larger");
    store_le64(heap + OSMLE_OFF, HEAP_SIZE);
    expect_walk_fails(4, HEAP_SIZE, "heap regions up to OsMleData end at");
    expect_walk_fails(1, 7, "BiosData size field at heap offset 0x0");
}

static int bios_check(uint64_t size, uint32_t procs)
{
    struct txt_bios_data b;
    err[0] = 0;
    int rc = txt_bios_data_check(bios(), size, procs, &b, err, sizeof(err));
    if (rc == 0)
        assert_int_equal(b.version, load_le32(bios()));
    return rc;
}

static void expect_bios_fails(uint64_t size, uint32_t procs, const char *reason)
{
    assert_int_equal(bios_check(size, procs), -1);
    assert_contains(err, reason);
}

static void bios_data(void **state)
{
    (void)state;
    lay_out();
    assert_int_equal(bios_check(BIOS_SIZE, 1), 0);
    assert_int_equal(bios_check(BIOS_SIZE, 0), 0);
    expect_bios_fails(BIOS_SIZE, 2, "BiosData num_logical_procs 1, the platform has 2");
    expect_bios_fails(11, 0, "BiosData size 11 holds no version");
    store_le32(bios(), 1);
    expect_bios_fails(BIOS_SIZE, 0, "BiosData version 1, tboot needs 2 or later");
    /* version 2 has no flags: 28 bytes suffice */
    store_le32(bios(), 2);
    assert_int_equal(bios_check(8 + 28, 1), 0);
    expect_bios_fails(8 + 27, 1, "BiosData version 2 is 27 bytes, shorter than its 28-byte fields");
    store_le32(bios(), 3);
    expect_bios_fails(8 + 35, 1, "BiosData version 3 is 35 bytes, shorter than its 36-byte fields");
    assert_int_equal(bios_check(8 + 36, 1), 0);
    /* version 3 does not have elements: trailing bytes are not read */
    store_le32(bios() + 40, 99);
    assert_int_equal(bios_check(BIOS_SIZE, 1), 0);
    store_le32(bios(), 7);                    /* newer than 6: tboot only warns */
    expect_bios_fails(BIOS_SIZE, 1, "BiosData: extended element type 1 at +0x0: size 99");
    store_le32(bios() + 40, 14);
    assert_int_equal(bios_check(BIOS_SIZE, 1), 0);
    /* version 4 with no room for elements beyond the 36 bytes is fine */
    assert_int_equal(bios_check(8 + 36, 1), 0);
    store_le32(bios() + 24, 0);
    expect_bios_fails(BIOS_SIZE, 0, "BiosData num_logical_procs is 0");
    store_le32(bios() + 24, 1025);
    expect_bios_fails(BIOS_SIZE, 0, "BiosData num_logical_procs 1025, more than tboot's 1024");
    store_le32(bios() + 24, 1024);
    assert_int_equal(bios_check(BIOS_SIZE, 1024), 0);
}

static uint8_t elts[256];

static int elts_check(uint64_t len)
{
    err[0] = 0;
    return txt_ext_elts_check(elts, len, err, sizeof(err));
}

static void put_elt(unsigned *off, uint32_t type, uint32_t size)
{
    store_le32(elts + *off, type);
    store_le32(elts + *off + 4, size);
    *off += size;
}

static void ext_elements(void **state)
{
    (void)state;
    unsigned off = 0;
    memset(elts, 0, sizeof(elts));
    put_elt(&off, HEAP_EXTDATA_TYPE_BIOS_SPEC_VER, 14);
    put_elt(&off, HEAP_EXTDATA_TYPE_CUSTOM, 24);
    unsigned acm = off;
    put_elt(&off, HEAP_EXTDATA_TYPE_ACM, 12 + 16);
    store_le32(elts + acm + 8, 2);
    store_le64(elts + acm + 12, 0xfffff000);
    store_le64(elts + acm + 20, 0x1000);
    put_elt(&off, HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR, 16);
    put_elt(&off, 99, 9);                        /* unknown: skipped */
    put_elt(&off, HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR_2_1, 28);
    unsigned end = off;
    put_elt(&off, HEAP_EXTDATA_TYPE_END, 8);
    assert_int_equal(elts_check(off), 0);
    assert_int_equal(elts_check(sizeof(elts)), 0);
    /* END must be reached within the bytes */
    assert_int_equal(elts_check(off - 1), -1);
    assert_contains(err, "no room for an element header before the end (no END element)");
    store_le32(elts + end + 4, 9);
    assert_int_equal(elts_check(off), -1);
    assert_contains(err, "extended element type 0 at +0x77: size 9, with 8 bytes left");
    store_le32(elts + end + 4, 8);
    assert_int_equal(elts_check(end + 7), -1);
    assert_contains(err, "no room for an element header before the end (no END element)");
    assert_int_equal(elts_check(0), -1);
    /* sizes */
    store_le32(elts + 4, 15);
    assert_int_equal(elts_check(off), -1);
    assert_contains(err, "BIOS_SPEC_VER element size 15, not 14");
    store_le32(elts + 4, 0);
    assert_int_equal(elts_check(off), -1);
    assert_contains(err, "extended element type 1 at +0x0: size 0");
    store_le32(elts + 4, 7);
    assert_int_equal(elts_check(off), -1);
    store_le32(elts + 4, 14);
    store_le32(elts + 14 + 4, 23);
    assert_int_equal(elts_check(off), -1);
    assert_contains(err, "CUSTOM element size 23, smaller than its UUID");
    store_le32(elts + 14 + 4, 24);
    store_le32(elts + acm + 8, 3);
    assert_int_equal(elts_check(off), -1);
    assert_contains(err, "ACM element size 28 does not hold its 3 addresses");
    store_le32(elts + acm + 8, 0x20000001);      /* 12 + 8n wraps in 32 bits to 20 */
    assert_int_equal(elts_check(off), -1);
    store_le32(elts + acm + 8, 2);
    store_le64(elts + acm + 20, 0);
    assert_int_equal(elts_check(off), -1);
    assert_contains(err, "ACM element address 1 is 0");
    store_le64(elts + acm + 20, 0x100000000ull);
    assert_int_equal(elts_check(off), -1);
    assert_contains(err, "ACM element address 1 (0x100000000) is above 4 GiB");
    store_le64(elts + acm + 20, 0x1000);
    store_le32(elts + acm + 28 + 4, 17);
    assert_int_equal(elts_check(off), -1);
    assert_contains(err, "TPM 1.2 event log pointer element size 17, not 16");
    store_le32(elts + acm + 28 + 4, 16);
    assert_int_equal(elts_check(off), 0);
}

static int sinit_check(const struct txt_os_sinit_expect *e)
{
    struct txt_os_sinit_info info;
    err[0] = 0;
    int rc = txt_os_sinit_data_check(ossinit(), load_le64(heap + OSSINIT_OFF), e, &info, err,
                                     sizeof(err));
    if (rc == 0 && info.d.version >= 6) {
        assert_true(info.has_evtlog);
        assert_true(info.evtlog.phys_addr == load_le64(ossinit() + 100));
    }
    return rc;
}

#define EXPECT_SINIT(e, reason) do { \
    assert_int_equal(sinit_check(&(e)), -1); assert_contains(err, reason); } while (0)
#define EXPECT_SINIT_OK(e) do { \
    int rc_ = sinit_check(&(e)); if (rc_) fail_msg("refused: %s", err); } while (0)

static void os_sinit_data(void **state)
{
    (void)state;
    struct txt_os_sinit_expect e = expect();
    uint8_t *o = ossinit();
    lay_out();
    EXPECT_SINIT_OK(e);
    assert_int_equal(txt_os_sinit_data_size(3), 0);
    assert_int_equal(txt_os_sinit_data_size(4), 92);
    assert_int_equal(txt_os_sinit_data_size(5), 100);
    assert_int_equal(txt_os_sinit_data_size(6), 136);
    assert_int_equal(txt_os_sinit_data_size(7), 136);

    /* version and size */
    store_le32(o, 8);
    EXPECT_SINIT(e, "OsSinitData version 8, not 4-7");
    store_le32(o, 3);
    EXPECT_SINIT(e, "OsSinitData version 3, not 4-7");
    store_le32(o, 7);
    e.acm_os_sinit_ver = 6;
    EXPECT_SINIT(e, "OsSinitData version 7, newer than the ACM's 6");
    e = expect();
    store_le64(heap + OSSINIT_OFF, 137);
    EXPECT_SINIT(e, "OsSinitData size 137, version 7 with a TPM 2.0 TCG event log needs 136");
    store_le64(heap + OSSINIT_OFF, 11);
    EXPECT_SINIT(e, "OsSinitData size 11 holds no version");
    store_le64(heap + OSSINIT_OFF, 100);
    store_le32(o, 5);
    EXPECT_SINIT_OK(e);
    store_le64(o + 84, 0xf0000);
    EXPECT_SINIT(e, "OsSinitData efi_rsdt_ptr 0xf0000: this platform boots by legacy BIOS");
    store_le64(heap + OSSINIT_OFF, 92);
    store_le32(o, 4);
    EXPECT_SINIT_OK(e);                     /* version 4 has no efi_rsdt_ptr */
    lay_out();

    /* flags */
    store_le32(o + 4, 3);
    EXPECT_SINIT(e, "OsSinitData flags 0x3 has reserved bits");
    store_le32(o + 4, 0);
    EXPECT_SINIT(e, "OsSinitData asks for the agile extend policy, the ACM has not");
    e.tpm_ext_policy = ACM_TPM_EXT_POLICY_ALG_AGILE;
    EXPECT_SINIT_OK(e);
    store_le32(o + 4, 1);
    EXPECT_SINIT(e, "OsSinitData asks for the embedded-algorithms extend policy, the ACM has not");
    e = expect();

    /* capabilities */
    store_le32(o + 80, 0x601 | 0x800);
    EXPECT_SINIT(e, "OsSinitData capabilities 0xe01 has reserved bits");
    store_le32(o + 80, 0x600);
    EXPECT_SINIT(e, "must name exactly one RLP wake method");
    store_le32(o + 80, 0x603);
    EXPECT_SINIT(e, "must name exactly one RLP wake method");
    store_le32(o + 80, 0x602);
    EXPECT_SINIT(e, "OsSinitData capabilities 0x602 ask for 0x2, which the ACM (0x261) does not");
    store_le32(o + 80, 0x609);
    EXPECT_SINIT(e, "ask for 0x8");
    store_le32(o + 80, 0x611);
    EXPECT_SINIT(e, "ask for 0x10");
    store_le32(o + 80, 0x621 | 0x4 | 0xc0 | 0x100);   /* DA, ecx_pgtbl, platform, max_phy */
    EXPECT_SINIT_OK(e);
    store_le32(o + 80, 0x401);
    EXPECT_SINIT(e, "OsSinitData asks for the legacy TPM 2.0 event log");
    e.acm_caps = 0x061;
    store_le32(o + 80, 0x601);
    EXPECT_SINIT(e, "ask for 0x200, which the ACM (0x61) does not offer");
    e = expect();
    store_le32(o + 80, 0x601);

    /* PMRs */
    store_le64(o + 32, 0x100000);
    EXPECT_SINIT(e, "OsSinitData low PMR 0x100000+0x80000000 is not 2 MiB aligned");
    store_le64(o + 32, 0x200000);
    store_le64(o + 40, 0xffe00000);
    EXPECT_SINIT_OK(e);                      /* ends exactly at 4 GiB */
    store_le64(o + 40, 0x100000000ull);
    EXPECT_SINIT(e, "OsSinitData low PMR 0x200000+0x100000000 goes beyond 4 GiB");
    store_le64(o + 32, 0x200000000ull);
    store_le64(o + 40, 0);
    EXPECT_SINIT(e, "OsSinitData low PMR 0x200000000+0x0 goes beyond 4 GiB");
    store_le64(o + 32, 0);
    store_le64(o + 40, 0x80000000);
    store_le64(o + 56, 0x300000);
    EXPECT_SINIT(e, "OsSinitData high PMR 0xffffffffffe00000+0x300000 is not 2 MiB aligned");
    store_le64(o + 56, 0x400000);
    EXPECT_SINIT(e, "OsSinitData high PMR 0xffffffffffe00000+0x400000 wraps past 2^64");
    store_le64(o + 48, 0x100000000ull);
    store_le64(o + 56, 0x40000000);
    EXPECT_SINIT_OK(e);
    store_le64(o + 48, 0xffe00000);
    EXPECT_SINIT(e, "OsSinitData high PMR base 0xffe00000 is below 4 GiB");
    store_le64(o + 56, 0);
    EXPECT_SINIT_OK(e);                      /* no high PMR */
    lay_out();

    /* LCP PO data */
    store_le64(o + 64, HEAP_BASE + HEAP_SIZE - 0x100);
    EXPECT_SINIT_OK(e);                      /* the heap's last bytes */
    store_le64(o + 64, HEAP_BASE + HEAP_SIZE - 0xff);
    EXPECT_SINIT(e, "OsSinitData LCP PO data 0x7aedff01+0x100 is not inside the heap");
    store_le64(o + 64, HEAP_BASE - 1);
    EXPECT_SINIT(e, "is not inside the heap");
    store_le64(o + 64, 0);
    EXPECT_SINIT(e, "OsSinitData LCP PO data 0x0+0x100 is not inside the heap");
    store_le64(o + 72, 0);
    EXPECT_SINIT_OK(e);                      /* no policy data */
    store_le64(o + 64, HEAP_BASE);
    EXPECT_SINIT(e, "OsSinitData LCP PO data 0x7ae00000+0x0 is not inside the heap");
    store_le64(o + 72, ~0ull);
    EXPECT_SINIT(e, "is not inside the heap");
    lay_out();

    /* the elements: event log pointer, END */
    store_le32(o + 92, HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR_2);
    EXPECT_SINIT(e, "OsSinitData element 0 is type 7 size 28, not the TCG event log pointer");
    store_le32(o + 92, 8);
    store_le32(o + 96, 20);
    EXPECT_SINIT(e, "element 0 is type 8 size 20");
    store_le32(o + 96, 28);
    store_le32(o + 124, 16);
    EXPECT_SINIT(e, "OsSinitData element 1 is type 0 size 16, not END (type 0, size 8)");
    store_le32(o + 124, 8);
    store_le32(o + 120, 4);
    EXPECT_SINIT(e, "OsSinitData element 1 is type 4 size 8");
    store_le32(o + 120, 0);
    EXPECT_SINIT_OK(e);
    /* the log: inside OsMleData, big enough, its records inside it */
    store_le64(o + 100, OSMLE_PHYS + e.os_mle_size - 0x2000);
    EXPECT_SINIT_OK(e);
    store_le64(o + 100, OSMLE_PHYS + e.os_mle_size - 0x1fff);
    EXPECT_SINIT(e, "OsSinitData event log 0x7ae13163+0x2000 is not inside OsMleData");
    store_le64(o + 100, OSMLE_PHYS - 8);
    EXPECT_SINIT(e, "is not inside OsMleData");
    store_le64(o + 100, EVTLOG_PHYS);
    e.evtlog_min_size = 0x2001;
    EXPECT_SINIT(e, "OsSinitData event log is 0x2000 bytes, the SINIT writes 0x2001");
    e = expect();
    store_le32(o + 116, 0x2000);
    EXPECT_SINIT_OK(e);
    store_le32(o + 116, 0x2001);
    EXPECT_SINIT(e, "OsSinitData event log records [0x0, 0x2001) are not inside its 0x2000 bytes");
    store_le32(o + 116, 0x10);
    store_le32(o + 112, 0x11);
    EXPECT_SINIT(e, "records [0x11, 0x10)");
}

/* SinitMleData v9 as our SINIT will write it: the fields, END, 2 MDRs, a 56-byte DMAR */
static uint8_t smd[8 + 148 + 8 + 48 + 56];

static void fix_dmar_checksum(void)
{
    uint8_t *t = smd + 8 + 148 + 8 + 48, sum = 0;
    t[9] = 0;
    for (unsigned i = 0; i < 56; i++)
        sum = (uint8_t)(sum + t[i]);
    t[9] = (uint8_t)-sum;
}

static void lay_out_smd(void)
{
    uint8_t *d = smd + 8;
    memset(smd, 0, sizeof(smd));
    store_le64(smd, sizeof(smd));
    store_le32(d, 9);
    store_le32(d + 128, 2);                      /* num_mdrs */
    store_le32(d + 132, 8 + 148 + 8);            /* mdrs_off, from the size field */
    store_le32(d + 136, 1);
    store_le32(d + 140, 8 + 148 + 8 + 48);       /* vtd_dmars_off */
    store_le32(d + 148, HEAP_EXTDATA_TYPE_END);
    store_le32(d + 152, 8);
    uint8_t *m = d + 156;
    store_le64(m + 8, 0xa0000);                  /* GOOD 0 - 640 KiB */
    store_le64(m + 24, 0x100000);
    store_le64(m + 32, 0x7ad00000);
    uint8_t *t = d + 204;
    memcpy(t, "DMAR", 4);
    store_le32(t + 4, 56);
    t[8] = 1;
    fix_dmar_checksum();
}

static int smd_check(void)
{
    struct txt_sinit_mle_data out;
    err[0] = 0;
    return txt_sinit_mle_data_check(smd + 8, load_le64(smd), &out, err, sizeof(err));
}

#define EXPECT_SMD(reason) do { \
    assert_int_equal(smd_check(), -1); assert_contains(err, reason); } while (0)

static void sinit_mle_data(void **state)
{
    (void)state;
    uint8_t *d = smd + 8;
    lay_out_smd();
    assert_int_equal(smd_check(), 0);
    store_le32(d, 5);
    EXPECT_SMD("SinitMleData version 5, tboot needs 6 or later");
    store_le32(d, 10);                           /* newer: tboot only warns */
    assert_int_equal(smd_check(), 0);
    store_le32(d, 8);                            /* no elements read: the END is just bytes */
    store_le32(d + 152, 0);
    assert_int_equal(smd_check(), 0);
    store_le32(d, 9);
    EXPECT_SMD("SinitMleData: extended element type 0 at +0x0: size 0");
    store_le32(d + 152, 8);
    store_le64(smd, 8 + 147);
    EXPECT_SMD("SinitMleData version 9 is 147 bytes, shorter than its 148-byte fields");
    store_le64(smd, 11);
    EXPECT_SMD("SinitMleData size 11 holds no version");
    lay_out_smd();
    store_le32(d + 128, 0);
    EXPECT_SMD("SinitMleData has no MDRs (tboot needs at least one)");
    store_le32(d + 128, 4);                      /* the 2 MDRs and the DMAR: room for 4 */
    assert_int_equal(smd_check(), 0);
    store_le32(d + 128, 5);
    EXPECT_SMD("SinitMleData MDRs at 0xa4 (5 of 24 bytes) are not inside its 0x10c bytes");
    store_le32(d + 128, 0x80000000);
    EXPECT_SMD("(2147483648 of 24 bytes)");
    store_le32(d + 128, 2);
    store_le32(d + 132, 8 + 147);
    EXPECT_SMD("SinitMleData MDRs at 0x9b");
    lay_out_smd();
    store_le64(d + 156 + 24, 0xfffffffffff00000ull);
    store_le64(d + 156 + 32, 0x100000);
    assert_int_equal(smd_check(), 0);            /* ends at 2^64 exactly */
    store_le64(d + 156 + 32, 0x100001);
    EXPECT_SMD("SinitMleData MDR 1 0xfffffffffff00000+0x100001 wraps past 2^64");
    lay_out_smd();
    store_le32(d + 140, 8 + 148 + 8 + 48 + 9);
    EXPECT_SMD("SinitMleData DMAR at 0xdd is not inside its 0x10c bytes");
    store_le32(d + 140, 8 + 100);
    EXPECT_SMD("SinitMleData DMAR at 0x6c is not inside");
    store_le32(d + 140, 8 + 148 + 8);
    EXPECT_SMD("SinitMleData DMAR copy at 0xa4 has signature \"????\"");
    lay_out_smd();
    store_le32(d + 204 + 4, 57);
    fix_dmar_checksum();
    EXPECT_SMD("SinitMleData DMAR copy of 57 bytes at 0xd4 is not inside its 0x10c bytes");
    store_le32(d + 204 + 4, 47);
    EXPECT_SMD("SinitMleData DMAR copy of 47 bytes");
    store_le32(d + 204 + 4, 48);
    fix_dmar_checksum();                         /* over 56 bytes: off for the 48 */
    d[204 + 48] = 0x11;
    fix_dmar_checksum();
    EXPECT_SMD("SinitMleData DMAR copy's checksum is off by 0xef");   /* -0x11 */
    lay_out_smd();
    d[204 + 20] ^= 1;
    EXPECT_SMD("checksum is off by 0x01");
}

static void check_launch(void **state)
{
    (void)state;
    struct txt_heap_expect e = {
        .heap_base = HEAP_BASE,
        .expected_procs = 1,
        .acm_caps = 0x261,
        .acm_os_sinit_ver = 7,
        .tpm_ext_policy = ACM_TPM_EXT_POLICY_EMBEDDED,
        .evtlog_min_size = 0x1000,
    };
    struct txt_heap_launch l;
    lay_out();
    store_le64(heap + SINITMLE_OFF, 0);          /* not written yet */
    err[0] = 0;
    assert_int_equal(txt_heap_check_launch(heap, HEAP_SIZE, &e, &l, err, sizeof(err)), 0);
    assert_int_equal(l.v.nr, 3);
    assert_int_equal(l.bios.version, 6);
    assert_int_equal(l.os_sinit.d.version, 7);
    assert_true(l.os_sinit.evtlog.phys_addr == EVTLOG_PHYS);
    /* each part's refusal, prefixed */
    store_le64(heap + OSSINIT_OFF, HEAP_SIZE);
    assert_int_equal(txt_heap_check_launch(heap, HEAP_SIZE, &e, &l, err, sizeof(err)), -1);
    assert_contains(err, "TXT heap: heap regions up to OsSinitData end at");
    lay_out();
    e.expected_procs = 2;
    assert_int_equal(txt_heap_check_launch(heap, HEAP_SIZE, &e, &l, err, sizeof(err)), -1);
    assert_contains(err, "TXT heap: BiosData num_logical_procs 1, the platform has 2");
    e.expected_procs = 1;
    /* OsMleData one byte longer: OsSinitData moves with it, but tboot's size is exact */
    memmove(heap + OSMLE_OFF + 1, heap + OSMLE_OFF, HEAP_SIZE - OSMLE_OFF - 1);
    store_le64(heap + OSMLE_OFF, TXT_OS_MLE_DATA_SIZE + 1);
    assert_int_equal(txt_heap_check_launch(heap, HEAP_SIZE, &e, &l, err, sizeof(err)), -1);
    assert_contains(err, "TXT heap: OsMleData size 0x15121, tboot writes 0x15120");
    lay_out();
    e.acm_os_sinit_ver = 6;
    assert_int_equal(txt_heap_check_launch(heap, HEAP_SIZE, &e, &l, err, sizeof(err)), -1);
    assert_contains(err, "TXT heap: OsSinitData version 7, newer than the ACM's 6");
    /* the event log must be inside OsMleData as the walk found it */
    e.acm_os_sinit_ver = 7;
    e.heap_base = HEAP_BASE + 0x11000;          /* OsMleData now starts after the log */
    assert_int_equal(txt_heap_check_launch(heap, HEAP_SIZE, &e, &l, err, sizeof(err)), -1);
    assert_contains(err, "TXT heap: OsSinitData LCP PO data");
    store_le64(ossinit() + 72, 0);
    store_le64(ossinit() + 64, 0);
    assert_int_equal(txt_heap_check_launch(heap, HEAP_SIZE, &e, &l, err, sizeof(err)), -1);
    assert_contains(err, "TXT heap: OsSinitData event log 0x7ae10162+0x2000 is not inside OsMleData");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heap_walk),
        cmocka_unit_test(bios_data),
        cmocka_unit_test(ext_elements),
        cmocka_unit_test(os_sinit_data),
        cmocka_unit_test(check_launch),
        cmocka_unit_test(sinit_mle_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
