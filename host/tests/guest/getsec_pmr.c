/* SPDX-License-Identifier: MIT */
/*
 * getsec's probes of VT-d's protected memory regions (PMRs) on the emulated TXT platform
 * (qemu/patches 0009, docs/txt-platform.md "0009"; tests/qemu/test_txt_dma.py): the cases of
 * getsec.c's table named below. QEMU runs with -device intel-iommu and -device edu; lines on
 * COM1 are getsec's: "GETSEC: <case>: <what> = <value>".
 *
 * The guest finds the remapping unit's registers through the ACPI DMAR table (its first
 * DRHD), edu by a scan of PCI bus 0, and uses fixed physical pages (-m 128; getsec's image
 * is at 1 MiB and small):
 *   SRC  0x300000  the bytes edu copies (a pattern), read by edu's DMA into its buffer
 *   0x3ff000       the last page below the protected region
 *   0x400000-0x5fffff  the protected low-memory region: PLMBASE = PLMLIMIT = 0x400000 (the
 *                  limit register's value is the last 2 MiB block, inclusive)
 *   0x401000       the protected buffer; 0x5ff000 the region's last page
 *   0x500000-      (pmr-te) the root, context and page tables, inside the protected region:
 *                  the remapping unit's own reads are not subject to the PMRs
 *   0x600000       the first page above the region
 * Each DMA copies COPY bytes from edu's buffer (0x40000) to a page prefilled with FILL, then
 * the line "DMA to <page> = <first 8 bytes>, <n>/COPY bytes copied" says what landed.
 *
 *   case=pmr     translation off: CAP.PLMR/PHMR; the base/limit granularity (all-ones
 *                written); PMEN before and after EPM; a base write while enabled (ignored);
 *                DMA to the protected buffer, the region's last page, the pages around it;
 *                a DMA read of the protected buffer (edu copies what it got to 0x602000);
 *                EPM cleared: the protected buffer gets the bytes
 *   case=pmr-te  translation on (root table, context entry for edu): pass-through, then
 *                remapped (IOVAs mapped to the protected buffer and to a page outside), each
 *                with EPM set; then EPM cleared
 *   case=sinit-dma  our SINIT (the module) launched into getsec's MLE (getsec_launch.c): PCR 17,
 *                the PMR registers as the SINIT left them; edu, loaded before the launch,
 *                copies into the MLE's measured page (blocked) and above the low PMR (lands)
 *   case=dpr     translation off, EPM clear: the TXT chipset's DPR register (public space); DMA
 *                to the heap (HEAP.BASE + 0x10000, past BiosData), to the DPR's last page and
 *                to the page above the PMR region
 */
#include "com1.h"
#include "edu.h"
#include "getsec.h"

#include <stddef.h>
#include <stdint.h>

#define SRC 0x300000u
#define BELOW 0x3ff000u
#define PMR_BASE 0x400000u
#define PROT 0x401000u
#define PROT_LAST 0x5ff000u
#define ABOVE 0x600000u
#define READBACK 0x602000u
#define TABLES 0x500000u            /* root, context, then the page tables (pmr-te) */
#define COPY 64u
#define FILL 0xeeu
#define SECRET 0x5au

/* VT-d registers (the VT-d spec's offsets) */
#define VTD_CAP 0x08
#define VTD_ECAP 0x10
#define VTD_GCMD 0x18
#define VTD_GSTS 0x1c
#define VTD_RTADDR 0x20
#define VTD_CCMD 0x28
#define VTD_PMEN 0x64
#define VTD_PLMBASE 0x68
#define VTD_PLMLIMIT 0x6c
#define VTD_PHMBASE 0x70
#define VTD_PHMLIMIT 0x78
#define GCMD_TE (1u << 31)
#define GCMD_SRTP (1u << 30)
#define PMEN_EPM (1u << 31)

static uint32_t vtd;                /* the DRHD's register base */
static uint32_t edu;                /* edu's BAR0 */




/* ---- finding the hardware ---- */
static int sig_is(uint32_t a, const char *sig, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (*(volatile const char *)(a + i) != sig[i])
            return 0;
    return 1;
}

/* the register base of the DMAR table's first DRHD (RSDP in the BIOS area, then the RSDT) */
static uint32_t find_drhd(void)
{
    uint32_t rsdp = 0;
    for (uint32_t a = 0xe0000; a < 0x100000; a += 16)
        if (sig_is(a, "RSD PTR ", 8)) {
            rsdp = a;
            break;
        }
    if (!rsdp)
        return 0;
    uint32_t rsdt = rd32(rsdp + 16);
    uint32_t len = rd32(rsdt + 4);
    for (uint32_t e = rsdt + 36; e + 4 <= rsdt + len; e += 4) {
        uint32_t t = rd32(e);
        if (!sig_is(t, "DMAR", 4))
            continue;
        uint32_t tlen = rd32(t + 4);
        for (uint32_t s = t + 48; s + 4 <= t + tlen;) {
            uint16_t type = *(volatile uint16_t *)s, slen = *(volatile uint16_t *)(s + 2);
            if (type == 0 && slen >= 16)
                return (uint32_t)rd64(s + 8);
            if (slen < 4)
                break;
            s += slen;
        }
    }
    return 0;
}

