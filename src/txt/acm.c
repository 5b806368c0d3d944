/* SPDX-License-Identifier: MIT */
#include "abi/tb_policy.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"
#include "txt/acm.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static const uint8_t acm_uuid_v3[16] = ACM_UUID_V3_BYTES;

/* [off, off + fixed + count * each) inside [0, size), in 64-bit arithmetic (no overflow) */
static bool list_fits(uint32_t off, uint32_t fixed, uint32_t count, uint32_t each, uint32_t size)
{
    return (uint64_t)off + fixed + (uint64_t)count * each <= size;
}

int acm_parse(const uint8_t *file, size_t len, struct acm_info *a, char *err, unsigned errlen)
{
    memset(a, 0, sizeof(*a));
    if (len < sizeof(a->hdr))
        FAIL("ACM is %zu bytes, shorter than its 0x%x-byte header", len,
             (unsigned)sizeof(a->hdr));
    if (len > 0xffffffffu)
        FAIL("ACM is %zu bytes, larger than 4 GiB", len);
    memcpy(&a->hdr, file, sizeof(a->hdr));
    const struct txt_acm_hdr *h = &a->hdr;

    if (h->size > 0xffffffffu / 4)
        FAIL("ACM size field 0x%x dwords overflows 32 bits in bytes", h->size);
    a->size = h->size * 4;
    if (len != a->size) {
        /* tboot's are_sizes_equal_pad_adjusted: 64-256 KiB of padding after the module */
        if (len < a->size)
            FAIL("ACM size field says 0x%x bytes, the file has 0x%zx", a->size, len);
        if (len - a->size < ACM_SIZE_MIN_PADDING || len - a->size > ACM_SIZE_MAX_PADDING)
            FAIL("ACM size field says 0x%x bytes, the file has 0x%zx (padding must be "
                 "0x%x-0x%x bytes)", a->size, len, ACM_SIZE_MIN_PADDING, ACM_SIZE_MAX_PADDING);
        a->padding = (uint32_t)(len - a->size);
    }
    if (a->size < sizeof(a->hdr))
        FAIL("ACM size field says 0x%x bytes, shorter than its header", a->size);
    if (h->module_type != ACM_TYPE_CHIPSET)
        FAIL("ACM module_type %u, not chipset (2)", h->module_type);
    if (h->module_vendor != ACM_VENDOR_INTEL)
        FAIL("ACM module_vendor 0x%x, not 0x8086", h->module_vendor);

    uint64_t info_off = ((uint64_t)h->header_len + h->scratch_size) * 4;
    if (info_off + sizeof(a->info) > a->size)
        FAIL("ACM info table at 0x%llx (header_len 0x%x + scratch_size 0x%x dwords) does not "
             "fit in the 0x%x-byte module", (unsigned long long)info_off, h->header_len,
             h->scratch_size, a->size);
    a->info_off = (uint32_t)info_off;
    memcpy(&a->info, file + a->info_off, sizeof(a->info));
    const struct txt_acm_info_table *t = &a->info;

    if (memcmp(t->uuid, acm_uuid_v3, sizeof(acm_uuid_v3)) != 0)
        FAIL("ACM info table UUID is not ACM_UUID_V3");
    if (t->version < ACM_INFO_MIN_VER)
        FAIL("ACM info table version %u, tboot needs 3 or later", t->version);
    if (t->chipset_acm_type != ACM_CHIPSET_TYPE_SINIT)
        FAIL("ACM chipset_acm_type %u, not SINIT (1)", t->chipset_acm_type);
    if (t->version < 4)
        a->info.processor_id_list = 0;
    if (t->version < 5)
        a->info.tpm_info_list_off = 0;

    /* the lists, as get_acmod_chipset_list/get_acmod_processor_list/get_tpm_info_list bound
     * them: the count and every entry inside the module */
    uint32_t off = t->chipset_id_list;
    if (!list_fits(off, ACM_LIST_COUNT_SIZE, 0, 0, a->size))
        FAIL("ACM chipset ID list at 0x%x is outside the 0x%x-byte module", off, a->size);
    a->nr_chipsets = load_le32(file + off);
    if (!list_fits(off, ACM_LIST_COUNT_SIZE, a->nr_chipsets, sizeof(struct txt_acm_chipset_id),
                   a->size))
        FAIL("ACM chipset ID list at 0x%x: %u entries do not fit in the 0x%x-byte module", off,
             a->nr_chipsets, a->size);
    a->chipsets_off = off + ACM_LIST_COUNT_SIZE;

    if (t->version >= 4) {
        off = t->processor_id_list;
        if (!list_fits(off, ACM_LIST_COUNT_SIZE, 0, 0, a->size))
            FAIL("ACM processor ID list at 0x%x is outside the 0x%x-byte module", off, a->size);
        a->nr_procs = load_le32(file + off);
        if (!list_fits(off, ACM_LIST_COUNT_SIZE, a->nr_procs,
                       sizeof(struct txt_acm_processor_id), a->size))
            FAIL("ACM processor ID list at 0x%x: %u entries do not fit in the 0x%x-byte module",
                 off, a->nr_procs, a->size);
        a->procs_off = off + ACM_LIST_COUNT_SIZE;
    }
    if (t->version >= 5) {
        off = t->tpm_info_list_off;
        if (!list_fits(off, sizeof(struct txt_acm_tpm_info_list), 0, 0, a->size))
            FAIL("ACM TPM info list at 0x%x is outside the 0x%x-byte module", off, a->size);
        a->has_tpm_info = true;
        a->tpm_caps = load_le32(file + off);
        a->nr_algs = load_le16(file + off + 4);
        if (!list_fits(off, sizeof(struct txt_acm_tpm_info_list), a->nr_algs, 2, a->size))
            FAIL("ACM TPM info list at 0x%x: %u algorithms do not fit in the 0x%x-byte module",
                 off, a->nr_algs, a->size);
        a->algs_off = off + (uint32_t)sizeof(struct txt_acm_tpm_info_list);
    }
    return 0;
}

