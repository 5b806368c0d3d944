/* SPDX-License-Identifier: MIT */
/*
 * getsec's cases of authenticated-code mode (qemu/patches 0005, docs/txt-platform.md "0005";
 * tests/qemu/test_txt_acmode.py): GETSEC[ENTERACCS] with the ACM the loader passed as the
 * first multiboot module (sinit/test/echo.bin, or a broken copy), copied to SINIT.BASE as tboot
 * copies its SINIT. The echo ACM writes its entry state into a buffer (ESI; sinit/test/echo.h)
 * and returns with GETSEC[EXITAC] to acmode_return. Lines are getsec's:
 * "GETSEC: <case>: <what> = <value>".
 *
 *   case=enteraccs       SINIT.BASE, the guest's GDTR, CS, CR0 and the IA32_MISC_ENABLE it sets;
 *                        ENTERACCS, ESP at its GETSEC and every value the ACM saved; then,
 *                        outside AC mode again, the private and public STS, the TPM's locality
 *                        3 ACCESS byte and IA32_MISC_ENABLE; then a
 *                        second ENTERACCS (EXITAC left AC mode)
 *   case=enteraccs-dma   (-device edu) edu's DMA over the module's first bytes at SINIT.BASE,
 *                        started right before ENTERACCS and landing while the ACM spins: the
 *                        ACM still runs and reads its own first dword unchanged (ACRAM), the
 *                        RAM copy has edu's bytes afterwards
 *   case=cr0cd           ENTERACCS with CR0.CD set
 *   case=cpl3            ENTERACCS at CPL 3 (an IRET to ring 3; a call gate back to ring 0)
 *   case=unaligned-base  EBX = SINIT.BASE + 64 (the module copied there)
 *   case=size-not-64     ECX = the module's size + 4
 *   case=size-too-big    ECX = 256 KiB + 64
 *   case=ap-running      (-smp 2) the AP started by INIT-SIPI into a loop that enables its
 *                        caches and counts; ENTERACCS with the AP in wait-for-SIPI after
 *                        another INIT, then with the AP counting again after a SIPI
 *   case=bad-acm-elsewhere  bad-acm with the module at SINIT.BASE + 64 KiB
 *   case=bad-acm         boot 1: ENTERACCS, which must end in a TXT reset; boot 2 (ESTS.TXT_RESET
 *                        set): public ERRORCODE and ESTS (needs QEMU without -no-reboot)
 * GETSEC[SENTER] (qemu/patches 0006; tests/qemu/test_txt_senter.py, tpm-tis on swtpm), the echo
 * ACM told where to leave to (echo.h ECHO_IN_EXIT_*):
 *   case=senter          public STS and PCR 17 (SHA-256, locality 0) before; SENTER; every
 *                        value the ACM saved; public and private STS, locality 3's ACCESS and
 *                        PCR 17 after; a second SENTER (SENTERFLAG is set)
 *   case=senter-edx1     SENTER with EDX = 1 (no SENTER function is supported)
 *   case=senter-unlocked IA32_FEATURE_CONTROL (QEMU given one without LOCK or SENTER), SENTER
 *   case=senter-ap-running (-smp 2) the AP counting as in ap-running; SENTER; the AP stops for
 *                        good: an INIT-SIPI-SIPI sent to it afterwards does not start it
 *   case=senter-ap-nmi   (-smp 2) the AP counting, with a real-mode NMI handler that counts
 *                        too; an NMI to the AP (ICR), taken; SENTER; an NMI to the sleeping AP:
 *                        its handler does not run and the AP does not count
 *   case=senter-bad-acm  bad-acm through SENTER; boot 2 also reads PCR 17
 * GETSEC[WAKEUP] and [SEXIT] (qemu/patches 0007; tests/qemu/test_txt_wakeup.py):
 *   case=wakeup          (-smp 2) SENTER, the join structure (the guest's GDT, selector 0x08,
 *                        wakeup_ap_entry) written to MLE.JOIN, WAKEUP: the state the AP found
 *                        at the entry; SEXIT, public and private STS, SEXIT and WAKEUP again
 *   case=wakeup-before-senter  WAKEUP and SEXIT outside the measured environment
 *   case=wakeup-after-init-sipi (-smp 2) the AP counting, SENTER, INIT-SIPI-SIPI to the
 *                        sleeping AP, WAKEUP: the AP neither counts nor reaches the join entry
 *   case=join-bad-selector (-smp 2) boot 1: SENTER, a join selector past the GDT, WAKEUP,
 *                        which must end in a TXT reset; boot 2: ERRORCODE and ESTS
 *   case=join-wrapping-selector  the same with selector 0xfffffff8 (+ 15 wraps in 32 bits)
 *   case=nmi-after-senter  SENTER, an NMI to this CPU (ICR), the NMIs taken before and after
 *                        the guest's first IRET (SENTER leaves NMI blocked until then)
 *   case=nmi-after-enteraccs  the control: the same after ENTERACCS (EXITAC unblocks NMI)
 * Every fault case prints the fault as getsec's report(): "ENTERACCS: #GP(0) at 0x...".
 */
#include "com1.h"
#include "echo.h"
#include "edu.h"
#include "getsec.h"
#include "abi/multiboot1.h"
#include "abi/txt.h"

#include <stddef.h>
#include <stdint.h>

#define CR0_NE (1u << 5)
#define CR0_NW (1u << 29)
#define CR0_CD (1u << 30)
#define CR4_SMXE (1u << 14)

#define ACM_MAX_SIZE 0x40000u               /* ENTERACCS's limit: 256 KiB */
#define ACM_ELSEWHERE 0x10000u              /* bad-acm-elsewhere's offset from SINIT.BASE */

