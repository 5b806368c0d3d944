/* SPDX-License-Identifier: MIT */
/*
 * getsec: a multiboot1 guest that probes the emulated Intel TXT CPU (issue 20,
 * docs/txt-platform.md section 2; tests/qemu/test_txt_cpu.py). QEMU starts it with -kernel;
 * the word case=NAME on its command line (-append) picks the scenario. It installs its own
 * GDT and IDT, so that a fault in a probed instruction is reported instead of resetting the
 * machine: every line on COM1 starts with "GETSEC: <case>: ", a faulting probe prints
 * "<what>: #GP(0) at 0x..." (or #UD, #<vector>(<error code>)), and a fault outside a probe
 * prints "unexpected ..." and ends the run. Each scenario ends with "GETSEC: <case>: done",
 * then the guest powers off: ACPI S5 through q35's PM1a_CNT (SeaBIOS's PM base 0x600), then
 * isa-debug-exit (port 0xf4) if present, then a halt.
 *
 *   case=cpuid   CPUID.1:ECX's SSE3, MONITOR and SMX; MOV to CR4 with SMXE and CR4 read back;
 *                RDMSR IA32_FEATURE_CONTROL (0x3a); WRMSR of it with the value read (locked:
 *                #GP(0)); RDMSR IA32_PLATFORM_ID (0x17)
 *   case=caps    GETSEC[CAPABILITIES] with EBX = 0 and 1 (CR4.SMXE set)
 *   case=params  GETSEC[PARAMETERS] for EBX = 0 to 5: EAX, EBX, ECX
 *   case=leaves  every other leaf (ENTERACCS, EXITAC, SENTER, SEXIT, SMCTRL, WAKEUP) with
 *                EBX = 0: the fault each gives before a launch
 *   case=nosmxe  every leaf 0-8 with CR4.SMXE clear
 *   case=leaf9   GETSEC with EAX = 1, 9 and 0x80000000 (no such leaf)
 *   case=prefix  GETSEC[CAPABILITIES] behind LOCK, REPNE, REP and the operand-size prefix
 * The TXT chipset's cases are in getsec_chipset.c, authenticated-code mode's in getsec_acmode.c.
 * VT-d's protected memory regions and the DPR (case=pmr, pmr-te, dpr) are in getsec_pmr.c.
 * The HPET's FSB delivery (case=hpet-fsb) is in getsec_hpet.c, the TPM localities as the
 * chipset gates them (case=tpm-loc) in getsec_tpm.c.
 */
#include "abi/multiboot1.h"
#include "com1.h"
#include "getsec.h"

#include <stddef.h>
#include <stdint.h>

void getsec_main(uint32_t magic, uint32_t info) __attribute__((noreturn));

#define MSR_IA32_PLATFORM_ID 0x17u
#define MSR_IA32_FEATURE_CONTROL 0x3au
#define CR4_SMXE (1u << 14)

/* getsec.S */
uint32_t probe_write_cr4(uint32_t val);
uint32_t probe_getsec_prefixed(uint32_t prefix);
extern const uint32_t idt_stub_table[32];

/* set by a probe around its instruction: where the trap handler resumes it */
volatile uint32_t fault_resume;
volatile uint32_t getsec_nmi_counting, getsec_nmis;
static uint32_t fault_eip;

static const char *case_name = "?";
const struct mb1_info *getsec_mbi;

void line(const char *what)
{
    put_str("GETSEC: ");
    put_str(case_name);
    put_str(": ");
    put_str(what);
}

void show(const char *what, uint64_t v)
{
    line(what);
    put_str(" = ");
    put_hex(v);
    put_str("\n");
}

static __attribute__((noreturn)) void power_off(void)
{
    outw(0x604, 1u << 13);              /* ACPI S5: SLP_TYP 0 (QEMU's S5), SLP_EN */
    outb(0xf4, 0);                      /* isa-debug-exit, if the machine has one */
    for (;;)
        __asm__ volatile("cli; hlt");
}