uint32_t acm_tb_policy_index(const struct acm_info *a)
{
    return a->has_tpm_info && (a->tpm_caps & ACM_TPM_NV_INDEX_SET) ? TB_POLICY_NV_INDEX_TPM2_SET1
                                                                    : TB_POLICY_NV_INDEX_TPM2;
}

void acm_chipset(const uint8_t *file, const struct acm_info *a, uint32_t i,
                 struct txt_acm_chipset_id *out)
{
    memcpy(out, file + a->chipsets_off + i * sizeof(*out), sizeof(*out));
}

void acm_processor(const uint8_t *file, const struct acm_info *a, uint32_t i,
                   struct txt_acm_processor_id *out)
{
    memcpy(out, file + a->procs_off + i * sizeof(*out), sizeof(*out));
}

uint16_t acm_tpm_alg(const uint8_t *file, const struct acm_info *a, uint32_t i)
{
    return load_le16(file + a->algs_off + 2 * i);
}

int acm_match_platform(const uint8_t *file, const struct acm_info *a,
                       const struct acm_platform *p, char *err, unsigned errlen)
{
    if (a->info.version >= 5 && p->bios_data_version >= 6) {
        uint32_t bios = TXT_BIOS_FLAGS_PLATFORM_TYPE(p->bios_data_flags);
        uint32_t sinit = TXT_CAP_PLATFORM_TYPE(a->info.capabilities);
        if (bios == TXT_PLATFORM_TYPE_CLIENT && sinit != TXT_PLATFORM_TYPE_CLIENT)
            FAIL("non-client ACM (platform type %u) on a client platform", sinit);
        if (bios == TXT_PLATFORM_TYPE_SERVER && sinit != TXT_PLATFORM_TYPE_SERVER)
            FAIL("non-server ACM (platform type %u) on a server platform", sinit);
    }
    uint64_t ver = p->ver_fsbif;
    if ((uint32_t)ver == 0 || (uint32_t)ver == 0xffffffffu)
        ver = p->ver_qpiif;
    bool prod = (ver & TXT_VER_PROD_FUSED) != 0;
    bool debug = (a->hdr.flags & ACM_FLAG_DEBUG_SIGNED) != 0;
    if (prod == debug)
        FAIL("production/debug mismatch: chipset %s fused, ACM %s signed",
             prod ? "production" : "debug", debug ? "debug" : "production");

    uint16_t vid = TXT_DIDVID_VENDOR(p->didvid), did = TXT_DIDVID_DEVICE(p->didvid);
    uint16_t rev = TXT_DIDVID_REVISION(p->didvid);
    uint32_t i;
    for (i = 0; i < a->nr_chipsets; i++) {
        struct txt_acm_chipset_id c;
        acm_chipset(file, a, i, &c);
        if (c.vendor_id == vid && c.device_id == did &&
            ((c.flags & ACM_CHIPSET_FLAG_REVISION_MASK) ? (rev & c.revision_id) != 0
                                                        : rev == c.revision_id))
            break;
    }
    if (i == a->nr_chipsets)
        FAIL("chipset %04x:%04x revision %u is not in the ACM's %u chipset IDs", vid, did, rev,
             a->nr_chipsets);

    if (a->info.version >= 4) {
        for (i = 0; i < a->nr_procs; i++) {
            struct txt_acm_processor_id c;
            acm_processor(file, a, i, &c);
            if (c.fms == (p->fms & c.fms_mask) &&
                c.platform_id == (p->platform_id & c.platform_mask))
                break;
        }
        if (i == a->nr_procs)
            FAIL("processor fms 0x%x platform ID 0x%llx is not in the ACM's %u processor IDs",
                 p->fms, (unsigned long long)p->platform_id, a->nr_procs);
    }
    return 0;
}