/* ---- edu's DMA ---- */
static int edu_dma(uint32_t src, uint32_t dst, uint32_t cmd)
{
    if (edu_dma_copy(edu, src, dst, COPY, cmd))
        return 1;
    line("edu DMA did not complete\n");
    return 0;
}

static void fill(uint32_t page, uint8_t v)
{
    for (uint32_t i = 0; i < COPY; i++)
        *(volatile uint8_t *)(page + i) = v;
}

static uint8_t pattern(uint32_t i)
{
    return (uint8_t)(i * 7 + 1);
}

/* the source bytes into edu's buffer (SRC is never protected) */
static void load_edu(void)
{
    for (uint32_t i = 0; i < COPY; i++)
        *(volatile uint8_t *)(SRC + i) = pattern(i);
    edu_dma(SRC, EDU_BUF, 0);
}

/* edu's buffer to the page at bus address `dma` (the guest sees it at `page`), and the line */
static void dma_to(const char *what, uint32_t dma, uint32_t page)
{
    fill(page, FILL);
    if (!edu_dma(EDU_BUF, dma, EDU_TO_RAM))
        return;
    uint32_t same = 0;
    for (uint32_t i = 0; i < COPY; i++)
        same += *(volatile uint8_t *)(page + i) == pattern(i);
    line("DMA to ");
    put_str(what);
    put_str(" = ");
    put_hex(rd64(page));
    put_str(", ");
    put_dec(same);
    put_str("/");
    put_dec(COPY);
    put_str(" bytes copied\n");
}

static int setup(void)
{
    vtd = find_drhd();
    show("DMAR DRHD register base", vtd);
    edu = edu_find();
    line(edu ? "edu: found\n" : "edu: not found\n");
    if (!vtd || !edu)
        return 0;
    show("edu ident", rd32(edu + EDU_IDENT));
    uint64_t cap = rd64(vtd + VTD_CAP);
    show("CAP.PLMR", (cap >> 5) & 1);
    show("CAP.PHMR", (cap >> 6) & 1);
    return 1;
}

static void set_pmen(uint32_t v)
{
    wr32(vtd + VTD_PMEN, v);
    show(v ? "PMEN after EPM=1" : "PMEN after EPM=0", rd32(vtd + VTD_PMEN));
}

static void program_low_region(void)
{
    wr32(vtd + VTD_PLMBASE, PMR_BASE);
    wr32(vtd + VTD_PLMLIMIT, PMR_BASE);
    show("PLMBASE", rd32(vtd + VTD_PLMBASE));
    show("PLMLIMIT", rd32(vtd + VTD_PLMLIMIT));
}

void pmr_off(void)
{
    if (!setup())
        return;
    show("PMEN", rd32(vtd + VTD_PMEN));
    /* the granularity: all-ones written, the reserved low bits read 0 */
    wr32(vtd + VTD_PLMLIMIT, 0xffffffffu);
    show("PLMLIMIT after all-ones", rd32(vtd + VTD_PLMLIMIT));
    wr64(vtd + VTD_PHMLIMIT, ~0ull);
    show("PHMLIMIT after all-ones", rd64(vtd + VTD_PHMLIMIT));
    wr64(vtd + VTD_PHMLIMIT, 0);
    wr64(vtd + VTD_PHMBASE, 0x200000);      /* limit below base: no high region */
    show("PHMBASE", rd64(vtd + VTD_PHMBASE));
    show("PHMLIMIT", rd64(vtd + VTD_PHMLIMIT));
    program_low_region();

    load_edu();
    dma_to("0x401000 before EPM", PROT, PROT);
    set_pmen(PMEN_EPM);
    wr32(vtd + VTD_PLMBASE, 0);
    show("PLMBASE after writing 0 while enabled", rd32(vtd + VTD_PLMBASE));

    dma_to("0x401000 (protected)", PROT, PROT);
    dma_to("0x5ff000 (the region's last page)", PROT_LAST, PROT_LAST);
    dma_to("0x3ff000 (below the region)", BELOW, BELOW);
    dma_to("0x600000 (above the region)", ABOVE, ABOVE);

    /* a DMA read of the protected buffer: edu gets no secret to copy out */
    fill(PROT, SECRET);
    edu_dma(PROT, EDU_BUF, 0);
    fill(READBACK, FILL);
    edu_dma(EDU_BUF, READBACK, EDU_TO_RAM);
    show("edu's copy of the protected buffer", rd64(READBACK));

    set_pmen(0);
    load_edu();
    dma_to("0x401000 after EPM=0", PROT, PROT);
}

/* ---- translation on ---- */
#define ROOT TABLES
#define CONTEXT (TABLES + 0x1000)
#define L3 (TABLES + 0x2000)
#define L2 (TABLES + 0x3000)
#define L1 (TABLES + 0x4000)
#define IOVA 0x0a000000u            /* below edu's 28-bit DMA mask */
#define PTE_RW 3u