#define MSR_IA32_MISC_ENABLE 0x1a0u
/* bits 0, 2, 4, 8, 9, 15, 18, 19 (ENTERACCS clears them), 7 and 16 (it keeps them) */
#define MISC_ENABLE_PATTERN 0x000d8395ull

#define LAPIC_ICR_LO 0xfee00300u
#define LAPIC_ICR_HI 0xfee00310u
#define ICR_INIT 0x00004500u                /* INIT, level assert */
#define ICR_SIPI 0x00004600u                /* start-up, vector in the low byte */
#define ICR_NMI 0x00000400u                 /* NMI, physical destination */
#define ICR_BUSY (1u << 12)
#define AP_APIC_ID 1u
/* the AP's real-mode loop, at a page below 1 MiB nothing else uses after the BIOS */
#define AP_CODE 0x7000u
#define AP_COUNTER (AP_CODE + 0x40)
#define AP_NMI_COUNTER (AP_CODE + 0x44)
#define AP_NMI_HANDLER (AP_CODE + 0x80)
#define IVT_NMI 0x8u                        /* the real-mode vector 2: offset, segment */

/* uint32_t acmode_getsec(uint32_t leaf, uint32_t base, uint32_t size, uint32_t *results,
 *                        uint32_t spin, uint32_t edx):
 * GETSEC[leaf] (ENTERACCS or SENTER) with EBX = base, ECX = size, ESI = results, EDI = spin,
 * EDX = edx; 0 when the ACM came back through EXITAC, or getsec.c's fault word. Both leaves
 * load EBP with ACBASE and the ACM's segments, and EXITAC returns with the ACM's CS (0x08,
 * flat, as ours): acmode_return reloads the guest's segments, EBP comes back from the stack. */
#define GETSEC_ENTERACCS 2u
extern const char acmode_return[];
uint32_t acmode_esp;                        /* ESP at the GETSEC, as the ACM must see it (asm writes it) */
__asm__(
    "    .text\n"
    "    .globl acmode_getsec\n"
    "acmode_getsec:\n"
    "    push %ebp\n"
    "    push %ebx\n"
    "    push %esi\n"
    "    push %edi\n"
    "    mov 20(%esp), %eax\n"
    "    mov 24(%esp), %ebx\n"
    "    mov 28(%esp), %ecx\n"
    "    mov 32(%esp), %esi\n"
    "    mov 36(%esp), %edi\n"
    "    mov 40(%esp), %edx\n"
    "    movl $1f, fault_resume\n"
    "    mov %esp, acmode_esp\n"
    "    .globl acmode_getsec_insn\n"
    "acmode_getsec_insn:\n"
    "    .byte 0x0f, 0x37\n"                 /* getsec */
    "    .globl acmode_return\n"
    "acmode_return:\n"
    "    ljmp $0x08, $2f\n"
    "2:  mov $0x10, %eax\n"
    "    mov %eax, %ds\n"
    "    mov %eax, %es\n"
    "    mov %eax, %fs\n"
    "    mov %eax, %gs\n"
    "    mov %eax, %ss\n"
    "    xor %eax, %eax\n"
    "1:  movl $0, fault_resume\n"
    "    pop %edi\n"
    "    pop %esi\n"
    "    pop %ebx\n"
    "    pop %ebp\n"
    "    ret\n");

static volatile uint32_t acm_results[ECHO_BUF_NR];

static const char *const result_names[ECHO_NR] = {
    [ECHO_R_MAGIC] = "magic", [ECHO_R_EIP] = "EIP", [ECHO_R_EAX] = "EAX",
    [ECHO_R_EBX] = "EBX", [ECHO_R_ECX] = "ECX", [ECHO_R_EDX] = "EDX", [ECHO_R_ESI] = "ESI",
    [ECHO_R_EDI] = "EDI", [ECHO_R_EBP] = "EBP", [ECHO_R_ESP] = "ESP",
    [ECHO_R_EFLAGS] = "EFLAGS", [ECHO_R_CR0] = "CR0", [ECHO_R_CR4] = "CR4",
    [ECHO_R_DR7] = "DR7", [ECHO_R_CS] = "CS", [ECHO_R_DS] = "DS", [ECHO_R_ES] = "ES",
    [ECHO_R_SS] = "SS", [ECHO_R_GDTR_LIMIT] = "GDTR.limit", [ECHO_R_GDTR_BASE] = "GDTR.base",
    [ECHO_R_PRIV_STS] = "private STS", [ECHO_R_PUB_STS] = "public STS",
    [ECHO_R_TIS_LOC3_ACCESS] = "TIS locality 3 ACCESS", [ECHO_R_IMAGE] = "image dword",
    [ECHO_R_MISC_ENABLE] = "IA32_MISC_ENABLE",
    [ECHO_R_PRIV_STS_CLOSED] = "private STS after CMD.CLOSE-PRIVATE",
    [ECHO_R_PRIV_STS_REOPENED] = "private STS after CMD.OPEN-PRIVATE",
};

/* "<who> <name> = 0x..." for each of n values */
static void show_named(const char *who, const char *const *names, const volatile uint32_t *v,
                       unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        line(who);
        put_str(" ");
        put_str(names[i]);
        put_str(" = ");
        put_hex(v[i]);
        put_str("\n");
    }
}

/* "guest ESP at GETSEC", then every value the echo ACM saved: "ACM <name> = 0x..." */
static void show_acm_results(void)
{
    show("guest ESP at GETSEC", acmode_esp);
    show_named("ACM", result_names, acm_results, ECHO_NR);
}

struct gdtr {
    uint16_t limit;
    uint32_t base;
} __attribute__((packed));

/* this CPU's GDTR */
static struct gdtr read_gdtr(void)
{
    struct gdtr g;
    __asm__ volatile("sgdt %0" : "=m"(g));
    return g;
}

