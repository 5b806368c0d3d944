/* SPDX-License-Identifier: MIT */
#include "cpustate.h"
#include "lib/bytes.h"
#include "abi/vsenter.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

/* ---- the parser: one line at a time, each field at a fixed place ---- */

struct line {
    const char *p, *end;        /* the rest of the current line */
};

static int hexv(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;                  /* QEMU prints lower case only */
}

static bool lit(struct line *l, const char *s)
{
    size_t n = strlen(s);

    if ((size_t)(l->end - l->p) < n || memcmp(l->p, s, n))
        return false;
    l->p += n;
    return true;
}

/* exactly `digits` lower-case hex digits */
static bool hexn(struct line *l, int digits, uint64_t *v)
{
    uint64_t x = 0;

    if (l->end - l->p < digits)
        return false;
    for (int i = 0; i < digits; i++) {
        int d = hexv(l->p[i]);

        if (d < 0)
            return false;
        x = x << 4 | (uint64_t)d;
    }
    l->p += digits;
    *v = x;
    return true;
}

/* a value ends at a space (taken) or at the end of the line */
static bool value_end(struct line *l)
{
    if (l->p < l->end && *l->p != ' ')
        return false;
    if (l->p < l->end)
        l->p++;
    return true;
}

/* "NAME=" and digits hex digits, then a space or the end of the line */
static bool field(struct line *l, const char *name, int digits, uint64_t *v)
{
    return lit(l, name) && hexn(l, digits, v) && value_end(l);
}

/* one decimal digit flag "NAME=%d" (QEMU prints 0 or 1, CPL 0-3) */
static bool flag(struct line *l, const char *name, unsigned max, unsigned *v)
{
    if (!lit(l, name) || l->p >= l->end || *l->p < '0' || *l->p > (char)('0' + max))
        return false;
    *v = (unsigned)(*l->p++ - '0');
    return value_end(l);
}

static bool at_end(const struct line *l)
{
    return l->p == l->end;
}

struct parser {
    const char *text;           /* the rest of the input */
    int lineno;
    struct line l;              /* the current line */
    char *err;
    size_t errsz;
};

/* next line into p->l; false at the end of the text */
static bool next_line(struct parser *p)
{
    const char *s = p->text, *nl;

    if (!*s)
        return false;
    nl = strchr(s, '\n');
    if (!nl)
        nl = s + strlen(s);
    p->l.p = s;
    p->l.end = nl;
    if (nl > s && nl[-1] == '\r')
        p->l.end--;
    p->text = *nl ? nl + 1 : nl;
    p->lineno++;
    return true;
}

static int perr(struct parser *p, int cpu, const char *what)
{
    return errorf(p->err, p->errsz, "info registers: CPU#%d, line %d: %s", cpu, p->lineno, what);
}

/* next line that is not empty */
static bool next_nonempty(struct parser *p)
{
    while (next_line(p))
        if (p->l.p != p->l.end)
            return true;
    return false;
}

static const char *const gpr64[16] = {
    "RAX=", "RBX=", "RCX=", "RDX=", "RSI=", "RDI=", "RBP=", "RSP=",
    "R8 =", "R9 =", "R10=", "R11=", "R12=", "R13=", "R14=", "R15=",
};
static const char *const gpr32[8] = { "EAX=", "EBX=", "ECX=", "EDX=", "ESI=", "EDI=", "EBP=", "ESP=" };
static const char *const segname[SEG_N] = { "ES =", "CS =", "SS =", "DS =", "FS =", "GS =", "LDT=", "TR =" };

