/* SPDX-License-Identifier: MIT */
#include "txt/mtrr.h"

#include "lib/format.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

#define MTRR_TYPE_UC 0u
#define MTRR_TYPE_WB 6u
#define DEF_TYPE_FE (1ull << 10)
#define DEF_TYPE_E (1ull << 11)
#define PHYSMASK_VALID (1ull << 11)
#define PAGE_MASK 0xfffull
#define MASK_36_BITS 0xffffff000ull

int txt_mtrrs_check(const struct txt_mtrrs *m, uint64_t sinit_base, uint64_t sinit_size,
                    char *err, unsigned errlen)
{
    unsigned vcnt = (unsigned)(m->cap & 0xff);

    if (m->phys_bits < 36 || m->phys_bits > 52)
        FAIL("physical address width %u, not 36-52", m->phys_bits);
    if (vcnt > TXT_MTRR_MAX_VAR)
        FAIL("%u variable MTRRs, more than %u", vcnt, TXT_MTRR_MAX_VAR);
    if (!(m->def_type & DEF_TYPE_E))
        FAIL("MTRRs disabled (IA32_MTRR_DEF_TYPE 0x%llx)", (unsigned long long)m->def_type);
    if (m->def_type & DEF_TYPE_FE)
        FAIL("fixed-range MTRRs enabled (IA32_MTRR_DEF_TYPE 0x%llx)",
             (unsigned long long)m->def_type);
    if ((m->def_type & 0xff) != MTRR_TYPE_UC)
        FAIL("default memory type %llu, not UC", (unsigned long long)(m->def_type & 0xff));
    if (sinit_size == 0 || sinit_base + sinit_size < sinit_base)
        FAIL("SINIT region 0x%llx+0x%llx", (unsigned long long)sinit_base,
             (unsigned long long)sinit_size);

    uint64_t full_mask = ((1ull << m->phys_bits) - 1) & ~PAGE_MASK;
    for (unsigned i = 0; i < vcnt; i++) {
        if (!(m->mask[i] & PHYSMASK_VALID))
            continue;
        /* tboot 1.10.5 writes 24-bit masks (bits 35:12) whatever the CPU's width: a mask with
         * nothing above bit 35 is read as 36 bits wide [inferred: the SINITs tboot runs with
         * on wider CPUs accept it; the aliases it also makes WB lie at 64 GiB and above] */
        uint64_t addr_mask = (m->mask[i] & full_mask) >> 36 ? full_mask : MASK_36_BITS;
        uint64_t mask = m->mask[i] & addr_mask, base = m->base[i] & addr_mask;
        unsigned type = (unsigned)(m->base[i] & 0xff);
        /* contiguous: the mask's ones from the top down, then only zeros */
        uint64_t low = addr_mask & ~mask;
        if (mask == 0 || (low & (low + (1ull << 12))) != 0)
            FAIL("variable MTRR %u: mask 0x%llx is not contiguous", i,
                 (unsigned long long)m->mask[i]);
        if (base & ~mask)
            FAIL("variable MTRR %u: base 0x%llx not aligned to its mask 0x%llx", i,
                 (unsigned long long)m->base[i], (unsigned long long)m->mask[i]);
        uint64_t size = low + (1ull << 12);
        if (type == MTRR_TYPE_UC)
            continue;
        if (type != MTRR_TYPE_WB)
            FAIL("variable MTRR %u: memory type %u, neither UC nor WB", i, type);
        if (base < sinit_base || size > sinit_size || base - sinit_base > sinit_size - size)
            FAIL("variable MTRR %u: WB range 0x%llx+0x%llx outside the SINIT region "
                 "0x%llx+0x%llx", i, (unsigned long long)base, (unsigned long long)size,
                 (unsigned long long)sinit_base, (unsigned long long)sinit_size);
    }
    /* and every page of the region in some WB range */
    for (uint64_t a = sinit_base & ~PAGE_MASK; a < sinit_base + sinit_size; a += PAGE_MASK + 1) {
        unsigned i;
        for (i = 0; i < vcnt; i++) {
            uint64_t mask = m->mask[i] & full_mask;
            if ((m->mask[i] & PHYSMASK_VALID) && (m->base[i] & 0xff) == MTRR_TYPE_WB &&
                (a & mask) == (m->base[i] & mask))
                break;
        }
        if (i == vcnt)
            FAIL("SINIT page 0x%llx is not write-back (no WB MTRR covers it)",
                 (unsigned long long)a);
    }
    return 0;
}
