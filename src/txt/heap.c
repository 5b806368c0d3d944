/* SPDX-License-Identifier: MIT */
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"
#include "txt/heap.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static const char *const region_name[TXT_HEAP_NR_REGIONS] = {
    "BiosData", "OsMleData", "OsSinitData", "SinitMleData",
};

int txt_heap_walk(const uint8_t *heap, uint64_t heap_size, unsigned nr, struct txt_heap_view *v,
                  char *err, unsigned errlen)
{
    uint64_t off = 0;

    memset(v, 0, sizeof(*v));
    if (nr == 0 || nr > TXT_HEAP_NR_REGIONS)
        FAIL("%u heap regions, not 1-4", nr);
    for (unsigned i = 0; i < nr; i++) {
        /* off <= heap_size always: every size so far fit */
        if (heap_size - off < TXT_HEAP_SIZE_FIELD)
            FAIL("%s size field at heap offset 0x%llx is outside the 0x%llx-byte heap",
                 region_name[i], (unsigned long long)off, (unsigned long long)heap_size);
        uint64_t size = load_le64(heap + off);
        if (size == 0)
            FAIL("%s size is 0", region_name[i]);
        if (size < TXT_HEAP_SIZE_FIELD)
            FAIL("%s size %llu is smaller than its own 8-byte size field", region_name[i],
                 (unsigned long long)size);
        if (size > heap_size)
            FAIL("%s size 0x%llx is larger than the heap (0x%llx)", region_name[i],
                 (unsigned long long)size, (unsigned long long)heap_size);
        if (size > heap_size - off)
            FAIL("heap regions up to %s end at 0x%llx, beyond the 0x%llx-byte heap",
                 region_name[i], (unsigned long long)(off + size),
                 (unsigned long long)heap_size);
        v->off[i] = off;
        v->size[i] = size;
        off += size;
        v->nr = i + 1;
    }
    return 0;
}

int txt_ext_elts_check(const uint8_t *p, uint64_t len, char *err, unsigned errlen)
{
    uint64_t off = 0;

    /* each element takes at least 8 bytes: at most len / 8 + 1 rounds */
    for (;;) {
        if (len - off < sizeof(struct txt_heap_ext_elt))
            FAIL("extended elements at +0x%llx: no room for an element header before the end "
                 "(no END element)", (unsigned long long)off);
        uint32_t type = load_le32(p + off), size = load_le32(p + off + 4);
        if (size < sizeof(struct txt_heap_ext_elt) || size > len - off)
            FAIL("extended element type %u at +0x%llx: size %u, with %llu bytes left", type,
                 (unsigned long long)off, size, (unsigned long long)(len - off));
        const uint8_t *d = p + off + 8;
        switch (type) {
        case HEAP_EXTDATA_TYPE_END:
            return 0;
        case HEAP_EXTDATA_TYPE_BIOS_SPEC_VER:
            if (size != 8 + sizeof(struct txt_heap_bios_spec_ver_elt))
                FAIL("BIOS_SPEC_VER element size %u, not 14", size);
            break;
        case HEAP_EXTDATA_TYPE_ACM: {
            if (size < 12)
                FAIL("ACM element size %u, smaller than its count", size);
            uint32_t n = load_le32(d);
            if (size != 12 + 8ull * n)
                FAIL("ACM element size %u does not hold its %u addresses", size, n);
            for (uint32_t i = 0; i < n; i++) {
                uint64_t a = load_le64(d + 4 + 8 * i);
                if (a == 0)
                    FAIL("ACM element address %u is 0", i);
                if (a >= 0x100000000ull)
                    FAIL("ACM element address %u (0x%llx) is above 4 GiB", i,
                         (unsigned long long)a);
            }
            break;
        }
        case HEAP_EXTDATA_TYPE_CUSTOM:
            if (size < 8 + 16)
                FAIL("CUSTOM element size %u, smaller than its UUID", size);
            break;
        case HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR:
            if (size != 16)
                FAIL("TPM 1.2 event log pointer element size %u, not 16", size);
            break;
        default:                     /* tboot warns about unknown types and goes on */
            break;
        }
        off += size;
    }
}

int txt_bios_data_check(const uint8_t *p, uint64_t size, uint32_t expected_procs,
                        struct txt_bios_data *out, char *err, unsigned errlen)
{
    struct txt_bios_data b;