static uint32_t read_cr0(void)
{
    uint32_t v;
    __asm__ volatile("mov %%cr0, %0" : "=r"(v));
    return v;
}

static void write_cr0(uint32_t v)
{
    __asm__ volatile("mov %0, %%cr0" :: "r"(v));
}

uint32_t sinit_base(void)
{
    return rd32(TXT_PUB_CONFIG_REGS_BASE + TXTCR_SINIT_BASE);
}

/* the module, copied to SINIT.BASE (+ offset) with CR4.SMXE set and CR0 as ENTERACCS wants
 * it (NE set, caches on); its size, or 0 after a FAILED line */
uint32_t acm_setup(uint32_t offset)
{
    const struct mb1_info *mbi = getsec_mbi;
    if (!(mbi->flags & MB1_INFO_MODS) || mbi->mods_count < 1) {
        put_str("GETSEC: FAILED: no ACM: pass it as the first multiboot module\n");
        return 0;
    }
    const struct mb1_module *m = (const struct mb1_module *)mbi->mods_addr;
    uint32_t size = m->mod_end - m->mod_start;
    uint32_t base = sinit_base() + offset;
    copy_to(base, (const void *)m->mod_start, size);

    uint32_t cr4;
    __asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
    __asm__ volatile("mov %0, %%cr4" :: "r"(cr4 | CR4_SMXE));
    write_cr0((read_cr0() | CR0_NE) & ~(CR0_CD | CR0_NW));
    return size;
}

static uint32_t enteraccs_spin(uint32_t base, uint32_t size, uint32_t spin)
{
    for (unsigned i = 0; i < ECHO_NR; i++)
        acm_results[i] = 0;
    return acmode_getsec(GETSEC_ENTERACCS, base, size, acm_results, spin, 0);
}

static uint32_t enteraccs(uint32_t base, uint32_t size)
{
    return enteraccs_spin(base, size, 0);
}

uint32_t acmode_private_writes(const struct txt_priv_write *w, unsigned n)
{
    uint32_t size = acm_setup(0);
    if (!size || n > ECHO_IN_WRITES)
        return GETSEC_FAULT;
    for (unsigned i = 0; i < ECHO_IN_WRITES; i++) {
        acm_results[ECHO_IN_WRITE0_OFF + 2 * i] = i < n ? w[i].off : 0;
        acm_results[ECHO_IN_WRITE0_VAL + 2 * i] = i < n ? w[i].val : 0;
    }
    uint32_t r = enteraccs(sinit_base(), size);
    for (unsigned i = ECHO_NR; i < ECHO_BUF_NR; i++)    /* the next ENTERACCS writes nothing */
        acm_results[i] = 0;
    return r;
}

void acmode_case_enteraccs(void)
{
    uint32_t size = acm_setup(0);
    if (!size)
        return;
    struct gdtr gdtr = read_gdtr();
    uint16_t cs;
    __asm__ volatile("mov %%cs, %0" : "=r"(cs));
    show("SINIT.BASE", sinit_base());
    show("module size", size);
    show("guest GDTR.limit", gdtr.limit);
    show("guest GDTR.base", gdtr.base);
    show("guest CS", cs);
    show("guest CR0", read_cr0());
    /* every IA32_MISC_ENABLE bit ENTERACCS clears, and two it keeps (7, 16) */
    uint64_t misc_enable;
    if (!report("WRMSR 0x1a0", probe_wrmsr(MSR_IA32_MISC_ENABLE, MISC_ENABLE_PATTERN)) ||
        !show_rdmsr(MSR_IA32_MISC_ENABLE, &misc_enable))
        return;
    if (!report("ENTERACCS", enteraccs(sinit_base(), size)))
        return;
    show_acm_results();
    /* CMD.OPEN-PRIVATE from outside AC mode: the closed space ignores it */
    *(volatile uint32_t *)(TXT_PRIV_CONFIG_REGS_BASE + TXTCR_CMD_OPEN_PRIVATE) = 1;
    show("private STS outside AC mode", rd32(TXT_PRIV_CONFIG_REGS_BASE + TXTCR_STS));
    show("public STS outside AC mode", rd32(TXT_PUB_CONFIG_REGS_BASE + TXTCR_STS));
    show("TIS locality 3 ACCESS outside AC mode", *(volatile uint8_t *)0xfed43000u);
    show_rdmsr(MSR_IA32_MISC_ENABLE, &misc_enable);
    if (report("ENTERACCS again", enteraccs(sinit_base(), size)))
        show("ACM magic", acm_results[ECHO_R_MAGIC]);
}

#define DMA_MARK 0xededededu
#define DMA_BYTES 64u
/* the ACM's spin: 8M PAUSEs, each leaving TCG's translated block, take seconds: many times
 * edu's 100 ms */
#define DMA_SPIN 0x00800000u

void acmode_case_enteraccs_dma(void)
{
    static uint32_t mark[DMA_BYTES / 4];
    uint32_t size = acm_setup(0);
    if (!size)
        return;
    uint32_t edu = edu_find();
    line(edu ? "edu: found\n" : "edu: not found\n");
    if (!edu)
        return;
    for (unsigned i = 0; i < DMA_BYTES / 4; i++)
        mark[i] = DMA_MARK;
    edu_dma_start(edu, (uint32_t)mark, EDU_BUF, DMA_BYTES, 0);          /* RAM -> edu's buffer */
    while (edu_dma_busy(edu))
        ;
    edu_dma_start(edu, EDU_BUF, sinit_base(), DMA_BYTES, EDU_TO_RAM);   /* lands during the ACM's spin */
    if (!report("ENTERACCS", enteraccs_spin(sinit_base(), size, DMA_SPIN)))
        return;
    /* edu finished before EXITAC came back: its write landed while the ACM ran */
    show("edu DMA finished inside AC mode", !edu_dma_busy(edu));
    show("ACM magic", acm_results[ECHO_R_MAGIC]);
    show("ACM EDI", acm_results[ECHO_R_EDI]);
    show("ACM image dword", acm_results[ECHO_R_IMAGE]);
    show("RAM at SINIT.BASE", rd32(sinit_base()));
}