int acm_check_launch(const struct acm_info *a, uint32_t acm_max_size, char *err,
                     unsigned errlen)
{
    const struct txt_acm_hdr *h = &a->hdr;
    if (a->size == 0 || a->size % 64 != 0)
        FAIL("ACM size 0x%x is not a nonzero multiple of 64 bytes", a->size);
    if (acm_max_size && a->size > acm_max_size)
        FAIL("ACM size 0x%x is larger than the processor's maximum 0x%x", a->size,
             acm_max_size);
    if (h->entry_point >= a->size)
        FAIL("ACM entry point 0x%x is outside the 0x%x-byte module", h->entry_point, a->size);
    if (h->seg_sel == 0 || (h->seg_sel & 7) != 0 || (uint64_t)h->seg_sel + 8 > h->gdt_limit)
        FAIL("ACM segment selector 0x%x is invalid for GDT limit 0x%x", h->seg_sel,
             h->gdt_limit);
    if (a->info.min_mle_hdr_ver > ACM_MAX_MLE_HDR_VER)
        FAIL("ACM needs MLE header version 0x%08x, newer than tboot's 0x%08x",
             a->info.min_mle_hdr_ver, ACM_MAX_MLE_HDR_VER);
    if (!(a->info.capabilities & (TXT_CAP_RLP_WAKE_GETSEC | TXT_CAP_RLP_WAKE_MONITOR)))
        FAIL("ACM capabilities 0x%x offer no RLP wake method", a->info.capabilities);
    if (a->info.os_sinit_data_ver < TXT_OS_SINIT_DATA_MIN_VER)
        FAIL("ACM OsSinitData version %u, tboot needs 4 or later", a->info.os_sinit_data_ver);
    return 0;
}

void acm_signed_ranges(uint32_t size, struct acm_range r[ACM_NR_SIGNED_RANGES])
{
    r[0].off = 0;
    r[0].len = size < ACM_SIGNED_1_END ? size : ACM_SIGNED_1_END;
    r[1].off = ACM_SIGNED_2_START;
    r[1].len = size > ACM_SIGNED_2_START ? size - ACM_SIGNED_2_START : 0;
}

