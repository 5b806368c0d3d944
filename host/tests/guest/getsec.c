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
 *
 * GETSEC leaves get their own cases (probe_getsec, getsec.S).
 */
#include "abi/multiboot1.h"

#include <stddef.h>
#include <stdint.h>

void getsec_main(uint32_t magic, uint32_t info) __attribute__((noreturn));

#define COM1 0x3f8
#define GETSEC_FAULT 0x80000000u

#define MSR_IA32_PLATFORM_ID 0x17u
#define MSR_IA32_FEATURE_CONTROL 0x3au
#define CR4_SMXE (1u << 14)

/* getsec.S */
struct regs {
    uint32_t eax, ebx, ecx, edx, esi, edi;
};
uint32_t probe_rdmsr(uint32_t msr, uint64_t *val);
uint32_t probe_wrmsr(uint32_t msr, uint64_t val);
uint32_t probe_write_cr4(uint32_t val);
uint32_t probe_getsec(struct regs *r);
extern const uint32_t idt_stub_table[32];

/* set by a probe around its instruction: where the trap handler resumes it */
volatile uint32_t fault_resume;
static uint32_t fault_eip;

static inline void outb(uint16_t p, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(p)); }
static inline void outw(uint16_t p, uint16_t v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(p)); }
static inline uint8_t inb(uint16_t p) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(p)); return v; }

static void put_char(char c)
{
    while (!(inb(COM1 + 5) & 0x20))
        ;
    outb(COM1, (uint8_t)c);
}

static void put_str(const char *s)
{
    while (*s)
        put_char(*s++);
}

static void put_hex(uint64_t v)
{
    put_str("0x");
    int shift = 60;
    while (shift > 0 && !((v >> shift) & 0xf))
        shift -= 4;
    for (; shift >= 0; shift -= 4)
        put_char("0123456789abcdef"[(v >> shift) & 0xf]);
}

static void put_dec(uint32_t v)
{
    char buf[11];
    int i = 10;
    buf[i] = 0;
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put_str(buf + i);
}

static const char *case_name = "?";

/* "GETSEC: <case>: " */
static void line(const char *what)
{
    put_str("GETSEC: ");
    put_str(case_name);
    put_str(": ");
    put_str(what);
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
static struct {
    uint16_t limit;
    uint32_t base;
} __attribute__((packed)) idtr;

static void idt_init(void)
{
    for (unsigned i = 0; i < 32; i++) {
        idt[i].off_lo = (uint16_t)idt_stub_table[i];
        idt[i].off_hi = (uint16_t)(idt_stub_table[i] >> 16);
        idt[i].sel = 0x08;
        idt[i].zero = 0;
        idt[i].type = 0x8e;              /* present, DPL 0, 32-bit interrupt gate */
    }
    idtr.limit = sizeof(idt) - 1;
    idtr.base = (uint32_t)idt;
    __asm__ volatile("lidt %0" :: "m"(idtr));
}

/* "<what>: ok" or "<what>: #GP(0) at 0x...": the result line of a probe that stores nothing */
static int report(const char *what, uint32_t r)
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

/* RDMSR: "RDMSR 0x3a = 0xff01" or its fault; returns 1 and the value when it read */
static int show_rdmsr(uint32_t msr, uint64_t *val)
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

/* getsec_chipset.c: the TXT chipset's cases */
void chipset_txtregs(void);
void chipset_biosdata(void);
void chipset_biosdata_reset(void);
void chipset_e820(void);

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    { "cpuid", case_cpuid },
    { "txtregs", chipset_txtregs },
    { "biosdata", chipset_biosdata },
    { "biosdata-reset", chipset_biosdata_reset },
    { "e820", chipset_e820 },
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
    put_str(" (cases: cpuid)\n");
    power_off();
}