void acmode_case_cr0cd(void)
{
    uint32_t size = acm_setup(0);
    if (!size)
        return;
    uint32_t cr0 = read_cr0();
    write_cr0(cr0 | CR0_CD);
    uint32_t r = enteraccs(sinit_base(), size);
    write_cr0(cr0);
    report("ENTERACCS", r);
}

/* case=cpl3: ring 3 needs user segments, a TSS for the stack ring 0 takes the #GP on, and a way
 * back: getsec.c's handler resumes the probe in ring 3 (the IRET frame's CS), which returns to
 * ring 0 through a call gate. This GDT keeps getsec.S's 0x08 and 0x10. */
#define SEL_UCODE 0x1b                      /* 0x18, RPL 3 */
#define SEL_UDATA 0x23                      /* 0x20, RPL 3 */
#define SEL_TSS 0x28
#define SEL_GATE 0x33                       /* 0x30, RPL 3 */
#define STR_(x) #x
#define STR(x) STR_(x)
static uint64_t cpl3_gdt[7];
static uint32_t cpl3_tss[26];               /* 104 bytes: ESP0 at 4, SS0 at 8 */
static uint8_t cpl3_stack0[4096] __attribute__((aligned(16)));
static uint8_t cpl3_stack3[4096] __attribute__((aligned(16)));
uint32_t cpl3_saved_esp;
/* uint32_t acmode_cpl3_enteraccs(uint32_t base, uint32_t size, uint32_t stack3): ENTERACCS
 * at CPL 3 on stack3; 0 if it completed, else getsec.c's fault word */
uint32_t acmode_cpl3_enteraccs(uint32_t base, uint32_t size, uint32_t stack3);
extern const char acmode_cpl3_back[];
__asm__(
    "    .text\n"
    "    .globl acmode_cpl3_enteraccs\n"
    "acmode_cpl3_enteraccs:\n"
    "    push %ebp\n"
    "    push %ebx\n"
    "    push %esi\n"
    "    push %edi\n"
    "    mov %esp, cpl3_saved_esp\n"
    "    mov 20(%esp), %ebx\n"
    "    mov 24(%esp), %ecx\n"
    "    mov 28(%esp), %edx\n"
    /* DS and ES usable in ring 3 and, still loaded, by the handler in ring 0 */
    "    mov $" STR(SEL_UDATA) ", %eax\n"
    "    mov %eax, %ds\n"
    "    mov %eax, %es\n"
    "    movl $1f, fault_resume\n"
    "    push $" STR(SEL_UDATA) "\n"        /* SS */
    "    push %edx\n"                       /* ESP */
    "    pushf\n"
    "    push $" STR(SEL_UCODE) "\n"        /* CS */
    "    push $2f\n"                        /* EIP */
    "    iret\n"
    "2:  mov $2, %eax\n"                    /* ring 3: ENTERACCS */
    "    .globl acmode_cpl3_getsec_insn\n"
    "acmode_cpl3_getsec_insn:\n"
    "    .byte 0x0f, 0x37\n"
    "    xor %eax, %eax\n"
    "1:  lcall $" STR(SEL_GATE) ", $0\n"    /* through the call gate; EAX kept */
    "    .globl acmode_cpl3_back\n"
    "acmode_cpl3_back:\n"                   /* ring 0 again, on the TSS's stack */
    "    mov $0x10, %edx\n"
    "    mov %edx, %ds\n"
    "    mov %edx, %es\n"
    "    mov cpl3_saved_esp, %esp\n"
    "    pop %edi\n"
    "    pop %esi\n"
    "    pop %ebx\n"
    "    pop %ebp\n"
    "    ret\n");

/* a segment descriptor: base, limit (20 bits), access byte, flags nibble */
static uint64_t seg_desc(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags)
{
    return (uint64_t)(limit & 0xffff) | (uint64_t)(base & 0xffffff) << 16 |
           (uint64_t)access << 40 | (uint64_t)((limit >> 16) & 0xf) << 48 |
           (uint64_t)(flags & 0xf) << 52 | (uint64_t)(base >> 24) << 56;
}

void acmode_case_cpl3(void)
{
    uint32_t size = acm_setup(0);
    if (!size)
        return;
    uint32_t back = (uint32_t)acmode_cpl3_back;
    cpl3_gdt[1] = seg_desc(0, 0xfffff, 0x9b, 0xc);           /* 0x08 ring 0 code */
    cpl3_gdt[2] = seg_desc(0, 0xfffff, 0x93, 0xc);           /* 0x10 ring 0 data */
    cpl3_gdt[3] = seg_desc(0, 0xfffff, 0xfb, 0xc);           /* 0x18 ring 3 code */
    cpl3_gdt[4] = seg_desc(0, 0xfffff, 0xf3, 0xc);           /* 0x20 ring 3 data */
    cpl3_gdt[5] = seg_desc((uint32_t)cpl3_tss, sizeof(cpl3_tss) - 1, 0x89, 0);
    /* 32-bit call gate, DPL 3, to 0x08:acmode_cpl3_back */
    cpl3_gdt[6] = (uint64_t)(back & 0xffff) | (uint64_t)0x08 << 16 | (uint64_t)0xec << 40 |
                  (uint64_t)(back >> 16) << 48;
    cpl3_tss[1] = (uint32_t)(cpl3_stack0 + sizeof(cpl3_stack0));
    cpl3_tss[2] = 0x10;
    struct {
        uint16_t limit;
        uint32_t base;
    } __attribute__((packed)) gdtr = { sizeof(cpl3_gdt) - 1, (uint32_t)cpl3_gdt };
    /* getsec.S's GDT is not put back: the case ends here, and nothing after needs it */
    __asm__ volatile("lgdt %0; ltr %w1" :: "m"(gdtr), "r"(SEL_TSS));
    report("ENTERACCS at CPL 3",
           acmode_cpl3_enteraccs(sinit_base(), size,
                                 (uint32_t)(cpl3_stack3 + sizeof(cpl3_stack3))));
}

