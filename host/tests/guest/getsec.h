/* SPDX-License-Identifier: MIT */
/*
 * What getsec.c (the dispatcher, the IDT, the probes) shares with the files of its other cases
 * (getsec_chipset.c).
 */
#ifndef GUEST_GETSEC_H
#define GUEST_GETSEC_H

#include "abi/multiboot1.h"

#include <stdint.h>

/* MMIO, 32 bits at a time (a 64-bit register low dword first, as tboot's 32-bit code does) */
static inline uint32_t rd32(uint32_t a) { return *(volatile uint32_t *)a; }
static inline void wr32(uint32_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline uint64_t rd64(uint32_t a) { return (uint64_t)rd32(a + 4) << 32 | rd32(a); }
static inline void wr64(uint32_t a, uint64_t v) { wr32(a, (uint32_t)v); wr32(a + 4, (uint32_t)(v >> 32)); }
/* n bytes to physical address a (code for another CPU, an image): volatile, so that GCC keeps
 * stores it cannot see read, and makes no memcpy call (no libc here) */
static inline void copy_to(uint32_t a, const void *src, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        ((volatile uint8_t *)a)[i] = ((const uint8_t *)src)[i];
}

/* the loader's multiboot information, as getsec_main got it */
extern const struct mb1_info *getsec_mbi;

/* starts a report line: "GETSEC: <case>: <what>" (the running case's name) */
void line(const char *what);

/* a value's line: "<what> = 0x..." */
void show(const char *what, uint64_t v);

/* a probe's result line: "<what>: ok" (returns 1) or "<what>: #GP(0) at 0x..." (returns 0) */
int report(const char *what, uint32_t r);

/* getsec_nmi_counting set: an NMI (vector 2) counts in getsec_nmis and returns, where it would
 * otherwise be unexpected */
extern volatile uint32_t getsec_nmi_counting, getsec_nmis;

/* a probe's fault word: GETSEC_FAULT | vector << 16 | error code (getsec.c's IDT) */
#define GETSEC_FAULT 0x80000000u

/* getsec.S's probes: 0, or the fault word (GETSEC_FAULT) when the instruction faulted */
struct regs {
    uint32_t eax, ebx, ecx, edx, esi, edi;
};
/* GETSEC with the registers of *r, those it leaves written back (not after a fault) */
uint32_t probe_getsec(struct regs *r);
uint32_t probe_rdmsr(uint32_t msr, uint64_t *val);
uint32_t probe_wrmsr(uint32_t msr, uint64_t val);

/* RDMSR: "RDMSR 0x3a = 0xff01" or its fault; returns 1 and the value when it read */
int show_rdmsr(uint32_t msr, uint64_t *val);

/* getsec_chipset.c: the TXT chipset's cases */
void chipset_txtregs(void);
void chipset_biosdata(void);
void chipset_biosdata_reset(void);
void chipset_e820(void);
void chipset_dma(void);

/* getsec_acmode.c: the ACM (the first multiboot module) copied to SINIT.BASE, SMXE set and
 * caches on: its size, or 0 after a line saying why; SINIT.BASE; GETSEC[leaf] with EBX = base,
 * ECX = size, ESI, EDI, EDX as given: 0 after EXITAC (or the MLE entry) came back, else the
 * fault word */
uint32_t sinit_base(void);
uint32_t acm_setup(uint32_t offset);
uint32_t acmode_getsec(uint32_t leaf, uint32_t base, uint32_t size, volatile uint32_t *results,
                       uint32_t spin, uint32_t edx);
#define GETSEC_SENTER 4u

/* getsec_launch.c: a measured launch of our SINIT (out/sinit.bin as the module) into getsec's
 * own MLE (getsec.S's .mle section: its header, an entry that comes back to the caller, and a
 * page of 0xee), with tboot's heap, MTRRs and a low PMR of [0, LAUNCH_PMR_SIZE): 0 once the MLE
 * was entered (its lines printed), else a line and the fault word or 1 */
#define LAUNCH_PMR_SIZE 0x800000u
extern const char mle_start[], mle_entry[], mle_target[], mle_end[];
uint32_t sinit_launch(void);

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
void acmode_case_bad_acm_elsewhere(void);
void acmode_case_senter(void);
void acmode_case_senter_edx1(void);
void acmode_case_senter_unlocked(void);
void acmode_case_senter_ap_running(void);
void acmode_case_senter_ap_nmi(void);
void acmode_case_senter_bad_acm(void);
void acmode_case_senter_bad_heap(void);
void acmode_case_wakeup(void);
void acmode_case_wakeup_before_senter(void);
void acmode_case_wakeup_after_init_sipi(void);
void acmode_case_join_bad_selector(void);
void acmode_case_join_wrapping_selector(void);
void acmode_case_nmi_after_senter(void);
void acmode_case_nmi_after_enteraccs(void);
/* ENTERACCS with the echo ACM (the first multiboot module) making the n (at most 2) writes w
 * to the TXT private space that only AC mode reaches: 0 when it came back, or a fault word */
struct txt_priv_write {
    uint32_t off;                       /* from 0xFED20000 */
    uint32_t val;
};
uint32_t acmode_private_writes(const struct txt_priv_write *w, unsigned n);
/* SENTER with the echo ACM, which leaves the private space open: 0 when it came back through
 * EXITAC, or a fault word (GETSEC_FAULT alone after a FAILED line) */
uint32_t acmode_senter(void);
/* "<what> = <64 hex digits>", PCR 17's SHA-256 bank read through locality 0 */
void show_pcr17(const char *what);

/* getsec_reset.c: the TXT reset, the scrub and the power cycle (case=secrets-reset, ...) */
void reset_secrets_txt_reset(void);
void reset_nosecrets_txt_reset(void);
void reset_secrets_cf9(void);
void reset_secrets_s3(void);
void reset_power_cycle(void);
void reset_init_bsp(void);

/* getsec_pmr.c: VT-d's protected memory regions and the DPR (case=pmr, pmr-te, dpr) */
void pmr_off(void);
void pmr_te(void);
void pmr_dpr(void);
void pmr_sinit_dma(void);

/* getsec_hpet.c: the HPET's FSB messages (case=hpet-fsb) */
void hpet_fsb(void);

/* getsec_tpm.c: the TPM localities the chipset gates (case=tpm-loc) */
void tpm_loc(void);
void tpm_loc_launched(void);
/* a PCR's SHA-256 value, read through locality 0; 0 when the TPM did not answer as expected */
int tpm_pcr_sha256(unsigned pcr, uint8_t out[32]);

#endif
