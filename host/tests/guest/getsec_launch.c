/* SPDX-License-Identifier: MIT */
/*
 * A measured launch of our SINIT into getsec's own MLE (getsec.h sinit_launch): what tboot
 * prepares before GETSEC[SENTER] (docs/txt-platform.md 3.4: the heap's OsMleData and
 * OsSinitData, the MLE's page table, MTRRs with only the SINIT write-back), done by hand, so
 * that a test can reach the launched state without tboot and arm devices around it
 * (getsec_pmr.c's sinit-dma case).
 *
 * Fixed places (-m 128; getsec's image is at 1 MiB and small):
 *   0x200000  the MLE's page table: PDPT, PD, PT (inside the low PMR, not among the MLE's pages)
 *   [0, LAUNCH_PMR_SIZE)  the low PMR the SINIT sets (getsec's image and MLE inside it)
 *   the heap: BiosData as the chipset wrote it, then OsMleData (tboot's size; the event log at
 *   its data + 0x1000), OsSinitData version 7 (TPM 2.0 TCG log element, END)
 */
#include "com1.h"
#include "getsec.h"

#include "abi/txt.h"

#include <stddef.h>
#include <stdint.h>

#define PAGE 4096u
#define PTAB 0x200000u
#define EVTLOG_OFF 0x1000u              /* in OsMleData's data */
#define EVTLOG_SIZE 0x2000u
#define IA32_MTRRCAP 0xfeu
#define IA32_MTRR_DEF_TYPE 0x2ffu
#define IA32_MTRR_PHYSBASE0 0x200u
#define MTRR_ENABLE (1u << 11)
#define MTRR_VALID (1u << 11)
#define MTRR_WB 6u

extern volatile uint32_t mle_entered_at;

static void zero(uint32_t a, uint32_t n)
{
    for (uint32_t i = 0; i < n; i += 4)
        wr32(a + i, 0);
}

/* as tboot's set_mtrrs_for_acmod: default UC, fixed off, the module's pages WB in as few
 * power-of-two ranges as their alignment allows; 0 or the fault word */
static uint32_t mtrrs_for_sinit(uint32_t base, uint32_t size)
{
    uint64_t cap;
    uint32_t r = probe_rdmsr(IA32_MTRRCAP, &cap), a[4];
    __asm__ volatile("cpuid" : "=a"(a[0]), "=b"(a[1]), "=c"(a[2]), "=d"(a[3])
                     : "a"(0x80000008u), "c"(0));
    uint64_t addr_mask = ((1ull << (a[0] & 0xff)) - 1) & ~(uint64_t)(PAGE - 1);
    unsigned vcnt = (unsigned)(cap & 0xff), n = 0;
    r = r ? r : probe_wrmsr(IA32_MTRR_DEF_TYPE, 0);
    for (unsigned i = 0; i < vcnt && !r; i++)
        r = probe_wrmsr(IA32_MTRR_PHYSBASE0 + 2 * i + 1, 0);
    uint32_t end = (base + size + PAGE - 1) & ~(PAGE - 1);
    for (uint32_t at = base; at < end && !r; n++) {
        uint32_t chunk = PAGE;
        while (!(at & chunk) && at + 2 * chunk <= end)
            chunk *= 2;
        if (n == vcnt)
            return 1;
        r = probe_wrmsr(IA32_MTRR_PHYSBASE0 + 2 * n, at | MTRR_WB);
        r = r ? r : probe_wrmsr(IA32_MTRR_PHYSBASE0 + 2 * n + 1,
                                (~(uint64_t)(chunk - 1) & addr_mask) | MTRR_VALID);
        at += chunk;
    }
    return r ? r : probe_wrmsr(IA32_MTRR_DEF_TYPE, MTRR_ENABLE);
}

/* the MLE mapped from linear 0: PDPT[0] -> PD[0] -> PT, entries phys | 1 (tboot's layout) */
static void mle_page_table(void)
{
    zero(PTAB, 3 * PAGE);
    wr64(PTAB, (PTAB + PAGE) | 1);
    wr64(PTAB + PAGE, (PTAB + 2 * PAGE) | 1);
    for (uint32_t i = 0; i < (uint32_t)(mle_end - mle_start) / PAGE; i++)
        wr64(PTAB + 2 * PAGE + 8 * i, ((uint32_t)mle_start + i * PAGE) | 1);
}

/* OsMleData and OsSinitData after the chipset's BiosData, as tboot 1.10.5 writes them */
static void heap(void)
{
    uint32_t h = rd32(TXT_PUB_CONFIG_REGS_BASE + TXTCR_HEAP_BASE);
    uint32_t os_mle = h + rd32(h);
    zero(os_mle, TXT_OS_MLE_DATA_SIZE);
    wr64(os_mle, TXT_OS_MLE_DATA_SIZE);
    wr32(os_mle + 8, TXT_OS_MLE_DATA_VER);

    uint32_t os = os_mle + TXT_OS_MLE_DATA_SIZE, d = os + 8;
    zero(os, TXT_OS_SINIT_SIZE_V6_TCG);
    wr64(os, TXT_OS_SINIT_SIZE_V6_TCG);
    wr32(d + offsetof(struct txt_os_sinit_data, version), 7);
    wr32(d + offsetof(struct txt_os_sinit_data, flags), TXT_OS_SINIT_FLAGS_EXTPOL);
    wr64(d + offsetof(struct txt_os_sinit_data, mle_ptab), PTAB);
    wr64(d + offsetof(struct txt_os_sinit_data, mle_size), (uint32_t)(mle_end - mle_start));
    wr64(d + offsetof(struct txt_os_sinit_data, mle_hdr_base), 0);
    wr64(d + offsetof(struct txt_os_sinit_data, vtd_pmr_lo_size), LAUNCH_PMR_SIZE);
    wr32(d + offsetof(struct txt_os_sinit_data, capabilities),
         TXT_CAP_RLP_WAKE_GETSEC | TXT_CAP_TCG_EVENT_LOG_FORMAT);
    uint32_t e = d + sizeof(struct txt_os_sinit_data);
    wr32(e, HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR_2_1);
    wr32(e + 4, TXT_EVTLOG_ELT2_1_SIZE);
    wr64(e + 8, os_mle + 8 + EVTLOG_OFF);
    wr32(e + 16, EVTLOG_SIZE);
    wr32(e + TXT_EVTLOG_ELT2_1_SIZE + 4, 8);        /* END */
}

uint32_t sinit_launch(void)
{
    uint32_t size = acm_setup(0);
    if (!size)
        return 1;
    uint32_t r = mtrrs_for_sinit(sinit_base(), size);
    if (r) {
        report("MTRRs for the SINIT", r);
        return r;
    }
    mle_page_table();
    heap();
    if (!report("SENTER", acmode_getsec(GETSEC_SENTER, sinit_base(), size, 0, 0, 0)))
        return 1;
    show("MLE entered at", mle_entered_at);
    show("MLE entry", (uint32_t)mle_entry);
    show("ERRORCODE", rd32(TXT_PUB_CONFIG_REGS_BASE + TXTCR_ERRORCODE));
    show("public STS", rd32(TXT_PUB_CONFIG_REGS_BASE + TXTCR_STS));
    return 0;
}