void acmode_case_unaligned_base(void)
{
    uint32_t size = acm_setup(64);
    if (size)
        report("ENTERACCS", enteraccs(sinit_base() + 64, size));
}

void acmode_case_size_not_64(void)
{
    uint32_t size = acm_setup(0);
    if (size)
        report("ENTERACCS", enteraccs(sinit_base(), size + 4));
}

void acmode_case_size_too_big(void)
{
    if (acm_setup(0))
        report("ENTERACCS", enteraccs(sinit_base(), ACM_MAX_SIZE + 64));
}

static uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static void lapic_ipi(uint32_t icr)
{
    *(volatile uint32_t *)LAPIC_ICR_HI = AP_APIC_ID << 24;
    *(volatile uint32_t *)LAPIC_ICR_LO = icr;
    while (*(volatile uint32_t *)LAPIC_ICR_LO & ICR_BUSY)
        ;
}

/* TSC ticks: TCG's TSC runs at the host's rate, a few GHz */
#define TICKS_100MS 300000000ull

static void settle(void)
{
    uint64_t t0 = rdtsc();
    while (rdtsc() - t0 < TICKS_100MS)
        __asm__ volatile("pause");
}

/* the AP counting: the counter moved within tenths * 0.1 s */
static uint32_t ap_counting_within(unsigned tenths)
{
    uint64_t t0 = rdtsc();
    while (rdtsc() - t0 < tenths * TICKS_100MS)
        if (*(volatile uint32_t *)AP_COUNTER != 0)
            return 1;
    return 0;
}

/* ... within about 10 s (the AP's vCPU thread may wait for the host's CPUs when other QEMUs
 * run beside this one) */
static uint32_t ap_counting(void)
{
    return ap_counting_within(100);
}

/* the AP stopped counting: the counter still for 0.1 s, within about 5 s */
static uint32_t ap_stopped(void)
{
    for (unsigned i = 0; i < 50; i++) {
        uint32_t c = *(volatile uint32_t *)AP_COUNTER;
        settle();
        if (c == *(volatile uint32_t *)AP_COUNTER)
            return 1;
    }
    return 0;
}

/* the AP started by INIT-SIPI into a real-mode loop at AP_CODE: caches on (CR0.CD and NW
 * clear: ENTERACCS wants them clear on every CPU), then mov ax, cs; mov ds, ax;
 * 1: inc dword [0x40]; jmp 1b */
static void ap_start_counting(void)
{
    static const uint8_t loop[] = { 0x0f, 0x20, 0xc0, 0x66, 0x25, 0xff, 0xff, 0xff, 0x9f,
                                    0x0f, 0x22, 0xc0, 0x8c, 0xc8, 0x8e, 0xd8,
                                    0x66, 0xff, 0x06, 0x40, 0x00, 0xeb, 0xf9 };
    copy_to(AP_CODE, loop, sizeof(loop));
    *(volatile uint32_t *)AP_COUNTER = 0;
    lapic_ipi(ICR_INIT);                    /* whatever the BIOS left it doing: wait-for-SIPI */
    settle();
    lapic_ipi(ICR_SIPI | AP_CODE >> 12);
}

void acmode_case_ap_running(void)
{
    uint32_t size = acm_setup(0);
    if (!size)
        return;
    ap_start_counting();
    show("AP counting", ap_counting());
    /* wait-for-SIPI again; an INIT leaves CR0.CD and NW as they were (SDM vol. 3A table
     * 10-1, note 2) */
    lapic_ipi(ICR_INIT);
    show("AP stopped by INIT", ap_stopped());
    /* the AP takes the INIT on its own vCPU thread and nothing tells the BSP when: a stalled
     * thread looks stopped too, so a #GP is tried again for a while; a model that refuses a
     * CPU in wait-for-SIPI still fails every time */
    uint32_t r = enteraccs(sinit_base(), size);
    for (unsigned i = 0; i < 50 && r; i++) {
        settle();
        r = enteraccs(sinit_base(), size);
    }
    report("AP in wait-for-SIPI: ENTERACCS", r);
    show("AP in wait-for-SIPI: ACM magic", acm_results[ECHO_R_MAGIC]);

    *(volatile uint32_t *)AP_COUNTER = 0;
    lapic_ipi(ICR_SIPI | AP_CODE >> 12);
    show("AP counting again", ap_counting());
    report("AP running: ENTERACCS", enteraccs(sinit_base(), size));
}

static uint32_t senter(uint32_t size, uint32_t edx);

/* the cases whose first boot must end in a TXT reset: in the boot after it (ESTS.TXT_RESET
 * set) "boot 2", ERRORCODE, ESTS and, with pcr17, PCR 17, and 1; else "boot 1" and 0 */
static int after_txt_reset(int pcr17)
{
    uint32_t ests = rd32(TXT_PUB_CONFIG_REGS_BASE + TXTCR_ESTS);
    if (!(ests & TXT_ESTS_TXT_RESET)) {
        line("boot 1\n");
        return 0;
    }
    line("boot 2\n");
    show("ERRORCODE", rd32(TXT_PUB_CONFIG_REGS_BASE + TXTCR_ERRORCODE));
    show("ESTS", ests);
    if (pcr17)
        show_pcr17("PCR 17");
    return 1;
}