    memset(out, 0, sizeof(*out));
    memset(&b, 0, sizeof(b));
    if (size < 8 + 4)
        FAIL("BiosData size %llu holds no version", (unsigned long long)size);
    uint64_t len = size - 8;
    b.version = load_le32(p);
    if (b.version < TXT_BIOS_DATA_MIN_VER)
        FAIL("BiosData version %u, tboot needs 2 or later", b.version);
    uint64_t fixed = b.version >= 3 ? sizeof(b) : offsetof(struct txt_bios_data, flags);
    if (len < fixed)
        FAIL("BiosData version %u is %llu bytes, shorter than its %llu-byte fields", b.version,
             (unsigned long long)len, (unsigned long long)fixed);
    memcpy(&b, p, fixed);
    if (b.num_logical_procs < 1)
        FAIL("BiosData num_logical_procs is 0");
    if (b.num_logical_procs > TXT_BIOS_DATA_MAX_PROCS)
        FAIL("BiosData num_logical_procs %u, more than tboot's 1024", b.num_logical_procs);
    if (expected_procs && b.num_logical_procs != expected_procs)
        FAIL("BiosData num_logical_procs %u, the platform has %u", b.num_logical_procs,
             expected_procs);
    if (b.version >= 4 && len > sizeof(b)) {
        char sub[128];
        if (txt_ext_elts_check(p + sizeof(b), len - sizeof(b), sub, sizeof(sub)) != 0)
            FAIL("BiosData: %s", sub);
    }
    *out = b;
    return 0;
}

uint64_t txt_os_sinit_data_size(uint32_t version)
{
    if (version < TXT_OS_SINIT_DATA_MIN_VER)
        return 0;
    if (version == 4)
        return TXT_OS_SINIT_SIZE_V4;
    if (version == 5)
        return TXT_OS_SINIT_SIZE_V5;
    return TXT_OS_SINIT_SIZE_V6_TCG;
}

#define PMR_ALIGN 0x200000ull
#define FOUR_GIB 0x100000000ull

/* [base, base + size) inside [lo, lo + len), no overflow */
static bool inside(uint64_t base, uint64_t size, uint64_t lo, uint64_t len)
{
    return base >= lo && base - lo <= len && size <= len - (base - lo);
}

int txt_os_sinit_data_check(const uint8_t *p, uint64_t size, const struct txt_os_sinit_expect *e,
                            struct txt_os_sinit_info *out, char *err, unsigned errlen)
{
    struct txt_os_sinit_data *d = &out->d;

    memset(out, 0, sizeof(*out));
    if (size < 8 + 4)
        FAIL("OsSinitData size %llu holds no version", (unsigned long long)size);
    uint32_t ver = load_le32(p);
    if (ver < TXT_OS_SINIT_DATA_MIN_VER || ver > TXT_OS_SINIT_DATA_MAX_VER)
        FAIL("OsSinitData version %u, not 4-7", ver);
    if (e->acm_os_sinit_ver && ver > e->acm_os_sinit_ver)
        FAIL("OsSinitData version %u, newer than the ACM's %u", ver, e->acm_os_sinit_ver);
    uint64_t want = txt_os_sinit_data_size(ver);
    if (size != want)
        FAIL("OsSinitData size %llu, version %u with a TPM 2.0 TCG event log needs %llu",
             (unsigned long long)size, ver, (unsigned long long)want);
    memcpy(d, p, ver >= 5 ? sizeof(*d) : offsetof(struct txt_os_sinit_data, efi_rsdt_ptr));

    /* flags: bit 0 = PCR extend policy (1: the ACM's embedded algorithms, 0: agile) */
    if (d->flags & ~TXT_OS_SINIT_FLAGS_EXTPOL)
        FAIL("OsSinitData flags 0x%x has reserved bits", d->flags);
    if (d->flags & TXT_OS_SINIT_FLAGS_EXTPOL) {
        if (!(e->tpm_ext_policy & ACM_TPM_EXT_POLICY_EMBEDDED))
            FAIL("OsSinitData asks for the embedded-algorithms extend policy, the ACM has not");
    } else if (!(e->tpm_ext_policy & ACM_TPM_EXT_POLICY_ALG_AGILE)) {
        FAIL("OsSinitData asks for the agile extend policy, the ACM has not");
    }