/* the exception, as the SDM names it: #UD, #GP(0), #PF(0x2), #<vector>(<code>) */
static void put_fault(uint32_t vector, uint32_t code, int has_code)
{
    static const char *const names[32] = {
        [0] = "#DE", [1] = "#DB", [2] = "NMI", [3] = "#BP", [4] = "#OF", [5] = "#BR",
        [6] = "#UD", [7] = "#NM", [8] = "#DF", [10] = "#TS", [11] = "#NP", [12] = "#SS",
        [13] = "#GP", [14] = "#PF", [16] = "#MF", [17] = "#AC", [18] = "#MC", [19] = "#XM",
        [20] = "#VE", [21] = "#CP",
    };
    if (vector < 32 && names[vector]) {
        put_str(names[vector]);
    } else {
        put_str("#");
        put_dec(vector);
    }
    if (has_code) {
        put_str("(");
        if (code)
            put_hex(code);
        else
            put_str("0");
        put_str(")");
    }
}

static int vector_has_code(uint32_t v)
{
    return v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30;
}

/* ---- the IDT ---- */
struct trap_frame {
    uint32_t edi, esi, ebp, esp, ebx, edx, ecx, eax;  /* pusha */
    uint32_t vector, code;
    uint32_t eip, cs, eflags;
};

void getsec_trap(struct trap_frame *f);
void getsec_trap(struct trap_frame *f)
{
    if (f->vector == 2 && getsec_nmi_counting) {
        getsec_nmis++;
        return;
    }
    if (fault_resume) {
        fault_eip = f->eip;
        f->eax = GETSEC_FAULT | f->vector << 16 | (f->code & 0xffff);
        f->eip = fault_resume;
        fault_resume = 0;
        return;
    }
    line("unexpected ");
    put_fault(f->vector, f->code, vector_has_code(f->vector));
    put_str(" at ");
    put_hex(f->eip);
    put_str("\n");
    power_off();
}

struct idt_gate {
    uint16_t off_lo, sel;
    uint8_t zero, type;
    uint16_t off_hi;
} __attribute__((packed));

static struct idt_gate idt[32];
struct {
    uint16_t limit;
    uint32_t base;
} __attribute__((packed)) getsec_idtr;      /* getsec.S's MLE entry loads it again */

static void idt_init(void)
{
    for (unsigned i = 0; i < 32; i++) {
        idt[i].off_lo = (uint16_t)idt_stub_table[i];
        idt[i].off_hi = (uint16_t)(idt_stub_table[i] >> 16);
        idt[i].sel = 0x08;
        idt[i].zero = 0;
        idt[i].type = 0x8e;              /* present, DPL 0, 32-bit interrupt gate */
    }
    getsec_idtr.limit = sizeof(idt) - 1;
    getsec_idtr.base = (uint32_t)idt;
    __asm__ volatile("lidt %0" :: "m"(getsec_idtr));
}

/* "<what>: ok" or "<what>: #GP(0) at 0x...": the result line of a probe that stores nothing */
int report(const char *what, uint32_t r)
{
    line(what);
    if (!(r & GETSEC_FAULT)) {
        put_str(": ok\n");
        return 1;
    }
    uint32_t vector = (r >> 16) & 0xff;
    put_str(": ");
    put_fault(vector, r & 0xffff, vector_has_code(vector));
    put_str(" at ");
    put_hex(fault_eip);
    put_str("\n");
    return 0;
}

static void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    __asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static uint32_t read_cr4(void)
{
    uint32_t v;
    __asm__ volatile("mov %%cr4, %0" : "=r"(v));
    return v;
}

static void put_bit(const char *what, uint32_t reg, unsigned bit)
{
    line(what);
    put_str(" = ");
    put_dec((reg >> bit) & 1);
    put_str("\n");
}

int show_rdmsr(uint32_t msr, uint64_t *val)
{
    uint64_t v = 0;
    uint32_t r = probe_rdmsr(msr, &v);
    if (r & GETSEC_FAULT) {
        line("RDMSR ");
        put_hex(msr);
        uint32_t vector = (r >> 16) & 0xff;
        put_str(": ");
        put_fault(vector, r & 0xffff, vector_has_code(vector));
        put_str(" at ");
        put_hex(fault_eip);
        put_str("\n");
        return 0;
    }
    line("RDMSR ");
    put_hex(msr);
    put_str(" = ");
    put_hex(v);
    put_str("\n");
    *val = v;
    return 1;
}