static void bad_acm(uint32_t leaf)
{
    if (after_txt_reset(leaf == GETSEC_SENTER))
        return;
    uint32_t size = acm_setup(0);
    if (size && leaf == GETSEC_SENTER)
        report("SENTER", senter(size, 0));
    else if (size)
        report("ENTERACCS", enteraccs(sinit_base(), size));
}

void acmode_case_bad_acm(void)
{
    bad_acm(GETSEC_ENTERACCS);
}

/* case=bad-acm-elsewhere: bad-acm with the module at SINIT.BASE + 64 KiB (4 KiB aligned, inside
 * the SINIT region), where ENTERACCS runs it as well */
void acmode_case_bad_acm_elsewhere(void)
{
    if (after_txt_reset(0))
        return;
    uint32_t size = acm_setup(ACM_ELSEWHERE);
    if (size)
        report("ENTERACCS", enteraccs(sinit_base() + ACM_ELSEWHERE, size));
}

/* ---- GETSEC[SENTER] (qemu/patches 0006, docs/txt-platform.md "0006") ---- */

/* SENTER with the module at SINIT.BASE and the echo ACM told to leave to acmode_return with
 * the guest's GDT (SENTER itself passes neither); 0 or the fault word */
static uint32_t senter(uint32_t size, uint32_t edx)
{
    struct gdtr gdtr = read_gdtr();
    for (unsigned i = 0; i < ECHO_BUF_NR; i++)
        acm_results[i] = 0;
    acm_results[ECHO_IN_EXIT_EIP] = (uint32_t)acmode_return;
    acm_results[ECHO_IN_EXIT_GDTR_LIMIT] = gdtr.limit;
    acm_results[ECHO_IN_EXIT_GDTR_BASE] = gdtr.base;
    uint32_t r = acmode_getsec(GETSEC_SENTER, sinit_base(), size, acm_results, 0, edx);
    for (unsigned i = ECHO_NR; i < ECHO_BUF_NR; i++)     /* an ENTERACCS after this uses EBX */
        acm_results[i] = 0;
    return r;
}

void show_pcr17(const char *what)
{
    uint8_t d[32];
    line(what);
    if (!tpm_pcr_sha256(17, d)) {
        put_str(": the TPM did not answer TPM2_PCR_Read\n");
        return;
    }
    put_str(" = ");
    for (unsigned i = 0; i < sizeof(d); i++) {
        put_char("0123456789abcdef"[d[i] >> 4]);
        put_char("0123456789abcdef"[d[i] & 15]);
    }
    put_str("\n");
}

uint32_t acmode_senter(void)
{
    uint32_t size = acm_setup(0);
    return size ? senter(size, 0) : GETSEC_FAULT;
}

void acmode_case_senter(void)
{
    uint32_t size = acm_setup(0);
    if (!size)
        return;
    show("SINIT.BASE", sinit_base());
    show("module size", size);
    show("public STS before", rd32(TXT_PUB_CONFIG_REGS_BASE + TXTCR_STS));
    show_pcr17("PCR 17 before");
    if (!report("SENTER", senter(size, 0)))
        return;
    show_acm_results();
    show("public STS after", rd32(TXT_PUB_CONFIG_REGS_BASE + TXTCR_STS));
    show("private STS after", rd32(TXT_PRIV_CONFIG_REGS_BASE + TXTCR_STS));
    show("TIS locality 3 ACCESS after", *(volatile uint8_t *)0xfed43000u);
    show_pcr17("PCR 17 after");
    /* SENTERFLAG is set: a second SENTER is #GP(0) */
    report("SENTER again", senter(size, 0));
}

void acmode_case_senter_edx1(void)
{
    uint32_t size = acm_setup(0);
    if (size)
        report("SENTER with EDX = 1", senter(size, 1));
}

void acmode_case_senter_unlocked(void)
{
    uint64_t fc;
    uint32_t size = acm_setup(0);
    if (size && show_rdmsr(0x3a, &fc))
        report("SENTER", senter(size, 0));
}

void acmode_case_senter_bad_acm(void)
{
    bad_acm(GETSEC_SENTER);
}

/* our SINIT (out/sinit.bin as the module) with OsMleData's size field 4 GiB, beyond the heap:
 * the SINIT's heap check (src/txt/heap.c) fails the launch, ERRORCODE progress 0x03, TXT reset */
void acmode_case_senter_bad_heap(void)
{
    if (after_txt_reset(1))
        return;
    uint32_t size = acm_setup(0);
    if (!size)
        return;
    uint32_t heap = rd32(TXT_PUB_CONFIG_REGS_BASE + TXTCR_HEAP_BASE);
    volatile uint32_t *os_mle = (volatile uint32_t *)(heap + rd32(heap));  /* after BiosData */
    os_mle[0] = 0;
    os_mle[1] = 1;
    report("SENTER", senter(size, 0));
}

/* the AP counting (ap_start_counting), then SENTER: 1 once the AP counted, SENTER came back
 * and the AP stopped, each printed; 0 after a line saying otherwise */
static int ap_counting_then_senter(void)
{
    uint32_t size = acm_setup(0);
    if (!size)
        return 0;
    ap_start_counting();
    show("AP counting", ap_counting());
    if (!report("SENTER", senter(size, 0)))
        return 0;
    show("ACM magic", acm_results[ECHO_R_MAGIC]);
    show("AP stopped", ap_stopped());
    return 1;
}

/* the counter cleared, then INIT-SIPI-SIPI to the AP's counting loop */
static void ap_init_sipi_sipi(void)
{
    *(volatile uint32_t *)AP_COUNTER = 0;
    lapic_ipi(ICR_INIT);
    settle();
    lapic_ipi(ICR_SIPI | AP_CODE >> 12);
    lapic_ipi(ICR_SIPI | AP_CODE >> 12);
}

