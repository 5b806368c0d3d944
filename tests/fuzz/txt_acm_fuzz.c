/* SPDX-License-Identifier: MIT */
/*
 * src/txt/acm.c on arbitrary ACM files: acm_parse, then the platform match and the launch
 * checks on what it accepted, with every list entry read through the accessors (the file is
 * an exact-size copy, so ASan sees any read past it). An accepted module's lists lie inside
 * its size, its size inside the file, the info table where the header says.
 *
 * Input: byte 0 even: the rest is the file. Byte 0 odd: a module acm_build makes from values
 * taken from the next 16 bytes (info version, list counts, fms, DIDVID), then patched by the
 * remaining bytes as (u16 offset, u8 value) triples; unpatched, it must parse, match the
 * platform it was built for and pass the launch checks. Bytes 1-4 of either form are also the
 * platform's fms (raw form) for the match.
 */
#include "fuzz_common.h"

#include "lib/bytes.h"
#include "txt/acm.h"

static void check_accepted(const uint8_t *f, size_t len, const struct acm_info *a)
{
    FUZZ_ASSERT(a->size >= sizeof(struct txt_acm_hdr) && a->size + (size_t)a->padding == len,
                "size 0x%x padding 0x%x len 0x%zx", a->size, a->padding, len);
    FUZZ_ASSERT(a->size == a->hdr.size * 4u, "size");
    FUZZ_ASSERT(a->info_off + sizeof(struct txt_acm_info_table) <= a->size, "info table");
    FUZZ_ASSERT(a->info_off == (a->hdr.header_len + a->hdr.scratch_size) * 4u, "info_off");
    FUZZ_ASSERT((uint64_t)a->chipsets_off + 16ull * a->nr_chipsets <= a->size, "chipsets");
    FUZZ_ASSERT((uint64_t)a->procs_off + 24ull * a->nr_procs <= a->size, "procs");
    FUZZ_ASSERT(!a->has_tpm_info || (uint64_t)a->algs_off + 2ull * a->nr_algs <= a->size, "algs");
    FUZZ_ASSERT(a->info.version >= 3 && a->info.chipset_acm_type == 1, "info");
    FUZZ_ASSERT(load_le16(f) == 2 && load_le32(f + 16) == 0x8086, "type/vendor");
    uint32_t sum = 0;
    for (uint32_t i = 0; i < a->nr_chipsets && i < 4096; i++) {
        struct txt_acm_chipset_id c;
        acm_chipset(f, a, i, &c);
        sum += c.vendor_id;
    }
    for (uint32_t i = 0; i < a->nr_procs && i < 4096; i++) {
        struct txt_acm_processor_id p;
        acm_processor(f, a, i, &p);
        sum += p.fms;
    }
    for (uint32_t i = 0; a->has_tpm_info && i < a->nr_algs && i < 4096; i++)
        sum += acm_tpm_alg(f, a, i);
    (void)sum;
}

static void run(const uint8_t *f, size_t len, const struct acm_platform *p, bool must_pass)
{
    struct acm_info a;
    char err[256];
    memset(err, 0x55, sizeof(err));
    int rc = acm_parse(f, len, &a, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    FUZZ_ASSERT(!must_pass || rc == 0, "built module refused: %s", err);
    if (rc)
        return;
    check_accepted(f, len, &a);
    rc = acm_match_platform(f, &a, p, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    FUZZ_ASSERT(!must_pass || rc == 0, "built module does not match: %s", err);
    rc = acm_check_launch(&a, load_le32(f + 8) & 0x3ffff, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    rc = acm_check_launch(&a, 0, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    FUZZ_ASSERT(!must_pass || rc == 0, "built module fails the launch checks: %s", err);
    struct acm_range r[ACM_NR_SIGNED_RANGES];
    acm_signed_ranges(a.size, r);
    FUZZ_ASSERT(r[0].off + r[0].len <= a.size && r[1].off + r[1].len <= a.size, "ranges");
}

static uint8_t out[0x10000];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct acm_platform p = {
        .ver_fsbif = TXT_VER_PROD_FUSED,
        .didvid = TXT_DIDVID(0x8086, 0xB00F, 1),
        .fms = size >= 5 ? load_le32(data + 1) : 0,
        .platform_id = 0x0004000000000000ull,
        .bios_data_version = 6,
        .bios_data_flags = 1ull << TXT_BIOS_FLAGS_PLATFORM_TYPE_SHIFT,
    };
    if (!(data[0] & 1)) {
        uint8_t *f = malloc(size - 1 ? size - 1 : 1);
        memcpy(f, data + 1, size - 1);
        run(f, size - 1, &p, false);
        free(f);
        return 0;
    }
    uint8_t v16[17] = { 0 };
    memcpy(v16, data + 1, size - 1 < 16 ? size - 1 : 16);
    struct acm_values v;
    acm_values_default(&v, load_le32(v16 + 0), load_le32(v16 + 4));
    v.info_version = 3 + v16[8] % 5;
    v.nr_chipsets = 1 + v16[9] % ACM_MAX_IDS;
    v.nr_procs = 1 + v16[10] % ACM_MAX_IDS;
    v.nr_algs = v16[11] % (ACM_MAX_ALGS + 1);
    v.chipsets[v.nr_chipsets - 1] = v.chipsets[0];
    v.procs[v.nr_procs - 1] = v.procs[0];
    if (v.nr_chipsets > 1)               /* the platform's entry stays last */
        v.chipsets[0].device_id = load_le16(v16 + 12);
    v.flags = v16[14] & 1 ? ACM_FLAG_DEBUG_SIGNED : 0;
    p.fms = load_le32(v16 + 0);
    if (v.flags)
        p.ver_fsbif = 1;
    uint32_t plen = v16[15] * 16u;
    uint8_t payload[256 * 16];
    memset(payload, 0xcc, plen);
    v.entry_point = plen ? v16[8] % plen : 0;
    uint32_t len;
    char err[256];
    int rc = acm_build(&v, payload, plen, out, sizeof(out), &len, err, sizeof(err));
    FUZZ_ASSERT(rc == 0, "acm_build: %s", err);
    FUZZ_ASSERT(len % 64 == 0 && len == acm_payload_offset(&v) +
                ((plen ? plen : 64) + 63) / 64 * 64, "built length 0x%x", len);
    bool patched = false;
    for (size_t i = 17; i + 3 <= size; i += 3) {
        uint16_t off = load_le16(data + i);
        if (off < len) {
            out[off] = data[i + 2];
            patched = true;
        }
    }
    uint8_t *f = malloc(len);
    memcpy(f, out, len);
    run(f, len, &p, !patched);
    free(f);
    return 0;
}
