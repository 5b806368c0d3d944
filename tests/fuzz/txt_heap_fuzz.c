/* SPDX-License-Identifier: MIT */
/*
 * src/txt/heap.c on arbitrary TXT heaps: the walk (3 and 4 regions), then BiosData,
 * OsMleData's element-free size and OsSinitData on the regions it found, each given exactly
 * its region's bytes (an exact-size copy: ASan sees any read past a region), and
 * SinitMleData when there are four. Accepted walks have their regions inside the heap and in
 * order; a heap that walks with 4 regions walks with 3 to the same places. txt_heap_check_launch (all of it, as the SINIT runs it) accepts
 * only what its parts accept; txt_heap_event_log's log lies inside the heap.
 *
 * Input: byte 0 even: the rest is the heap (HEAP.SIZE = its length). Byte 0 odd: a heap as
 * the emulated BIOS and tboot lay it out (BiosData v6, OsMleData, OsSinitData v7 with the
 * event-log pointer, a SinitMleData size), patched by the remaining bytes as (u32 offset, u8
 * value) pairs within it; unpatched, every check must pass.
 */
#include "fuzz_common.h"

#include "lib/bytes.h"
#include "txt/heap.h"

#define HEAP_BASE 0x7ae00000ull

/* the regions' data, each in a buffer of its own exact size */
static void check_regions(const uint8_t *heap, uint64_t len, const struct txt_heap_view *v,
                          bool must_pass)
{
    char err[256];
    int rc;
    for (unsigned i = 0; i < v->nr; i++) {
        FUZZ_ASSERT(v->size[i] >= 8 && v->off[i] + v->size[i] <= len, "region %u", i);
        FUZZ_ASSERT(i == 0 ? v->off[0] == 0 : v->off[i] == v->off[i - 1] + v->size[i - 1],
                    "region %u not after %u", i, i - 1);
    }
    uint8_t *b = malloc(v->size[0] - 8 ? v->size[0] - 8 : 1);
    memcpy(b, heap + 8, v->size[0] - 8);
    struct txt_bios_data bd;
    memset(err, 0x55, sizeof(err));
    rc = txt_bios_data_check(b, v->size[0], 0, &bd, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    FUZZ_ASSERT(!must_pass || rc == 0, "BiosData refused: %s", err);
    FUZZ_ASSERT(rc || (bd.version >= 2 && bd.num_logical_procs >= 1 &&
                       bd.num_logical_procs <= 1024), "BiosData accepted wrongly");
    free(b);
    if (v->nr == 4) {
        uint64_t n4 = v->size[3] - 8;
        uint8_t *s4 = malloc(n4 ? n4 : 1);
        memcpy(s4, heap + v->off[3] + 8, n4);
        struct txt_sinit_mle_data sm;
        memset(err, 0x55, sizeof(err));
        rc = txt_sinit_mle_data_check(s4, v->size[3], &sm, err, sizeof(err));
        check_err(err, sizeof(err), rc);
        FUZZ_ASSERT(rc || (sm.version >= 6 && sm.num_mdrs >= 1 &&
                           sm.mdrs_off - 8 + 24ull * sm.num_mdrs <= n4 &&
                           sm.vtd_dmars_off - 8 + 48ull <= n4), "SinitMleData accepted wrongly");
        free(s4);
    }
    if (v->nr < 3)
        return;
    FUZZ_ASSERT(!must_pass || v->size[1] == TXT_OS_MLE_DATA_SIZE, "OsMleData size");
    struct txt_os_sinit_expect e = {
        .acm_caps = 0x261,
        .acm_os_sinit_ver = 7,
        .tpm_ext_policy = ACM_TPM_EXT_POLICY_EMBEDDED,
        .heap_base = HEAP_BASE,
        .heap_size = len,
        .os_mle_base = HEAP_BASE + v->off[1] + 8,
        .os_mle_size = v->size[1] - 8,
        .evtlog_min_size = 0x1000,
    };
    uint64_t n = v->size[2] - 8;
    uint8_t *o = malloc(n ? n : 1);
    memcpy(o, heap + v->off[2] + 8, n);
    struct txt_os_sinit_info info;
    memset(err, 0x55, sizeof(err));
    rc = txt_os_sinit_data_check(o, v->size[2], &e, &info, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    FUZZ_ASSERT(!must_pass || rc == 0, "OsSinitData refused: %s", err);
    if (rc == 0) {
        FUZZ_ASSERT(v->size[2] == txt_os_sinit_data_size(info.d.version), "size");
        FUZZ_ASSERT(info.has_evtlog == (info.d.version >= 6), "evtlog");
        FUZZ_ASSERT(!info.has_evtlog || (info.evtlog.phys_addr >= e.os_mle_base &&
                    info.evtlog.phys_addr - e.os_mle_base + info.evtlog.allocated_event_container_size
                    <= e.os_mle_size), "evtlog outside OsMleData");
    }
    free(o);
}

static void run(const uint8_t *heap, uint64_t len, bool must_pass)
{
    struct txt_heap_view v3, v4;
    char err[256];
    memset(err, 0x55, sizeof(err));
    int rc3 = txt_heap_walk(heap, len, 3, &v3, err, sizeof(err));
    check_err(err, sizeof(err), rc3);
    int rc4 = txt_heap_walk(heap, len, 4, &v4, err, sizeof(err));
    check_err(err, sizeof(err), rc4);
    FUZZ_ASSERT(!must_pass || (rc3 == 0 && rc4 == 0), "walk refused: %s", err);
    if (rc4 == 0)
        FUZZ_ASSERT(rc3 == 0 && !memcmp(v3.off, v4.off, 3 * 8) && !memcmp(v3.size, v4.size, 3 * 8),
                    "3-region walk differs");
    struct txt_heap_view v1;
    int rc1 = txt_heap_walk(heap, len, 1, &v1, err, sizeof(err));
    if (rc1 == 0)
        check_regions(heap, len, &v1, must_pass);
    if (rc4 == 0)
        check_regions(heap, len, &v4, must_pass);
    else if (rc3 == 0)
        check_regions(heap, len, &v3, must_pass);
    struct txt_heap_expect he = {
        .heap_base = HEAP_BASE,
        .expected_procs = 1,
        .acm_caps = 0x261,
        .acm_os_sinit_ver = 7,
        .tpm_ext_policy = ACM_TPM_EXT_POLICY_EMBEDDED,
        .evtlog_min_size = 0x1000,
    };
    struct txt_heap_launch hl;
    memset(err, 0x55, sizeof(err));
    int rcl = txt_heap_check_launch(heap, len, &he, &hl, err, sizeof(err));
    check_err(err, sizeof(err), rcl);
    FUZZ_ASSERT(!must_pass || rcl == 0, "launch check refused: %s", err);
    FUZZ_ASSERT(rcl || (rc3 == 0 && hl.v.nr == 3 && hl.v.size[1] == TXT_OS_MLE_DATA_SIZE &&
                        hl.os_sinit.has_evtlog == (hl.os_sinit.d.version >= 6)),
                "launch check accepted what the parts refuse");
    /* the guest's reading of the launched heap's event log (vtboot-txt-evlog, the quote):
     * accepted only inside the heap, with a walk of three regions */
    uint64_t loff = 0;
    uint32_t llen = 0;
    memset(err, 0x55, sizeof(err));
    int rce = txt_heap_event_log(heap, HEAP_BASE, len, &loff, &llen, err, sizeof(err));
    check_err(err, sizeof(err), rce);
    FUZZ_ASSERT(rce || (rc3 == 0 && loff <= len && llen <= len - loff), "event log outside");
    FUZZ_ASSERT(!must_pass || rce == 0, "event log refused: %s", err);
    if (len >= 8) {
        uint8_t *x = malloc(len);
        memcpy(x, heap, len);
        rc1 = txt_ext_elts_check(x, len, err, sizeof(err));
        check_err(err, sizeof(err), rc1);
        free(x);
    }
}

#define BIOS_SIZE (8u + 36u + 14u + 8u)
#define OSSINIT_OFF (BIOS_SIZE + TXT_OS_MLE_DATA_SIZE)
#define GOOD_SIZE (OSSINIT_OFF + 136u + 0x1000u)

static void lay_out(uint8_t *h)
{
    memset(h, 0, GOOD_SIZE);
    store_le64(h, BIOS_SIZE);
    uint8_t *b = h + 8;
    store_le32(b, 6);
    store_le32(b + 24, 1);
    store_le64(b + 28, 1ull << TXT_BIOS_FLAGS_PLATFORM_TYPE_SHIFT);
    store_le32(b + 36, 1);
    store_le32(b + 40, 14);
    store_le32(b + 54, 8);
    store_le64(h + BIOS_SIZE, TXT_OS_MLE_DATA_SIZE);
    store_le32(h + BIOS_SIZE + 8, 3);
    store_le64(h + OSSINIT_OFF, 136);
    uint8_t *o = h + OSSINIT_OFF + 8;
    uint64_t osmle = HEAP_BASE + BIOS_SIZE + 8;
    store_le32(o, 7);
    store_le32(o + 4, 1);
    store_le64(o + 40, 0x80000000);
    store_le64(o + 48, 0xFFFFFFFFFFE00000ull);
    store_le64(o + 56, 0x200000);
    store_le64(o + 64, osmle + 280);
    store_le64(o + 72, 0x100);
    store_le32(o + 80, 0x601);
    store_le32(o + 92, 8);
    store_le32(o + 96, 28);
    store_le64(o + 100, osmle + 0x10118);
    store_le32(o + 108, 0x2000);
    store_le32(o + 124, 8);
    store_le64(h + OSSINIT_OFF + 136, 0x1000);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (!(data[0] & 1)) {
        uint8_t *h = malloc(size - 1 ? size - 1 : 1);
        memcpy(h, data + 1, size - 1);
        run(h, size - 1, false);
        free(h);
        return 0;
    }
    uint8_t *h = malloc(GOOD_SIZE);
    lay_out(h);
    bool patched = false;
    for (size_t i = 1; i + 5 <= size; i += 5) {
        uint32_t off = load_le32(data + i);
        /* most patches near the structures: the first 256 bytes of each region */
        if (off & 0x80000000u)
            off = (off & 0xff) + (off & 0x100 ? OSSINIT_OFF : 0);
        if (off < GOOD_SIZE) {
            h[off] = data[i + 4];
            patched = true;
        }
    }
    run(h, GOOD_SIZE, !patched);
    free(h);
    return 0;
}