/* the AP, counting before SENTER, sleeps from the rendezvous on: its counter stops, and an
 * INIT-SIPI-SIPI sent to it afterwards (latched, masked) does not start it */
void acmode_case_senter_ap_running(void)
{
    if (!ap_counting_then_senter())
        return;
    ap_init_sipi_sipi();
    show("AP counting after INIT-SIPI-SIPI", ap_counting_within(20));
    show_pcr17("PCR 17 after");
}

/* ---- GETSEC[WAKEUP] and [SEXIT] (qemu/patches 0007, docs/txt-platform.md "0007") ---- */

#define GETSEC_SEXIT 5u
#define GETSEC_WAKEUP 8u
#define WAKEUP_MAGIC 0x504b4157u            /* "WAKP", written last by the woken AP */
/* the AP's report, dwords (the asm below needs numbers, not an enum) */
#define WK_MAGIC 0
#define WK_EIP 1
#define WK_CR0 2
#define WK_CR4 3
#define WK_EFLAGS 4
#define WK_CS 5
#define WK_DS 6
#define WK_ES 7
#define WK_SS 8
#define WK_DR7 9
#define WK_GDTR_LIMIT 10
#define WK_GDTR_BASE 11
#define WK_NR 12
static const char *const wakeup_names[WK_NR] = {
    [WK_MAGIC] = "magic", [WK_EIP] = "EIP", [WK_CR0] = "CR0", [WK_CR4] = "CR4",
    [WK_EFLAGS] = "EFLAGS", [WK_CS] = "CS", [WK_DS] = "DS", [WK_ES] = "ES", [WK_SS] = "SS",
    [WK_DR7] = "DR7", [WK_GDTR_LIMIT] = "GDTR.limit", [WK_GDTR_BASE] = "GDTR.base",
};
/* what the AP found at the join entry; its own stack (WAKEUP defines no ESP) */
volatile uint32_t wakeup_ap[WK_NR];
uint8_t wakeup_ap_stack[256] __attribute__((aligned(16)));
extern const char wakeup_ap_entry[];
__asm__(
    "    .text\n"
    "    .globl wakeup_ap_entry\n"
    "wakeup_ap_entry:\n"
    "    mov $wakeup_ap_stack + 256, %esp\n"  /* EFLAGS first: MOV changes no flag */
    "    pushfl\n"
    "    popl wakeup_ap + 4 * " STR(WK_EFLAGS) "\n"
    "    call 1f\n"
    "1:  popl %eax\n"
    "    sub $(1b - wakeup_ap_entry), %eax\n"
    "    mov %eax, wakeup_ap + 4 * " STR(WK_EIP) "\n"
    "    mov %cr0, %eax\n"
    "    mov %eax, wakeup_ap + 4 * " STR(WK_CR0) "\n"
    "    mov %cr4, %eax\n"
    "    mov %eax, wakeup_ap + 4 * " STR(WK_CR4) "\n"
    "    mov %dr7, %eax\n"
    "    mov %eax, wakeup_ap + 4 * " STR(WK_DR7) "\n"
    "    xor %eax, %eax\n"
    "    mov %cs, %ax\n"
    "    mov %eax, wakeup_ap + 4 * " STR(WK_CS) "\n"
    "    mov %ds, %ax\n"
    "    mov %eax, wakeup_ap + 4 * " STR(WK_DS) "\n"
    "    mov %es, %ax\n"
    "    mov %eax, wakeup_ap + 4 * " STR(WK_ES) "\n"
    "    mov %ss, %ax\n"
    "    mov %eax, wakeup_ap + 4 * " STR(WK_SS) "\n"
    "    sub $8, %esp\n"
    "    sgdt (%esp)\n"
    "    movzwl (%esp), %eax\n"
    "    mov %eax, wakeup_ap + 4 * " STR(WK_GDTR_LIMIT) "\n"
    "    mov 2(%esp), %eax\n"
    "    mov %eax, wakeup_ap + 4 * " STR(WK_GDTR_BASE) "\n"
    "    movl $" STR(WAKEUP_MAGIC) ", wakeup_ap\n"
    "2:  cli\n"
    "    hlt\n"
    "    jmp 2b\n");

/* tboot's mle_join_t: the GDT and selector the woken RLPs get, and their entry point */
static struct {
    uint32_t gdt_limit, gdt_base, seg_sel, entry_point;
} mle_join __attribute__((aligned(16)));

static uint32_t getsec_leaf(uint32_t leaf)
{
    struct regs r = { .eax = leaf };
    return probe_getsec(&r);
}

/* the join structure (the guest's own GDT, selector seg_sel, wakeup_ap_entry) written to
 * MLE.JOIN through the private space the ACM left open after SENTER; senter_and_join does the
 * SENTER first */
static uint32_t join(uint32_t seg_sel)
{
    struct gdtr gdtr = read_gdtr();
    mle_join.gdt_limit = gdtr.limit;
    mle_join.gdt_base = gdtr.base;
    mle_join.seg_sel = seg_sel;
    mle_join.entry_point = (uint32_t)wakeup_ap_entry;
    wr64(TXT_PRIV_CONFIG_REGS_BASE + TXTCR_MLE_JOIN, (uint32_t)&mle_join);
    show("MLE.JOIN", rd64(TXT_PRIV_CONFIG_REGS_BASE + TXTCR_MLE_JOIN));
    return 1;
}

static uint32_t senter_and_join(uint32_t seg_sel)
{
    uint32_t size = acm_setup(0);
    return size && report("SENTER", senter(size, 0)) && join(seg_sel);
}