void acm_values_default(struct acm_values *v, uint32_t fms, uint32_t date)
{
    memset(v, 0, sizeof(*v));
    v->chipset_id = 0xB00F;
    v->date = date;
    v->seg_sel = 0x08;
    v->gdt_limit = 0x1F;
    v->pub_exp = ACM_PUB_EXP;
    v->info_version = 5;
    v->os_sinit_data_ver = 7;
    v->min_mle_hdr_ver = 0x00020000;
    v->capabilities = TXT_CAP_RLP_WAKE_GETSEC | TXT_CAP_PCR_MAP_DA |
                      TXT_PLATFORM_TYPE_CLIENT << TXT_CAP_PLATFORM_TYPE_SHIFT |
                      TXT_CAP_TCG_EVENT_LOG_FORMAT;
    v->acm_ver = 1;
    v->acm_revision[2] = 1;
    v->nr_chipsets = 1;
    v->chipsets[0] = (struct txt_acm_chipset_id){ .flags = 0, .vendor_id = 0x8086,
                                                  .device_id = 0xB00F, .revision_id = 1 };
    v->nr_procs = 1;
    v->procs[0] = (struct txt_acm_processor_id){ .fms = fms & 0x0FFF3FF0u,
                                                 .fms_mask = 0x0FFF3FF0u,
                                                 .platform_id = 0x0004000000000000ull,
                                                 .platform_mask = 0x001C000000000000ull };
    v->tpm_caps = ACM_TPM_EXT_POLICY_EMBEDDED |
                  ACM_TPM_FAMILY_DTPM_20 << ACM_TPM_FAMILY_SHIFT | ACM_TPM_NV_INDEX_SET;
    v->nr_algs = 2;
    v->algs[0] = 0x0004;
    v->algs[1] = 0x000B;
}

/* the layout after the header: info table, chipset list, processor list, TPM info list,
 * (GDT, 8-aligned), payload (64-aligned) */
struct layout {
    uint32_t info, chipsets, procs, tpm, gdt, payload;
};

static void lay_out(const struct acm_values *v, struct layout *l)
{
    uint32_t off = ACM_SIGNED_2_START;
    l->info = off;
    off += sizeof(struct txt_acm_info_table);
    l->chipsets = off;
    off += ACM_LIST_COUNT_SIZE + v->nr_chipsets * (uint32_t)sizeof(struct txt_acm_chipset_id);
    l->procs = 0;
    if (v->info_version >= 4) {
        l->procs = off;
        off += ACM_LIST_COUNT_SIZE + v->nr_procs * (uint32_t)sizeof(struct txt_acm_processor_id);
    }
    l->tpm = 0;
    if (v->info_version >= 5) {
        l->tpm = off;
        off += (uint32_t)sizeof(struct txt_acm_tpm_info_list) + 2 * v->nr_algs;
    }
    l->gdt = 0;
    if (!v->gdt_in_payload) {
        off = (off + 7) & ~7u;
        l->gdt = off;
        off += 32;
    }
    l->payload = (off + 63) & ~63u;
}

uint32_t acm_payload_offset(const struct acm_values *v)
{
    struct layout l;
    if (v->nr_chipsets > ACM_MAX_IDS || v->nr_procs > ACM_MAX_IDS || v->nr_algs > ACM_MAX_ALGS)
        return 0;
    lay_out(v, &l);
    return l.payload;
}

