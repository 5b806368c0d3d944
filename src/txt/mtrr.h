/* SPDX-License-Identifier: MIT */
/*
 * The memory types our SINIT accepts at its entry (docs/txt-platform.md 3.4 step 4), from the
 * MTRR MSRs as tboot sets them for SENTER (txt/mtrrs.c set_mtrrs_for_acmod): MTRRs enabled,
 * the fixed-range MTRRs off, default type UC, and each enabled variable MTRR a range with a
 * contiguous mask, of type UC or WB, every WB range inside the SINIT region and the SINIT
 * region covered by WB. Then nothing but the SINIT's own image is cached while it runs, and
 * the memory it verified is the memory it executes [inferred: what a SINIT needs; Intel's
 * exact rules are not public].
 */
#ifndef TXT_MTRR_H
#define TXT_MTRR_H

#include <stdint.h>

#define TXT_MTRR_MAX_VAR 16u

struct txt_mtrrs {
    uint64_t cap;                    /* IA32_MTRRCAP (0xFE): VCNT in bits 7:0 */
    uint64_t def_type;               /* IA32_MTRR_DEF_TYPE (0x2FF) */
    uint64_t base[TXT_MTRR_MAX_VAR]; /* IA32_MTRR_PHYSBASEn (0x200 + 2n) */
    uint64_t mask[TXT_MTRR_MAX_VAR]; /* IA32_MTRR_PHYSMASKn (0x201 + 2n) */
    unsigned phys_bits;              /* CPUID 0x80000008 EAX[7:0] */
};

/* 0, or -1 with the reason. */
int txt_mtrrs_check(const struct txt_mtrrs *m, uint64_t sinit_base, uint64_t sinit_size,
                    char *err, unsigned errlen);

#endif