/* the NMIs the AP's real-mode handler counted within about 5 s (at least `want`) */
static uint32_t ap_nmis_within(uint32_t want)
{
    for (unsigned i = 0; i < 50 && *(volatile uint32_t *)AP_NMI_COUNTER < want; i++)
        settle();
    return *(volatile uint32_t *)AP_NMI_COUNTER;
}

/* An NMI sent to an AP in SENTER sleep (an attacker's NMI source aimed at a CPU the MLE has not
 * woken): the AP's own handler never runs and the AP does not run again. The same NMI before
 * SENTER is taken: the handler and its vector work. */
void acmode_case_senter_ap_nmi(void)
{
    /* inc dword [0x44] (DS = CS: the counting loop set it); iret */
    static const uint8_t handler[] = { 0x66, 0xff, 0x06, 0x44, 0x00, 0xcf };
    copy_to(AP_NMI_HANDLER, handler, sizeof(handler));
    *(volatile uint32_t *)AP_NMI_COUNTER = 0;
    /* the IVT lies in page 0, which GCC takes for a null dereference: it must not see the value */
    volatile uint16_t *ivt_nmi = (volatile uint16_t *)IVT_NMI;
    __asm__("" : "+r"(ivt_nmi));
    ivt_nmi[0] = AP_NMI_HANDLER - AP_CODE;
    ivt_nmi[1] = AP_CODE >> 4;
    uint32_t size = acm_setup(0);
    if (!size)
        return;
    ap_start_counting();
    show("AP counting", ap_counting());
    lapic_ipi(ICR_NMI);
    show("AP NMIs before SENTER", ap_nmis_within(1));
    if (!report("SENTER", senter(size, 0)))
        return;
    show("AP stopped", ap_stopped());
    *(volatile uint32_t *)AP_COUNTER = 0;
    lapic_ipi(ICR_NMI);
    show("AP NMIs after SENTER", ap_nmis_within(2));
    show("AP counting after the NMI", ap_counting_within(20));
    show_pcr17("PCR 17 after");
}

void acmode_case_wakeup(void)
{
    if (!senter_and_join(0x08))
        return;
    if (!report("WAKEUP", getsec_leaf(GETSEC_WAKEUP)))
        return;
    uint64_t t0 = rdtsc();
    while (wakeup_ap[WK_MAGIC] != WAKEUP_MAGIC && rdtsc() - t0 < 100 * TICKS_100MS)
        ;
    show_named("AP", wakeup_names, wakeup_ap, WK_NR);
    if (!report("SEXIT", getsec_leaf(GETSEC_SEXIT)))
        return;
    show("public STS after SEXIT", rd32(TXT_PUB_CONFIG_REGS_BASE + TXTCR_STS));
    show("private STS after SEXIT", rd32(TXT_PRIV_CONFIG_REGS_BASE + TXTCR_STS));
    report("SEXIT again", getsec_leaf(GETSEC_SEXIT));
    report("WAKEUP after SEXIT", getsec_leaf(GETSEC_WAKEUP));
}

/* the AP, counting before SENTER, sent INIT-SIPI-SIPI while it sleeps (an attacker's start
 * vector: the counting loop), then WAKEUP: the latched INIT is taken once WAKEUP unmasks it and
 * the SIPIs were dropped (the AP was not waiting for one), so it runs neither its old code nor
 * the join entry */
void acmode_case_wakeup_after_init_sipi(void)
{
    if (!ap_counting_then_senter())
        return;
    ap_init_sipi_sipi();
    if (!join(0x08) || !report("WAKEUP", getsec_leaf(GETSEC_WAKEUP)))
        return;
    show("AP counting after WAKEUP", ap_counting_within(20));
    show("AP magic", wakeup_ap[WK_MAGIC]);
}

void acmode_case_wakeup_before_senter(void)
{
    acm_setup(0);                           /* CR4.SMXE and the caches as for the others */
    report("WAKEUP", getsec_leaf(GETSEC_WAKEUP));
    report("SEXIT", getsec_leaf(GETSEC_SEXIT));
}

static void join_refused(uint32_t seg_sel)
{
    if (!after_txt_reset(0) && senter_and_join(seg_sel))
        report("WAKEUP", getsec_leaf(GETSEC_WAKEUP));
}

void acmode_case_join_bad_selector(void)
{
    join_refused(0x18);     /* its data selector 0x20 lies past the guest's GDT (limit 23) */
}

void acmode_case_join_wrapping_selector(void)
{
    join_refused(0xfffffff8u);  /* + 15 wraps past 2^32 to 7, inside any limit */
}

/* an NMI sent to this CPU (APIC ID 0, physical), 0.1 s to take it, then an IRET to the next
 * instruction (the first IRET since the launch), and 0.1 s again: how many were taken before
 * and after that IRET */
static void nmi_around_iret(uint32_t launched)
{
    if (!report(launched == GETSEC_SENTER ? "SENTER" : "ENTERACCS",
                launched == GETSEC_SENTER ? acmode_senter() : enteraccs(sinit_base(), acm_setup(0))))
        return;
    getsec_nmis = 0;
    getsec_nmi_counting = 1;
    *(volatile uint32_t *)LAPIC_ICR_HI = 0;
    *(volatile uint32_t *)LAPIC_ICR_LO = ICR_NMI;
    settle();
    show("NMIs taken before an IRET", getsec_nmis);
    __asm__ volatile("pushfl; pushl %%cs; pushl $1f; iret; 1:" ::: "memory");
    settle();
    show("NMIs taken after an IRET", getsec_nmis);
    getsec_nmi_counting = 0;
}

void acmode_case_nmi_after_senter(void)
{
    nmi_around_iret(GETSEC_SENTER);
}

void acmode_case_nmi_after_enteraccs(void)
{
    nmi_around_iret(GETSEC_ENTERACCS);
}
