/* SPDX-License-Identifier: MIT */
/*
 * src/txt/mtrr.c on arbitrary MTRR settings (whoever runs before SENTER writes them): an
 * accepted setting has MTRRs on, fixed ranges off, default UC, and every enabled variable
 * MTRR of this CPU UC or WB with its WB range inside the SINIT region, and the region's first
 * and last pages write-back. A mask with no address bit above 35 spans 36 bits (tboot 1.10.5
 * writes such masks whatever the CPU's width; the SINIT reads them so).
 *
 * Input: the struct txt_mtrrs fields in order (cap, def_type, 16 bases, 16 masks, u8 width),
 * then u32 SINIT base, u32 SINIT size; missing bytes are zero.
 */
#include "fuzz_common.h"

#include "lib/bytes.h"
#include "txt/mtrr.h"

/* the SDM's match: (address & PhysMask) == (PhysBase & PhysMask) */
static bool wb_at(const struct txt_mtrrs *m, uint64_t a)
{
    uint64_t am = ((1ull << m->phys_bits) - 1) & ~0xfffull;
    for (unsigned i = 0; i < (m->cap & 0xff); i++)
        if ((m->mask[i] & (1u << 11)) && (m->base[i] & 0xff) == 6 &&
            (a & m->mask[i] & am) == (m->base[i] & m->mask[i] & am))
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
    uint8_t b[8 * 34 + 1 + 8] = { 0 };
    memcpy(b, in, n < sizeof(b) ? n : sizeof(b));
    struct txt_mtrrs m;
    m.cap = load_le64(b);
    m.def_type = load_le64(b + 8);
    for (unsigned i = 0; i < TXT_MTRR_MAX_VAR; i++) {
        m.base[i] = load_le64(b + 16 + 8 * i);
        m.mask[i] = load_le64(b + 16 + 128 + 8 * i);
    }
    m.phys_bits = b[272];
    uint64_t base = load_le32(b + 273), size = load_le32(b + 277);
    char err[200];
    memset(err, 0x55, sizeof(err));
    int rc = txt_mtrrs_check(&m, base, size, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    if (rc)
        return 0;
    FUZZ_ASSERT((m.def_type & 0xcff) == 0x800, "def_type 0x%llx accepted",
                (unsigned long long)m.def_type);
    uint64_t am = ((1ull << m.phys_bits) - 1) & ~0xfffull;
    for (unsigned i = 0; i < (m.cap & 0xff); i++) {
        if (!(m.mask[i] & (1u << 11)))
            continue;
        unsigned type = m.base[i] & 0xff;
        FUZZ_ASSERT(type == 0 || type == 6, "MTRR %u type %u accepted", i, type);
        if (type == 6) {
            uint64_t w = (m.mask[i] & am) >> 36 ? am : 0xffffff000ull;
            uint64_t lo = m.base[i] & w, len = (w & ~(m.mask[i] & w)) + 0x1000;
            FUZZ_ASSERT(lo >= base && lo + len <= base + size, "MTRR %u WB outside", i);
        }
    }
    FUZZ_ASSERT(wb_at(&m, base & ~0xfffull) && wb_at(&m, (base + size - 1) & ~0xfffull),
                "SINIT region not WB at its ends");
    return 0;
}