/* ---- the scenarios ---- */
static void case_cpuid(void)
{
    uint32_t a, b, c, d;
    cpuid(1, 0, &a, &b, &c, &d);
    line("CPUID.1:EAX = ");
    put_hex(a);
    put_str("\n");
    line("CPUID.1:ECX = ");
    put_hex(c);
    put_str("\n");
    put_bit("CPUID.1:ECX.SSE3", c, 0);
    put_bit("CPUID.1:ECX.MONITOR", c, 3);
    put_bit("CPUID.1:ECX.SMX", c, 6);

    uint32_t cr4 = read_cr4();
    line("CR4 = ");
    put_hex(cr4);
    put_str("\n");
    if (report("MOV CR4 |= SMXE", probe_write_cr4(cr4 | CR4_SMXE))) {
        cr4 = read_cr4();
        put_bit("CR4.SMXE", cr4, 14);
    }

    uint64_t fc = 0, pid = 0;
    if (show_rdmsr(MSR_IA32_FEATURE_CONTROL, &fc))
        report("WRMSR 0x3a (the value read)", probe_wrmsr(MSR_IA32_FEATURE_CONTROL, fc));
    show_rdmsr(MSR_IA32_FEATURE_CONTROL, &fc);
    show_rdmsr(MSR_IA32_PLATFORM_ID, &pid);
}

/* ---- GETSEC ---- */
static void set_smxe(int on)
{
    uint32_t cr4 = read_cr4();
    if (report(on ? "MOV CR4 |= SMXE" : "MOV CR4 &= ~SMXE",
               probe_write_cr4(on ? cr4 | CR4_SMXE : cr4 & ~CR4_SMXE)))
        put_bit("CR4.SMXE", read_cr4(), 14);
}

/* "GETSEC[<name>] EBX=<ebx>: EAX=... EBX=... ECX=..." or its fault */
static void show_getsec(const char *name, uint32_t leaf, uint32_t ebx)
{
    struct regs r = { .eax = leaf, .ebx = ebx };
    uint32_t rc = probe_getsec(&r);
    line("GETSEC[");
    put_str(name);
    put_str("] EBX=");
    put_hex(ebx);
    put_str(": ");
    if (rc & GETSEC_FAULT) {
        uint32_t vector = (rc >> 16) & 0xff;
        put_fault(vector, rc & 0xffff, vector_has_code(vector));
        put_str(" at ");
        put_hex(fault_eip);
    } else {
        put_str("EAX=");
        put_hex(r.eax);
        put_str(" EBX=");
        put_hex(r.ebx);
        put_str(" ECX=");
        put_hex(r.ecx);
    }
    put_str("\n");
}

static const char *const leaf_names[9] = {
    "CAPABILITIES", "1", "ENTERACCS", "EXITAC", "SENTER", "SEXIT", "PARAMETERS", "SMCTRL",
    "WAKEUP",
};

static void case_caps(void)
{
    set_smxe(1);
    show_getsec("CAPABILITIES", 0, 0);
    show_getsec("CAPABILITIES", 0, 1);
}

static void case_params(void)
{
    set_smxe(1);
    for (uint32_t i = 0; i <= 5; i++)
        show_getsec("PARAMETERS", 6, i);
}

static void case_leaves(void)
{
    set_smxe(1);
    static const uint32_t leaves[] = { 2, 3, 4, 5, 7, 8 };
    for (unsigned i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++)
        show_getsec(leaf_names[leaves[i]], leaves[i], 0);
}

static void case_nosmxe(void)
{
    set_smxe(0);
    for (uint32_t leaf = 0; leaf <= 8; leaf++)
        show_getsec(leaf_names[leaf], leaf, 0);
}

static void case_leaf9(void)
{
    set_smxe(1);
    show_getsec("1", 1, 0);
    show_getsec("9", 9, 0);
    show_getsec("0x80000000", 0x80000000u, 0);
}