/* "EIP=.. EFL=%08x [DOSZAPC] CPL=%d II=%d A20=%d SMM=%d HLT=%d" (RIP/RFL in the 64-bit layout) */
static bool ip_line(struct line *l, struct cpu_state *c)
{
    uint64_t v;
    const char *fl = "DOSZAPC";

    if (!field(l, c->cs64 ? "RIP=" : "EIP=", c->cs64 ? 16 : 8, &c->rip))
        return false;
    if (!field(l, c->cs64 ? "RFL=" : "EFL=", 8, &v))
        return false;
    c->eflags = (uint32_t)v;
    if (!lit(l, "[") || l->end - l->p < 9)
        return false;
    for (int i = 0; i < 7; i++)
        if (l->p[i] != '-' && l->p[i] != fl[i])
            return false;
    l->p += 7;
    return lit(l, "] ") && flag(l, "CPL=", 3, &c->cpl) && flag(l, "II=", 1, &c->ii) &&
           flag(l, "A20=", 1, &c->a20) && flag(l, "SMM=", 1, &c->smm) &&
           flag(l, "HLT=", 1, &c->hlt) && at_end(l);
}

/* "CS =0010 00000000 ffffffff 00cf9b00" and anything after a space (DPL=0 CS32 [-RA]) */
static bool seg_line(struct line *l, const char *name, bool wide, struct cpu_seg *s)
{
    uint64_t sel, lim, fl;

    if (!lit(l, name) || !hexn(l, 4, &sel) || !lit(l, " ") || !hexn(l, wide ? 16 : 8, &s->base) ||
        !lit(l, " ") || !hexn(l, 8, &lim) || !lit(l, " ") || !hexn(l, 8, &fl))
        return false;
    if (!at_end(l) && *l->p != ' ')
        return false;
    s->sel = (uint16_t)sel;
    s->limit = (uint32_t)lim;
    s->flags = (uint32_t)fl;
    return true;
}

/* "GDT=     %08x|%016 %08x" */
static bool dt_line(struct line *l, const char *name, bool *wide, uint64_t *base, uint32_t *limit)
{
    uint64_t lim;
    const char *sp;

    if (!lit(l, name) || !lit(l, "     "))
        return false;
    sp = memchr(l->p, ' ', (size_t)(l->end - l->p));
    if (!sp || (sp - l->p != 8 && sp - l->p != 16))
        return false;
    *wide = sp - l->p == 16;
    if (!hexn(l, (int)(sp - l->p), base) || !lit(l, " ") || !hexn(l, 8, &lim) || !at_end(l))
        return false;
    *limit = (uint32_t)lim;
    return true;
}

static int parse_cpu(struct parser *p, struct cpu_state *c)
{
    bool wide;
    int i = c->index;

    /* general registers: the layout follows from the first name */
    if (!next_nonempty(p))
        return perr(p, i, "no registers");
    c->cs64 = p->l.end - p->l.p >= 4 && !memcmp(p->l.p, "RAX=", 4);
    for (int k = 0; k < (c->cs64 ? 16 : 8); k++) {
        if (k % 4 == 0 && k && !next_line(p))
            return perr(p, i, "truncated in the general registers");
        if (!field(&p->l, c->cs64 ? gpr64[k] : gpr32[k], c->cs64 ? 16 : 8, &c->gpr[k]))
            return perr(p, i, "malformed general registers");
        if (k % 4 == 3 && !at_end(&p->l))
            return perr(p, i, "malformed general registers");
    }
    if (!next_line(p) || !ip_line(&p->l, c))
        return perr(p, i, "malformed or missing EIP/EFL line");
    for (int k = 0; k < SEG_N; k++)
        if (!next_line(p) || !seg_line(&p->l, segname[k], c->cs64, &c->seg[k]))
            return perr(p, i, "malformed or missing segment line");
    if (!next_line(p) || !dt_line(&p->l, "GDT=", &c->lma, &c->gdt_base, &c->gdt_limit))
        return perr(p, i, "malformed or missing GDT line");
    if (!next_line(p) || !dt_line(&p->l, "IDT=", &wide, &c->idt_base, &c->idt_limit) ||
        wide != c->lma)
        return perr(p, i, "malformed or missing IDT line");
    if (!next_line(p) || !field(&p->l, "CR0=", 8, &c->cr0) ||
        !field(&p->l, "CR2=", c->lma ? 16 : 8, &c->cr2) ||
        !field(&p->l, "CR3=", c->lma ? 16 : 8, &c->cr3) || !field(&p->l, "CR4=", 8, &c->cr4) ||
        !at_end(&p->l))
        return perr(p, i, "malformed or missing CR line");
    /* debug registers (two lines), CCS/CCD only with CPU_DUMP_CCOP, then EFER */
    if (!next_line(p) || !field(&p->l, "DR0=", 16, &c->dr[0]) ||
        !field(&p->l, "DR1=", 16, &c->dr[1]) || !field(&p->l, "DR2=", 16, &c->dr[2]) ||
        !field(&p->l, "DR3=", 16, &c->dr[3]) || !at_end(&p->l) || !next_line(p) ||
        !field(&p->l, "DR6=", 16, &c->dr[6]) || !field(&p->l, "DR7=", 16, &c->dr[7]) ||
        !at_end(&p->l))
        return perr(p, i, "malformed or missing DR lines");
    if (!next_line(p))
        return perr(p, i, "no EFER line");
    if (lit(&p->l, "CCS=") && !next_line(p))
        return perr(p, i, "no EFER line");
    if (!field(&p->l, "EFER=", 16, &c->efer) || !at_end(&p->l))
        return perr(p, i, "malformed or missing EFER line");
    return 0;
}