int acm_build(const struct acm_values *v, const uint8_t *payload, uint32_t payload_len,
              uint8_t *out, uint32_t out_cap, uint32_t *out_len, char *err, unsigned errlen)
{
    struct layout l;

    *out_len = 0;
    if (v->nr_chipsets > ACM_MAX_IDS || v->nr_procs > ACM_MAX_IDS)
        FAIL("at most %u chipset and %u processor IDs", ACM_MAX_IDS, ACM_MAX_IDS);
    if (v->nr_algs > ACM_MAX_ALGS)
        FAIL("at most %u TPM algorithms", ACM_MAX_ALGS);
    if (v->info_version < ACM_INFO_MIN_VER || v->info_version > ACM_INFO_MAX_VER)
        FAIL("info table version %u, not 3-7", v->info_version);
    lay_out(v, &l);
    /* an empty payload still gets 64 bytes: the entry point must be inside the module */
    uint64_t total = ((uint64_t)l.payload + (payload_len ? payload_len : 64) + 63) & ~63ull;
    if (total > 0xffffffffull / 4 * 4 || total > out_cap)
        FAIL("the module would be 0x%llx bytes, the buffer has 0x%x",
             (unsigned long long)total, out_cap);
    if (v->gdt_in_payload && ((uint64_t)v->gdt_base + v->gdt_limit + 1 > payload_len))
        FAIL("GDT at 0x%x limit 0x%x is outside the 0x%x-byte payload", v->gdt_base,
             v->gdt_limit, payload_len);
    if (payload_len && v->entry_point >= payload_len)
        FAIL("entry point 0x%x is outside the 0x%x-byte payload", v->entry_point, payload_len);

    memset(out, 0, (size_t)total);
    struct txt_acm_hdr h;
    memset(&h, 0, sizeof(h));
    h.module_type = ACM_TYPE_CHIPSET;
    h.module_subtype = v->module_subtype;
    h.header_len = ACM_HEADER_LEN_V0;
    h.header_ver = 0;
    h.chipset_id = v->chipset_id;
    h.flags = v->flags;
    h.module_vendor = ACM_VENDOR_INTEL;
    h.date = v->date;
    h.size = (uint32_t)(total / 4);
    h.txt_svn = v->txt_svn;
    h.code_control = v->code_control;
    h.error_entry_point = v->error_entry_point;
    h.gdt_limit = v->gdt_in_payload ? v->gdt_limit : 0x1F;
    h.gdt_base = v->gdt_in_payload ? l.payload + v->gdt_base : l.gdt;
    h.seg_sel = v->seg_sel;
    h.entry_point = l.payload + v->entry_point;
    h.key_size = ACM_KEY_SIZE_V0;
    h.scratch_size = ACM_SCRATCH_SIZE_V0;
    h.pub_exp = v->pub_exp;
    memcpy(out, &h, sizeof(h));

    struct txt_acm_info_table t;
    static const uint8_t uuid[16] = ACM_UUID_V3_BYTES;
    memset(&t, 0, sizeof(t));
    memcpy(t.uuid, uuid, sizeof(uuid));
    t.chipset_acm_type = ACM_CHIPSET_TYPE_SINIT;
    t.version = v->info_version;
    t.length = v->info_version >= 5 ? 48 : v->info_version == 4 ? 44 : 40;
    t.chipset_id_list = l.chipsets;
    t.os_sinit_data_ver = v->os_sinit_data_ver;
    t.min_mle_hdr_ver = v->min_mle_hdr_ver;
    t.capabilities = v->capabilities;
    t.acm_ver = v->acm_ver;
    memcpy(t.acm_revision, v->acm_revision, 3);
    t.processor_id_list = l.procs;
    t.tpm_info_list_off = l.tpm;
    memcpy(out + l.info, &t, t.length);

    store_le32(out + l.chipsets, v->nr_chipsets);
    memcpy(out + l.chipsets + ACM_LIST_COUNT_SIZE, v->chipsets,
           v->nr_chipsets * sizeof(v->chipsets[0]));
    if (l.procs) {
        store_le32(out + l.procs, v->nr_procs);
        memcpy(out + l.procs + ACM_LIST_COUNT_SIZE, v->procs, v->nr_procs * sizeof(v->procs[0]));
    }
    if (l.tpm) {
        store_le32(out + l.tpm, v->tpm_caps);
        store_le16(out + l.tpm + 4, (uint16_t)v->nr_algs);
        for (uint32_t i = 0; i < v->nr_algs; i++)
            store_le16(out + l.tpm + 6 + 2 * i, v->algs[i]);
    }
    if (l.gdt) {
        /* null, flat 4 GiB code (0x08), flat data (0x10), null */
        static const uint8_t gdt[32] = {
            0, 0, 0, 0, 0, 0, 0, 0,
            0xff, 0xff, 0, 0, 0, 0x9b, 0xcf, 0,
            0xff, 0xff, 0, 0, 0, 0x93, 0xcf, 0,
            0, 0, 0, 0, 0, 0, 0, 0,
        };
        memcpy(out + l.gdt, gdt, sizeof(gdt));
    }
    if (payload_len)
        memcpy(out + l.payload, payload, payload_len);
    *out_len = (uint32_t)total;
    return 0;
}