static void case_prefix(void)
{
    static const struct {
        uint32_t byte;
        const char *what;
    } prefixes[] = {
        { 0, "GETSEC[CAPABILITIES] without a prefix" },
        { 0xf0, "LOCK GETSEC" }, { 0xf2, "REPNE GETSEC" }, { 0xf3, "REP GETSEC" },
        { 0x66, "66 GETSEC" },
    };
    set_smxe(1);
    for (unsigned i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        report(prefixes[i].what, probe_getsec_prefixed(prefixes[i].byte));
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    { "cpuid", case_cpuid },
    { "caps", case_caps },
    { "params", case_params },
    { "leaves", case_leaves },
    { "nosmxe", case_nosmxe },
    { "leaf9", case_leaf9 },
    { "prefix", case_prefix },
    { "txtregs", chipset_txtregs },
    { "biosdata", chipset_biosdata },
    { "biosdata-reset", chipset_biosdata_reset },
    { "e820", chipset_e820 },
    { "txt-dma", chipset_dma },
    { "enteraccs", acmode_case_enteraccs },
    { "enteraccs-dma", acmode_case_enteraccs_dma },
    { "cr0cd", acmode_case_cr0cd },
    { "cpl3", acmode_case_cpl3 },
    { "unaligned-base", acmode_case_unaligned_base },
    { "size-not-64", acmode_case_size_not_64 },
    { "size-too-big", acmode_case_size_too_big },
    { "ap-running", acmode_case_ap_running },
    { "bad-acm", acmode_case_bad_acm },
    { "bad-acm-elsewhere", acmode_case_bad_acm_elsewhere },
    { "senter", acmode_case_senter },
    { "senter-edx1", acmode_case_senter_edx1 },
    { "senter-unlocked", acmode_case_senter_unlocked },
    { "senter-ap-running", acmode_case_senter_ap_running },
    { "senter-ap-nmi", acmode_case_senter_ap_nmi },
    { "senter-bad-acm", acmode_case_senter_bad_acm },
    { "senter-bad-heap", acmode_case_senter_bad_heap },
    { "wakeup", acmode_case_wakeup },
    { "wakeup-before-senter", acmode_case_wakeup_before_senter },
    { "wakeup-after-init-sipi", acmode_case_wakeup_after_init_sipi },
    { "join-bad-selector", acmode_case_join_bad_selector },
    { "join-wrapping-selector", acmode_case_join_wrapping_selector },
    { "nmi-after-senter", acmode_case_nmi_after_senter },
    { "nmi-after-enteraccs", acmode_case_nmi_after_enteraccs },
    { "secrets-reset", reset_secrets_txt_reset },
    { "nosecrets-reset", reset_nosecrets_txt_reset },
    { "secrets-cf9", reset_secrets_cf9 },
    { "secrets-s3", reset_secrets_s3 },
    { "powercycle", reset_power_cycle },
    { "init-bsp", reset_init_bsp },
    { "pmr", pmr_off },
    { "pmr-te", pmr_te },
    { "dpr", pmr_dpr },
    { "sinit-dma", pmr_sinit_dma },
    { "hpet-fsb", hpet_fsb },
    { "tpm-loc", tpm_loc },
    { "tpm-loc-launched", tpm_loc_launched },
};

/* ---- the command line ---- */
static int word_is(const char *s, const char *w, size_t n)
{
    size_t i = 0;
    for (; i < n; i++)
        if (!w[i] || s[i] != w[i])
            return 0;
    return w[i] == 0;
}

/* the value of the first word "key=value" in the command line; its length in *len */
static const char *arg(const char *cmdline, const char *key, size_t *len)
{
    const char *p = cmdline;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *w = p;
        while (*p && *p != ' ')
            p++;
        const char *eq = w;
        while (eq < p && *eq != '=')
            eq++;
        if (eq < p && word_is(w, key, (size_t)(eq - w))) {
            *len = (size_t)(p - eq - 1);
            return eq + 1;
        }
    }
    return NULL;
}

void getsec_main(uint32_t magic, uint32_t info)
{
    const struct mb1_info *mbi = (const struct mb1_info *)info;
    getsec_mbi = mbi;
    idt_init();
    if (magic != MB1_BOOTLOADER_MAGIC || !(mbi->flags & MB1_INFO_CMDLINE)) {
        put_str("GETSEC: FAILED: not started by a multiboot1 loader with a command line\n");
        power_off();
    }
    size_t n = 0;
    const char *want = arg((const char *)mbi->cmdline, "case", &n);
    if (!want) {
        put_str("GETSEC: FAILED: no case= on the command line\n");
        power_off();
    }
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (word_is(want, cases[i].name, n)) {
            case_name = cases[i].name;
            line("start\n");
            cases[i].run();
            line("done\n");
            power_off();
        }
    }
    put_str("GETSEC: FAILED: unknown case=");
    for (size_t i = 0; i < n; i++)
        put_char(want[i]);
    put_str(" (the cases are listed at the top of host/tests/guest/getsec.c)\n");
    power_off();
}