int cpustate_parse(const char *text, struct cpu_set *out, char *err, size_t errsz)
{
    struct parser p = { text, 0, { NULL, NULL }, err, errsz };
    bool have_line;

    memset(out, 0, sizeof(*out));
    have_line = next_nonempty(&p);
    if (!have_line)
        return errorf(err, errsz, "info registers: no output");
    while (have_line) {
        struct cpu_state *c;
        uint64_t idx = 0;
        int digits = 0;

        /* "CPU#<decimal>" */
        if (!lit(&p.l, "CPU#"))
            return errorf(err, errsz, "info registers: line %d: expected CPU#%d", p.lineno, out->n);
        while (p.l.p < p.l.end && *p.l.p >= '0' && *p.l.p <= '9' && digits < 4) {
            idx = idx * 10 + (uint64_t)(*p.l.p++ - '0');
            digits++;
        }
        if (!digits || !at_end(&p.l) || idx != (uint64_t)out->n)
            return errorf(err, errsz, "info registers: line %d: expected CPU#%d", p.lineno, out->n);
        if (out->n == CPUSTATE_MAX)
            return errorf(err, errsz, "info registers: more than %d CPUs", CPUSTATE_MAX);
        c = &out->cpu[out->n];
        c->index = out->n;
        if (parse_cpu(&p, c) != 0)
            return -1;
        out->n++;
        /* skip the FPU and vector lines up to the next CPU */
        have_line = false;
        while (next_nonempty(&p)) {
            if (p.l.end - p.l.p >= 4 && !memcmp(p.l.p, "CPU#", 4)) {
                have_line = true;
                break;
            }
        }
    }
    return 0;
}

/* ---- decisions ---- */

int cpustate_launch_cpu(const struct cpu_set *s, char *err, size_t errsz)
{
    int run = -1;
    const struct cpu_state *c;

    if (s->n < 1)
        return errorf(err, errsz, "no CPU");
    for (int i = 0; i < s->n; i++) {
        if (s->cpu[i].hlt)
            continue;
        if (run >= 0)
            return errorf(err, errsz, "CPUs %d and %d are both running: every CPU but the "
                        "launching one must be halted", run, i);
        run = i;
    }
    if (run < 0)
        return errorf(err, errsz, "every CPU is halted: none is launching");
    if (run != 0)
        return errorf(err, errsz, "CPU %d: the launching CPU is not the BSP (CPU 0)", run);
    for (int i = 0; i < s->n; i++)
        if (i != run && (s->cpu[i].eflags & EFL_IF))
            return errorf(err, errsz, "CPU %d is halted with interrupts on", i);
    c = &s->cpu[run];
    if (!(c->cr0 & CR0_PE))
        return errorf(err, errsz, "CPU %d is not in protected mode", run);
    if (c->cr0 & CR0_PG)
        return errorf(err, errsz, "CPU %d has paging on", run);
    if (c->efer & EFER_LMA)
        return errorf(err, errsz, "CPU %d is in long mode", run);
    if (c->eflags & EFL_VM)
        return errorf(err, errsz, "CPU %d is in virtual-8086 mode", run);
    if (c->smm)
        return errorf(err, errsz, "CPU %d is in SMM", run);
    if (c->cpl)
        return errorf(err, errsz, "CPU %d is at CPL %u", run, c->cpl);
    if (c->eflags & EFL_IF)
        return errorf(err, errsz, "CPU %d has interrupts on", run);
    if (!c->a20)
        return errorf(err, errsz, "CPU %d has A20 masked", run);
    if (c->idt_limit)
        return errorf(err, errsz, "CPU %d has an IDT (limit 0x%x): it must be empty", run,
                    c->idt_limit);
    if (c->gdt_limit < VSENTER_SEL_DATA + 7)
        return errorf(err, errsz, "CPU %d's GDT (limit 0x%x) has no entry 0x%x", run,
                    c->gdt_limit, VSENTER_SEL_DATA);
    if (c->dr[7] & DR7_ENABLES)
        return errorf(err, errsz, "CPU %d: DR7 0x%08llx: breakpoints armed", run,
                      (unsigned long long)c->dr[7]);
    return run;
}

