/* SPDX-License-Identifier: MIT */
#include "txt/sinit_mle.h"

#include "abi/txt.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

#define LEGACY_HOLE_START 0xA0000ull
#define LEGACY_HOLE_END 0x100000ull
/* the size field, the structure, the END element */
#define MDRS_OFF (TXT_HEAP_SIZE_FIELD + sizeof(struct txt_sinit_mle_data) + \
                  sizeof(struct txt_heap_ext_elt))

struct mdrs {
    uint8_t *at;
    uint32_t n, max;
};

static void mdr(struct mdrs *m, uint64_t base, uint64_t length, uint8_t type)
{
    if (!length)
        return;
    if (m->n < m->max) {
        uint8_t *r = m->at + sizeof(struct txt_sinit_mdr) * m->n;
        memset(r, 0, sizeof(struct txt_sinit_mdr));
        store_le64(r + offsetof(struct txt_sinit_mdr, base), base);
        store_le64(r + offsetof(struct txt_sinit_mdr, length), length);
        r[offsetof(struct txt_sinit_mdr, mem_type)] = type;
    }
    m->n++;
}

/* RAM [base, base + size) as GOOD records, the legacy hole cut out */
static void ram(struct mdrs *m, uint64_t base, uint64_t size)
{
    uint64_t end = base + size;
    if (base < LEGACY_HOLE_START)
        mdr(m, base, (end < LEGACY_HOLE_START ? end : LEGACY_HOLE_START) - base, TXT_MDR_GOOD);
    if (end > LEGACY_HOLE_END) {
        uint64_t from = base > LEGACY_HOLE_END ? base : LEGACY_HOLE_END;
        mdr(m, from, end - from, TXT_MDR_GOOD);
    }
}

int txt_sinit_mle_data_build(const struct txt_sinit_mle_in *in, uint8_t *out, uint64_t cap,
                             uint64_t *size, char *err, unsigned errlen)
{
    struct mdrs m = { .at = NULL, .n = 0, .max = 0 };

    if (in->nr_ram == 0 || in->nr_ram > TXT_SINIT_MLE_MAX_RAM)
        FAIL("%u RAM ranges, not 1-%u", in->nr_ram, TXT_SINIT_MLE_MAX_RAM);
    for (unsigned i = 0; i < in->nr_ram; i++)
        if (in->ram[i].size == 0 || in->ram[i].base + in->ram[i].size < in->ram[i].base)
            FAIL("RAM range %u 0x%llx+0x%llx is empty or wraps", i,
                 (unsigned long long)in->ram[i].base, (unsigned long long)in->ram[i].size);
    if (!in->dmar || in->dmar_len < 4 || memcmp(in->dmar, "DMAR", 4))
        FAIL("no DMAR table to copy (tboot and the kernel need one)");

    /* count the records first, then lay everything out */
    for (unsigned i = 0; i < in->nr_ram; i++)
        ram(&m, in->ram[i].base, in->ram[i].size);
    mdr(&m, in->dpr_base, in->dpr_size, TXT_MDR_PROTECTED);
    mdr(&m, in->mcfg_base, in->mcfg_size, TXT_MDR_PCIE_CONFIG);
    uint64_t dmar_off = MDRS_OFF + (uint64_t)sizeof(struct txt_sinit_mdr) * m.n;
    uint64_t total = dmar_off + in->dmar_len;
    if (total > cap)
        FAIL("SinitMleData needs 0x%llx bytes, the heap leaves 0x%llx",
             (unsigned long long)total, (unsigned long long)cap);

    memset(out, 0, total);
    store_le64(out, total);
    uint8_t *d = out + TXT_HEAP_SIZE_FIELD;
    store_le32(d + offsetof(struct txt_sinit_mle_data, version), TXT_SINIT_MLE_DATA_VER);
    store_le32(d + offsetof(struct txt_sinit_mle_data, edx_senter_flags), in->edx_senter_flags);
    store_le32(d + offsetof(struct txt_sinit_mle_data, lcp_policy_control),
               in->lcp_policy_control);
    store_le32(d + offsetof(struct txt_sinit_mle_data, num_mdrs), m.n);
    store_le32(d + offsetof(struct txt_sinit_mle_data, mdrs_off), (uint32_t)MDRS_OFF);
    store_le32(d + offsetof(struct txt_sinit_mle_data, num_vtd_dmars), in->dmar_len);
    store_le32(d + offsetof(struct txt_sinit_mle_data, vtd_dmars_off), (uint32_t)dmar_off);
    store_le32(d + offsetof(struct txt_sinit_mle_data, proc_scrtm_status), in->proc_scrtm_status);
    /* the END element: type 0, size 8 */
    store_le32(d + sizeof(struct txt_sinit_mle_data) + 4, sizeof(struct txt_heap_ext_elt));

    m = (struct mdrs){ .at = out + MDRS_OFF, .n = 0, .max = m.n };
    for (unsigned i = 0; i < in->nr_ram; i++)
        ram(&m, in->ram[i].base, in->ram[i].size);
    mdr(&m, in->dpr_base, in->dpr_size, TXT_MDR_PROTECTED);
    mdr(&m, in->mcfg_base, in->mcfg_size, TXT_MDR_PCIE_CONFIG);
    memcpy(out + dmar_off, in->dmar, in->dmar_len);
    *size = total;
    return 0;
}

#define FW_CFG_E820_ENTRY 20u
#define E820_RAM 1u

int txt_ram_from_fw_cfg_e820(const uint8_t *e820, uint32_t len, struct txt_sinit_mle_in *in,
                             char *err, unsigned errlen)
{
    if (len % FW_CFG_E820_ENTRY)
        FAIL("etc/e820 is %u bytes, not a multiple of %u", len, FW_CFG_E820_ENTRY);
    in->nr_ram = 0;
    for (uint32_t off = 0; off < len; off += FW_CFG_E820_ENTRY) {
        const uint8_t *e = e820 + off;
        if (load_le32(e + 16) != E820_RAM || load_le64(e + 8) == 0)
            continue;
        if (in->nr_ram == TXT_SINIT_MLE_MAX_RAM)
            FAIL("etc/e820 lists more than %u RAM ranges", TXT_SINIT_MLE_MAX_RAM);
        in->ram[in->nr_ram].base = load_le64(e);
        in->ram[in->nr_ram].size = load_le64(e + 8);
        in->nr_ram++;
    }
    if (in->nr_ram == 0)
        FAIL("etc/e820 lists no RAM");
    return 0;
}