    /* capabilities: the requests the ACM must grant; the MLE's own announcements (ecx_pgtbl,
     * platform type, max_phy_addr, cbnt_supported: tboot sets cbnt from its MLE header) are
     * accepted */
    uint32_t caps = d->capabilities;
    if (caps & ~(uint32_t)0x7ff)
        FAIL("OsSinitData capabilities 0x%x has reserved bits", caps);
    uint32_t wake = caps & (TXT_CAP_RLP_WAKE_GETSEC | TXT_CAP_RLP_WAKE_MONITOR);
    if (wake != TXT_CAP_RLP_WAKE_GETSEC && wake != TXT_CAP_RLP_WAKE_MONITOR)
        FAIL("OsSinitData capabilities 0x%x must name exactly one RLP wake method", caps);
    uint32_t granted = TXT_CAP_RLP_WAKE_GETSEC | TXT_CAP_RLP_WAKE_MONITOR | TXT_CAP_STM |
                       TXT_CAP_PCR_MAP_NO_LEGACY | TXT_CAP_PCR_MAP_DA |
                       TXT_CAP_TCG_EVENT_LOG_FORMAT;
    if (caps & granted & ~e->acm_caps)
        FAIL("OsSinitData capabilities 0x%x ask for 0x%x, which the ACM (0x%x) does not offer",
             caps, caps & granted & ~e->acm_caps, e->acm_caps);
    if (ver >= 6 && !(caps & TXT_CAP_TCG_EVENT_LOG_FORMAT))
        FAIL("OsSinitData asks for the legacy TPM 2.0 event log; this SINIT writes the TCG "
             "format only");

    /* PMRs: 2 MiB granules; low below 4 GiB; high above it, or tboot's value for no high RAM
     * (0xFFFFFFFFFFE00000 + 0x200000 ends exactly at 2^64) */
    if ((d->vtd_pmr_lo_base | d->vtd_pmr_lo_size) & (PMR_ALIGN - 1))
        FAIL("OsSinitData low PMR 0x%llx+0x%llx is not 2 MiB aligned",
             (unsigned long long)d->vtd_pmr_lo_base, (unsigned long long)d->vtd_pmr_lo_size);
    if (d->vtd_pmr_lo_base > FOUR_GIB || d->vtd_pmr_lo_size > FOUR_GIB - d->vtd_pmr_lo_base)
        FAIL("OsSinitData low PMR 0x%llx+0x%llx goes beyond 4 GiB",
             (unsigned long long)d->vtd_pmr_lo_base, (unsigned long long)d->vtd_pmr_lo_size);
    if ((d->vtd_pmr_hi_base | d->vtd_pmr_hi_size) & (PMR_ALIGN - 1))
        FAIL("OsSinitData high PMR 0x%llx+0x%llx is not 2 MiB aligned",
             (unsigned long long)d->vtd_pmr_hi_base, (unsigned long long)d->vtd_pmr_hi_size);
    if (d->vtd_pmr_hi_size && d->vtd_pmr_hi_base < FOUR_GIB)
        FAIL("OsSinitData high PMR base 0x%llx is below 4 GiB",
             (unsigned long long)d->vtd_pmr_hi_base);
    if (d->vtd_pmr_hi_size && d->vtd_pmr_hi_size - 1 > ~d->vtd_pmr_hi_base)
        FAIL("OsSinitData high PMR 0x%llx+0x%llx wraps past 2^64",
             (unsigned long long)d->vtd_pmr_hi_base, (unsigned long long)d->vtd_pmr_hi_size);

    /* the PO policy data: none, or inside the heap */
    if (d->lcp_po_base || d->lcp_po_size) {
        if (!d->lcp_po_base || !d->lcp_po_size ||
            !inside(d->lcp_po_base, d->lcp_po_size, e->heap_base, e->heap_size))
            FAIL("OsSinitData LCP PO data 0x%llx+0x%llx is not inside the heap",
                 (unsigned long long)d->lcp_po_base, (unsigned long long)d->lcp_po_size);
    }
    if (ver >= 5 && d->efi_rsdt_ptr)
        FAIL("OsSinitData efi_rsdt_ptr 0x%llx: this platform boots by legacy BIOS",
             (unsigned long long)d->efi_rsdt_ptr);