#define DESC_ACCESSED (1ull << 40)
#define DESC_FLAT_CODE 0x00cf9b000000ffffull
#define DESC_FLAT_DATA 0x00cf93000000ffffull

int cpustate_check_gdt(const struct cpu_state *c, uint64_t start, const uint8_t *mle, size_t len,
                       struct vs_gdt *out, char *err, size_t errsz)
{
    uint64_t b = c->gdt_base, e = c->gdt_base + c->gdt_limit + 1;

    if (c->gdt_limit < VSENTER_SEL_DATA + 7)
        return errorf(err, errsz, "CPU %d's GDT (limit 0x%x) has no entry 0x%x", c->index,
                    c->gdt_limit, VSENTER_SEL_DATA);
    if (b < start || e > start + len)
        return errorf(err, errsz, "CPU %d's GDT 0x%08llx-0x%08llx is outside the MLE", c->index,
                    (unsigned long long)b, (unsigned long long)e);
    out->code = load_le64(mle + (b - start) + VSENTER_SEL_CODE);
    out->data = load_le64(mle + (b - start) + VSENTER_SEL_DATA);
    if ((out->code | DESC_ACCESSED) != DESC_FLAT_CODE)
        return errorf(err, errsz, "GDT entry 0x%x is %016llx, not flat 32-bit ring-0 code",
                    VSENTER_SEL_CODE, (unsigned long long)out->code);
    if ((out->data | DESC_ACCESSED) != DESC_FLAT_DATA)
        return errorf(err, errsz, "GDT entry 0x%x is %016llx, not flat ring-0 data",
                    VSENTER_SEL_DATA, (unsigned long long)out->data);
    return 0;
}

struct cpu_seg cpustate_desc_cache(uint16_t sel, uint64_t desc)
{
    uint32_t e1 = (uint32_t)desc, e2 = (uint32_t)(desc >> 32);
    struct cpu_seg s;

    s.sel = sel;
    s.base = (e1 >> 16) | ((e2 & 0xff) << 16) | (e2 & 0xff000000u);
    s.limit = (e1 & 0xffff) | (e2 & 0x000f0000u);
    if (e2 & (1u << 23))
        s.limit = s.limit << 12 | 0xfff;
    s.flags = e2 & 0x00ffff00u;
    return s;
}

static const char *const segnm[SEG_N] = { "ES", "CS", "SS", "DS", "FS", "GS", "LDT", "TR" };

