/* SPDX-License-Identifier: MIT */
/*
 * What getsec.c (the dispatcher, the IDT, the probes) shares with the files of its other cases
 * (getsec_chipset.c).
 */
#ifndef GUEST_GETSEC_H
#define GUEST_GETSEC_H

#include "abi/multiboot1.h"

/* the loader's multiboot information, as getsec_main got it */
extern const struct mb1_info *getsec_mbi;

/* starts a report line: "GETSEC: <case>: <what>" (the running case's name) */
void line(const char *what);

/* a probe's result line: "<what>: ok" (returns 1) or "<what>: #GP(0) at 0x..." (returns 0) */
int report(const char *what, uint32_t r);

/* getsec.S's probes: 0, or the fault word (GETSEC_FAULT) when the instruction faulted */
uint32_t probe_rdmsr(uint32_t msr, uint64_t *val);
uint32_t probe_wrmsr(uint32_t msr, uint64_t val);

/* RDMSR: "RDMSR 0x3a = 0xff01" or its fault; returns 1 and the value when it read */
int show_rdmsr(uint32_t msr, uint64_t *val);

/* getsec_chipset.c: the TXT chipset's cases */
void chipset_txtregs(void);
void chipset_biosdata(void);
void chipset_biosdata_reset(void);
void chipset_e820(void);

/* getsec_acmode.c: authenticated-code mode's cases */
void acmode_case_enteraccs(void);
void acmode_case_enteraccs_dma(void);
void acmode_case_cr0cd(void);
void acmode_case_cpl3(void);
void acmode_case_unaligned_base(void);
void acmode_case_size_not_64(void);
void acmode_case_size_too_big(void);
void acmode_case_ap_running(void);
void acmode_case_bad_acm(void);

/* getsec_pmr.c: VT-d's protected memory regions and the DPR (case=pmr, pmr-te, dpr) */
void pmr_off(void);
void pmr_te(void);
void pmr_dpr(void);

/* getsec_hpet.c: the HPET's FSB messages (case=hpet-fsb) */
void hpet_fsb(void);

/* getsec_tpm.c: the TPM localities the chipset gates (case=tpm-loc) */
void tpm_loc(void);

#endif