    if (ver >= 6) {
        /* exactly: the TCG event-log pointer (type 8, size 28), then END (size 8) */
        const uint8_t *x = p + sizeof(*d);
        uint32_t t0 = load_le32(x), s0 = load_le32(x + 4);
        if (t0 != HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR_2_1 || s0 != TXT_EVTLOG_ELT2_1_SIZE)
            FAIL("OsSinitData element 0 is type %u size %u, not the TCG event log pointer "
                 "(type 8, size 28)", t0, s0);
        uint32_t t1 = load_le32(x + s0), s1 = load_le32(x + s0 + 4);
        if (t1 != HEAP_EXTDATA_TYPE_END || s1 != 8)
            FAIL("OsSinitData element 1 is type %u size %u, not END (type 0, size 8)", t1, s1);
        struct txt_heap_event_log_ptr_elt2_1 *l = &out->evtlog;
        memcpy(l, x + 8, sizeof(*l));
        out->has_evtlog = true;
        out->evtlog_off = (uint32_t)(x + 8 - p);
        if (!inside(l->phys_addr, l->allocated_event_container_size, e->os_mle_base,
                    e->os_mle_size))
            FAIL("OsSinitData event log 0x%llx+0x%x is not inside OsMleData",
                 (unsigned long long)l->phys_addr, l->allocated_event_container_size);
        if (l->allocated_event_container_size < e->evtlog_min_size)
            FAIL("OsSinitData event log is 0x%x bytes, the SINIT writes 0x%x",
                 l->allocated_event_container_size, e->evtlog_min_size);
        if (l->first_record_offset > l->next_record_offset ||
            l->next_record_offset > l->allocated_event_container_size)
            FAIL("OsSinitData event log records [0x%x, 0x%x) are not inside its 0x%x bytes",
                 l->first_record_offset, l->next_record_offset,
                 l->allocated_event_container_size);
    }
    return 0;
}

int txt_heap_check_launch(const uint8_t *heap, uint64_t heap_size,
                          const struct txt_heap_expect *e, struct txt_heap_launch *out,
                          char *err, unsigned errlen)
{
    char sub[200];
    struct txt_heap_view *v = &out->v;

    memset(out, 0, sizeof(*out));
    if (txt_heap_walk(heap, heap_size, 3, v, sub, sizeof(sub)) != 0)
        FAIL("TXT heap: %s", sub);
    if (txt_bios_data_check(heap + v->off[0] + 8, v->size[0], e->expected_procs, &out->bios,
                            sub, sizeof(sub)) != 0)
        FAIL("TXT heap: %s", sub);
    if (v->size[1] != TXT_OS_MLE_DATA_SIZE)
        FAIL("TXT heap: OsMleData size 0x%llx, tboot writes 0x%x",
             (unsigned long long)v->size[1], TXT_OS_MLE_DATA_SIZE);
    struct txt_os_sinit_expect oe = {
        .acm_caps = e->acm_caps,
        .acm_os_sinit_ver = e->acm_os_sinit_ver,
        .tpm_ext_policy = e->tpm_ext_policy,
        .heap_base = e->heap_base,
        .heap_size = heap_size,
        .os_mle_base = e->heap_base + v->off[1] + 8,
        .os_mle_size = v->size[1] - 8,
        .evtlog_min_size = e->evtlog_min_size,
    };
    if (txt_os_sinit_data_check(heap + v->off[2] + 8, v->size[2], &oe, &out->os_sinit, sub,
                                sizeof(sub)) != 0)
        FAIL("TXT heap: %s", sub);
    return 0;
}

#define DMAR_HEADER_SIZE 48u         /* ACPI header 36, host address width, flags, reserved */