int cpustate_verify_entry(const struct cpu_set *before, const struct cpu_set *after,
                          const struct vs_entry *e, char *err, size_t errsz)
{
    const struct cpu_state *c;
    static const int zero[] = { R_SI, R_DI, R_BP, R_SP };
    static const char *const zname[] = { "ESI", "EDI", "EBP", "ESP" };

    if (after->n != before->n)
        return errorf(err, errsz, "%d CPUs, %d before", after->n, before->n);
    if (e->cpu < 0 || e->cpu >= after->n)
        return errorf(err, errsz, "no CPU %d", e->cpu);
    c = &after->cpu[e->cpu];
    if (c->cs64 || c->lma)
        return errorf(err, errsz, "CPU %d is not in the 32-bit layout", e->cpu);
    if (c->rip != e->eip)
        return errorf(err, errsz, "EIP %08llx, expected %08x", (unsigned long long)c->rip, e->eip);
    if (c->gpr[R_AX] != e->eax || c->gpr[R_BX] != e->ebx || c->gpr[R_CX] != e->ecx)
        return errorf(err, errsz, "EAX/EBX/ECX %08llx/%08llx/%08llx, expected %08x/%08x/%08x",
                    (unsigned long long)c->gpr[R_AX], (unsigned long long)c->gpr[R_BX],
                    (unsigned long long)c->gpr[R_CX], e->eax, e->ebx, e->ecx);
    if (c->gpr[R_DX] != e->edx)
        return errorf(err, errsz, "EDX %08llx, expected %08x (the number of CPUs)",
                    (unsigned long long)c->gpr[R_DX], e->edx);
    for (size_t k = 0; k < sizeof(zero) / sizeof(zero[0]); k++)
        if (c->gpr[zero[k]])
            return errorf(err, errsz, "%s %08llx, expected 0", zname[k],
                        (unsigned long long)c->gpr[zero[k]]);
    if ((c->eflags & ~EFL_LAZY) != VSENTER_ENTRY_EFLAGS)
        return errorf(err, errsz, "EFLAGS %08x, expected %08x", c->eflags, VSENTER_ENTRY_EFLAGS);
    if (c->cpl || !c->a20 || c->smm || c->hlt)
        return errorf(err, errsz, "CPL=%u A20=%u SMM=%u HLT=%u, expected 0 1 0 0", c->cpl, c->a20,
                    c->smm, c->hlt);
    if (c->cr0 != VSENTER_ENTRY_CR0 || c->cr3 || c->cr4 || c->efer)
        return errorf(err, errsz, "CR0=%08llx CR3=%08llx CR4=%08llx EFER=%llx, expected %08x 0 0 0",
                    (unsigned long long)c->cr0, (unsigned long long)c->cr3,
                    (unsigned long long)c->cr4, (unsigned long long)c->efer, VSENTER_ENTRY_CR0);
    for (int k = SEG_ES; k <= SEG_GS; k++) {
        struct cpu_seg w = k == SEG_CS ? cpustate_desc_cache(VSENTER_SEL_CODE, e->gdt.code)
                                       : cpustate_desc_cache(VSENTER_SEL_DATA, e->gdt.data);
        const struct cpu_seg *s = &c->seg[k];

        if (w.base != 0 || w.limit != 0xffffffffu)
            return errorf(err, errsz, "the GDT entry for %s is not flat", segnm[k]);
        if (s->sel != w.sel || s->base != w.base || s->limit != w.limit || s->flags != w.flags)
            return errorf(err, errsz, "%s =%04x %08llx %08x %08x, expected %04x %08llx %08x %08x",
                        segnm[k], s->sel, (unsigned long long)s->base, s->limit, s->flags, w.sel,
                        (unsigned long long)w.base, w.limit, w.flags);
    }
    if (c->gdt_base != e->gdt_base || c->gdt_limit != e->gdt_limit)
        return errorf(err, errsz, "GDT %08llx+%x, expected %08llx+%x", (unsigned long long)c->gdt_base,
                    c->gdt_limit, (unsigned long long)e->gdt_base, e->gdt_limit);
    if (c->idt_limit)
        return errorf(err, errsz, "IDT limit %x, expected 0", c->idt_limit);
    for (int i = 0; i < after->n; i++)
        if (i != e->cpu && (!after->cpu[i].hlt || (after->cpu[i].eflags & EFL_IF)))
            return errorf(err, errsz, "CPU %d is no longer halted with interrupts off", i);
    return 0;
}