static int wait_gsts(uint32_t bit, uint32_t want)
{
    for (uint32_t i = 0; i < 10000000u; i++)
        if ((rd32(vtd + VTD_GSTS) & bit) == want)
            return 1;
    show("GSTS timeout, GSTS", rd32(vtd + VTD_GSTS));
    return 0;
}

static void zero_page(uint32_t a)
{
    for (uint32_t i = 0; i < 0x1000; i += 4)
        wr32(a + i, 0);
}

/* edu's context entry: TT (0 remapped, 2 pass-through), AW 39 bits, domain 1; then a
 * global context-cache invalidation */
static void set_context(uint32_t devfn, uint32_t tt)
{
    uint32_t ce = CONTEXT + devfn * 16;
    wr64(ce + 8, 1u | 1u << 8);                          /* AW=1 (3-level), DID 1 */
    wr64(ce, (tt == 2 ? 0 : L3) | tt << 2 | 1u);         /* present */
    wr32(vtd + VTD_CCMD, 0);
    wr32(vtd + VTD_CCMD + 4, 0xa0000000u);               /* ICC, global */
    for (uint32_t i = 0; i < 10000000u && (rd32(vtd + VTD_CCMD + 4) & 0x80000000u); i++)
        ;
}

void pmr_te(void)
{
    if (!setup())
        return;
    uint64_t ecap = rd64(vtd + VTD_ECAP);
    show("ECAP.PT", (ecap >> 6) & 1);
    program_low_region();
    load_edu();

    /* the tables: root entry for bus 0, edu's context entry, IOVA and IOVA + 0x1000 mapped to
     * the protected buffer and the page above the region */
    for (uint32_t t = TABLES; t <= L1; t += 0x1000)
        zero_page(t);
    uint32_t devfn = edu_devfn();
    wr64(ROOT, CONTEXT | 1u);
    wr64(L3, L2 | PTE_RW);
    wr64(L2 + ((IOVA >> 21) & 0x1ff) * 8, L1 | PTE_RW);
    wr64(L1 + ((IOVA >> 12) & 0x1ff) * 8, PROT | PTE_RW);
    wr64(L1 + (((IOVA >> 12) + 1) & 0x1ff) * 8, ABOVE | PTE_RW);
    set_context(devfn, 2);

    wr64(vtd + VTD_RTADDR, ROOT);
    wr32(vtd + VTD_GCMD, GCMD_SRTP);
    if (!wait_gsts(1u << 30, 1u << 30))
        return;
    wr32(vtd + VTD_GCMD, GCMD_TE);
    if (!wait_gsts(1u << 31, 1u << 31))
        return;
    show("GSTS after TE", rd32(vtd + VTD_GSTS));

    set_pmen(PMEN_EPM);
    line("edu in pass-through\n");
    dma_to("0x401000 (protected)", PROT, PROT);
    dma_to("0x600000 (above the region)", ABOVE, ABOVE);

    set_context(devfn, 0);
    line("edu remapped\n");
    dma_to("IOVA 0xa000000 -> 0x401000 (protected)", IOVA, PROT);
    dma_to("IOVA 0xa001000 -> 0x600000 (above the region)", IOVA + 0x1000, ABOVE);

    set_pmen(0);
    dma_to("IOVA 0xa000000 -> 0x401000 after EPM=0", IOVA, PROT);
}

/* ---- the TXT chipset's DPR (public space 0xfed30000, DPR at 0x330) ---- */
#define TXT_PUB_DPR 0xfed30330u

void pmr_dpr(void)
{
    if (!setup())
        return;
    uint32_t dpr = rd32(TXT_PUB_DPR);
    show("TXT DPR", dpr);
    uint32_t top = dpr & 0xfff00000u, size = ((dpr >> 4) & 0xff) << 20;
    if (!(dpr & 1) || !size || size > top) {
        line("no locked DPR\n");
        return;
    }
    show("PMEN", rd32(vtd + VTD_PMEN));
    show("GSTS", rd32(vtd + VTD_GSTS));
    load_edu();
    dma_to("HEAP.BASE + 0x10000", top - size + 0x10000, top - size + 0x10000);
    dma_to("the DPR's last page", top - 0x1000, top - 0x1000);
    dma_to("0x600000 (outside)", ABOVE, ABOVE);
}

void pmr_sinit_dma(void)
{
    if (!setup())
        return;
    load_edu();
    if (sinit_launch())
        return;
    show_pcr17("PCR 17");
    show("PMEN", rd32(vtd + VTD_PMEN));
    show("PLMBASE", rd32(vtd + VTD_PLMBASE));
    show("PLMLIMIT", rd32(vtd + VTD_PLMLIMIT));
    dma_to("the MLE's page", (uint32_t)mle_target, (uint32_t)mle_target);
    dma_to("the page above the low PMR", LAUNCH_PMR_SIZE + 0x100000u, LAUNCH_PMR_SIZE + 0x100000u);
}