int txt_sinit_mle_data_check(const uint8_t *p, uint64_t size, struct txt_sinit_mle_data *out,
                             char *err, unsigned errlen)
{
    struct txt_sinit_mle_data d;

    memset(out, 0, sizeof(*out));
    memset(&d, 0, sizeof(d));
    if (size < 8 + 4)
        FAIL("SinitMleData size %llu holds no version", (unsigned long long)size);
    uint64_t len = size - 8;
    d.version = load_le32(p);
    if (d.version < TXT_SINIT_MLE_DATA_MIN_VER)
        FAIL("SinitMleData version %u, tboot needs 6 or later", d.version);
    uint64_t fixed = d.version >= 8 ? sizeof(d) : offsetof(struct txt_sinit_mle_data,
                                                            proc_scrtm_status);
    if (len < fixed)
        FAIL("SinitMleData version %u is %llu bytes, shorter than its %llu-byte fields",
             d.version, (unsigned long long)len, (unsigned long long)fixed);
    memcpy(&d, p, fixed);
    if (d.version >= 9) {
        char sub[128];
        if (txt_ext_elts_check(p + sizeof(d), len - sizeof(d), sub, sizeof(sub)) != 0)
            FAIL("SinitMleData: %s", sub);
    }
    /* offsets count from the size field: the data starts at 8 */
    if (d.num_mdrs == 0)
        FAIL("SinitMleData has no MDRs (tboot needs at least one)");
    if (d.mdrs_off < 8 + fixed || d.mdrs_off - 8 + 24ull * d.num_mdrs > len)
        FAIL("SinitMleData MDRs at 0x%x (%u of 24 bytes) are not inside its 0x%llx bytes",
             d.mdrs_off, d.num_mdrs, (unsigned long long)size);
    for (uint32_t i = 0; i < d.num_mdrs; i++) {
        const uint8_t *m = p + d.mdrs_off - 8 + 24ull * i;
        uint64_t base = load_le64(m), length = load_le64(m + 8);
        if (length && length - 1 > ~base)
            FAIL("SinitMleData MDR %u 0x%llx+0x%llx wraps past 2^64", i,
                 (unsigned long long)base, (unsigned long long)length);
    }
    if (d.vtd_dmars_off < 8 + fixed || d.vtd_dmars_off - 8 + (uint64_t)DMAR_HEADER_SIZE > len)
        FAIL("SinitMleData DMAR at 0x%x is not inside its 0x%llx bytes", d.vtd_dmars_off,
             (unsigned long long)size);
    const uint8_t *t = p + d.vtd_dmars_off - 8;
    uint32_t tlen = load_le32(t + 4);
    if (memcmp(t, "DMAR", 4) != 0)
        FAIL("SinitMleData DMAR copy at 0x%x has signature \"%c%c%c%c\"", d.vtd_dmars_off,
             t[0] >= 32 && t[0] < 127 ? t[0] : '?', t[1] >= 32 && t[1] < 127 ? t[1] : '?',
             t[2] >= 32 && t[2] < 127 ? t[2] : '?', t[3] >= 32 && t[3] < 127 ? t[3] : '?');
    if (tlen < DMAR_HEADER_SIZE || d.vtd_dmars_off - 8 + (uint64_t)tlen > len)
        FAIL("SinitMleData DMAR copy of %u bytes at 0x%x is not inside its 0x%llx bytes", tlen,
             d.vtd_dmars_off, (unsigned long long)size);
    uint8_t sum = 0;
    for (uint32_t i = 0; i < tlen; i++)
        sum = (uint8_t)(sum + t[i]);
    if (sum != 0)
        FAIL("SinitMleData DMAR copy's checksum is off by 0x%02x", sum);
    *out = d;
    return 0;
}

int txt_heap_event_log(const uint8_t *heap, uint64_t heap_base, uint64_t heap_size,
                       uint64_t *off, uint32_t *len, char *err, unsigned errlen)
{
    struct txt_heap_view v;
    if (txt_heap_walk(heap, heap_size, 3, &v, err, errlen))
        return -1;
    /* OsSinitData's data, its extended elements after the fixed fields (version 6 on) */
    const uint8_t *elt = heap + v.off[TXT_HEAP_OS_SINIT_DATA] + TXT_HEAP_SIZE_FIELD +
                         sizeof(struct txt_os_sinit_data);
    if (v.size[TXT_HEAP_OS_SINIT_DATA] < TXT_HEAP_SIZE_FIELD + sizeof(struct txt_os_sinit_data) +
                                         TXT_EVTLOG_ELT2_1_SIZE ||
        load_le32(elt) != HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR_2_1 ||
        load_le32(elt + 4) != TXT_EVTLOG_ELT2_1_SIZE)
        FAIL("OsSinitData has no TCG event log element");
    struct txt_heap_event_log_ptr_elt2_1 l;
    memcpy(&l, elt + 8, sizeof(l));
    if (l.phys_addr < heap_base || l.phys_addr - heap_base > heap_size ||
        l.next_record_offset > heap_size - (l.phys_addr - heap_base) ||
        l.next_record_offset > l.allocated_event_container_size)
        FAIL("log 0x%llx+0x%x (next record 0x%x) not in the heap",
             (unsigned long long)l.phys_addr, l.allocated_event_container_size,
             l.next_record_offset);
    *off = l.phys_addr - heap_base;
    *len = l.next_record_offset;
    return 0;
}
