/* SPDX-License-Identifier: MIT */
/*
 * The `info registers -a` parser on real QEMU 7.2 outputs (data/: captured from Linux, SeaBIOS,
 * a -S machine and testk at its launch requests; synthetic-compat-mode.txt is written from
 * cpu-dump.c's format strings), truncated and malformed ones; the launch preconditions and
 * the check after the transfer, each rule both ways.
 */
#include "unit.h"
#include "cpustate.h"
#include "abi/vsenter.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct cpu_set S, T;             /* big: not on the stack */

static int parse_file(const char *name, struct cpu_set *s, char *err, size_t errsz)
{
    char *text = unit_data(name);
    int rc = cpustate_parse(text, s, err, errsz);

    free(text);
    return rc;
}

static void test_parse_samples(void)
{
    char err[200] = "";
    const struct cpu_state *c;

    /* Linux 6.1: CPU 0 idle in long mode, CPU 1 parked by vtboot in 32-bit protected mode */
    CHECK(parse_file("linux-idle-cpu1-parked.txt", &S, err, sizeof(err)) == 0 && S.n == 2,
          "linux: %s", err);
    c = &S.cpu[0];
    CHECK(c->index == 0 && c->cs64 && c->lma, "cpu0 long layout");
    CHECK(c->gpr[R_CX] == 0x1d0a0 && c->gpr[R_SP] == 0xffffffff81803ec0ull &&
          c->gpr[9] == 0xffff88800f81f080ull && c->gpr[15] == 0x868000, "cpu0 gprs");
    CHECK(c->rip == 0xffffffff811f3943ull && c->eflags == 0x246 && c->cpl == 0 && c->ii == 0 &&
          c->a20 == 1 && c->smm == 0 && c->hlt == 1, "cpu0 ip line");
    CHECK(c->seg[SEG_CS].sel == 0x10 && c->seg[SEG_CS].base == 0 &&
          c->seg[SEG_CS].limit == 0xffffffff && c->seg[SEG_CS].flags == 0x00af9b00, "cpu0 cs");
    CHECK(c->seg[SEG_GS].base == 0xffff88800f800000ull && c->seg[SEG_TR].sel == 0x40 &&
          c->seg[SEG_TR].base == 0xfffffe0000003000ull && c->seg[SEG_LDT].flags == 0x8200,
          "cpu0 gs/tr/ldt");
    CHECK(c->gdt_base == 0xfffffe0000001000ull && c->gdt_limit == 0x7f &&
          c->idt_base == 0xfffffe0000000000ull && c->idt_limit == 0xfff, "cpu0 gdt/idt");
    CHECK(c->cr0 == 0x80050033 && c->cr2 == 0x430290 && c->cr3 == 0x185000 &&
          c->cr4 == 0x3506b0 && c->efer == 0xd01, "cpu0 crs");
    c = &S.cpu[1];
    CHECK(c->index == 1 && !c->cs64 && !c->lma && c->gpr[R_AX] == 1 && c->gpr[R_DI] == 0xff3ff010 &&
          c->gpr[R_SP] == 0x87cfc8 && c->rip == 0x854e82 && c->eflags == 0x12 && c->hlt == 1,
          "cpu1 regs");
    CHECK(c->seg[SEG_SS].flags == 0x00cf9300 && c->gdt_base == 0x859e70 && c->gdt_limit == 0x2f &&
          c->idt_limit == 0xff && c->cr0 == 0x50033 && c->cr3 == 0x383000 && c->efer == 0x801,
          "cpu1 state");
    /* a machine started with -S: real mode at the reset vector, the AP halted */
    CHECK(parse_file("reset-S.txt", &S, err, sizeof(err)) == 0 && S.n == 2, "reset: %s", err);
    c = &S.cpu[0];
    CHECK(c->rip == 0xfff0 && c->seg[SEG_CS].sel == 0xf000 && c->seg[SEG_CS].base == 0xffff0000 &&
          c->seg[SEG_CS].limit == 0xffff && c->seg[SEG_CS].flags == 0x9b00 &&
          c->cr0 == 0x60000010 && c->gpr[R_DX] == 0x60fb1 && c->hlt == 0 && S.cpu[1].hlt == 1,
          "reset state");
    /* testk halted, SeaBIOS's AP halted */
    CHECK(parse_file("testk-hang-seabios-ap.txt", &S, err, sizeof(err)) == 0 && S.n == 2 &&
          S.cpu[0].seg[SEG_CS].flags == 0x00cf9a00 && S.cpu[1].rip == 0xfd09a &&
          S.cpu[1].gdt_base == 0xf6180 && S.cpu[1].idt_limit == 0, "seabios ap: %s", err);
    /* compatibility mode (synthetic): 32-bit registers, long-mode tables and CRs */
    CHECK(parse_file("synthetic-compat-mode.txt", &S, err, sizeof(err)) == 0 && S.n == 1 &&
          !S.cpu[0].cs64 && S.cpu[0].lma && S.cpu[0].cpl == 3 && S.cpu[0].cr2 == 0x7f0000001000ull &&
          S.cpu[0].gdt_base == 0xfffffe0000001000ull && S.cpu[0].seg[SEG_FS].limit == 0x3c00,
          "compat: %s", err);
    /* testk's requests: 1 and 2 CPUs, and the state after a transfer */
    CHECK(parse_file("testk-request.txt", &S, err, sizeof(err)) == 0 && S.n == 1 &&
          S.cpu[0].eflags == 0x446 && S.cpu[0].hlt == 0 && S.cpu[0].gdt_base == 0x102630,
          "testk request: %s", err);
    CHECK(parse_file("testk-smp-ap-wfs.txt", &S, err, sizeof(err)) == 0 && S.n == 2 &&
          S.cpu[1].rip == 0xfff0 && S.cpu[1].hlt == 1 && S.cpu[1].cr0 == 0x60000010,
          "testk smp: %s", err);
    /* the debug registers, in both layouts: testk's DR0 = post_launch, DR7 = L0 */
    CHECK(parse_file("testk-dr7-armed.txt", &S, err, sizeof(err)) == 0 && S.n == 1 &&
          S.cpu[0].dr[0] == 0x100057 && S.cpu[0].dr[1] == 0 && S.cpu[0].dr[3] == 0 &&
          S.cpu[0].dr[6] == 0xffff0ff0 && S.cpu[0].dr[7] == 0x401, "testk dr7: %s", err);
    CHECK(parse_file("linux-idle-cpu1-parked.txt", &S, err, sizeof(err)) == 0 &&
          S.cpu[0].lma && S.cpu[0].dr[6] == 0xffff0ff0 && S.cpu[0].dr[7] == 0x400 &&
          S.cpu[1].dr[7] == 0x400, "linux dr: %s", err);
}

/*
 * Every prefix of a sample: all CPUs only once the last CPU's EFER line is complete; before
 * that either an error or fewer CPUs (output cut between two CPUs looks like a machine with
 * fewer: the launcher compares the count with QMP query-cpus-fast).
 */
static void test_truncated(const char *name, int total)
{
    char *text = unit_data(name), err[200];
    const char *efer = text, *p;
    size_t need, len = strlen(text);
    int wrong = 0, first = -1;

    while ((p = strstr(efer + 1, "EFER=")))
        efer = p;
    need = (size_t)(efer - text) + 5 + 16;
    for (size_t i = 0; i <= len; i++) {
        char save = text[i];
        int rc;
        bool good;

        text[i] = 0;
        rc = cpustate_parse(text, &S, err, sizeof(err));
        text[i] = save;
        if (i >= need)
            good = rc == 0 && S.n == total;
        else
            good = rc == -1 || S.n < total;
        if (!good) {
            wrong++;
            if (first < 0)
                first = (int)i;
        }
    }
    CHECK(wrong == 0, "%s: %d prefixes misjudged, the first %d bytes long", name, wrong, first);
    free(text);
}

/* one substitution in a sample must make it fail (or pass, with ok) */
static void mutate(const char *name, const char *from, const char *to, int ok, const char *want)
{
    char *text = unit_data(name), *p = strstr(text, from), err[200] = "";
    char *m;
    int rc;

    if (!p) {
        CHECK(0, "%s has no '%s'", name, from);
        free(text);
        return;
    }
    m = malloc(strlen(text) + strlen(to) + 1);
    memcpy(m, text, (size_t)(p - text));
    strcpy(m + (p - text), to);
    strcat(m, p + strlen(from));
    rc = cpustate_parse(m, &S, err, sizeof(err));
    if (ok)
        CHECK(rc == 0, "%s with '%s': %s", name, to, err);
    else
        CHECK(rc == -1 && (!want || strstr(err, want)), "%s with '%s' -> %d '%s'", name, to, rc,
              err);
    free(m);
    free(text);
}

static void test_malformed(void)
{
    char err[200];

    CHECK(cpustate_parse("", &S, err, sizeof(err)) == -1 && strstr(err, "no output"), "empty");
    CHECK(cpustate_parse("\r\n\r\n", &S, err, sizeof(err)) == -1, "blank");
    CHECK(cpustate_parse("No CPU available\r\n", &S, err, sizeof(err)) == -1 &&
          strstr(err, "expected CPU#0"), "no cpu: %s", err);
    mutate("testk-request.txt", "CPU#0", "CPU#1", 0, "expected CPU#0");
    mutate("testk-request.txt", "CPU#0", "CPU#", 0, "expected CPU#0");
    mutate("testk-request.txt", "CPU#0", "CPU#0 ", 0, "expected CPU#0");
    mutate("testk-smp-ap-wfs.txt", "CPU#1", "CPU#0", 0, "expected CPU#1");
    mutate("testk-smp-ap-wfs.txt", "CPU#1", "CPU#2", 0, "expected CPU#1");
    mutate("testk-request.txt", "EAX=00109d60", "EAX=00109D60", 0, "general registers");
    mutate("testk-request.txt", "EAX=00109d60", "EAX=0109d60", 0, "general registers");
    mutate("testk-request.txt", "EAX=00109d60", "EAX=000109d60", 0, "general registers");
    mutate("testk-request.txt", "EDX=000002fd\r\n", "EDX=000002fd ESI=0\r\n", 0, "general");
    mutate("testk-request.txt", "HLT=0", "HLT=2", 0, "EIP/EFL");
    mutate("testk-request.txt", "HLT=0", "HLT=", 0, "EIP/EFL");
    mutate("testk-request.txt", "HLT=0", "HLT=0 X=1", 0, "EIP/EFL");
    mutate("testk-request.txt", "CPL=0", "CPL=3", 1, NULL);
    mutate("testk-request.txt", "CPL=0", "CPL=4", 0, "EIP/EFL");
    mutate("testk-request.txt", "[D--Z-P-]", "[D--Z-P]", 0, "EIP/EFL");
    mutate("testk-request.txt", "[D--Z-P-]", "[X--Z-P-]", 0, "EIP/EFL");
    mutate("testk-request.txt", "SS =0018", "SS=0018", 0, "segment");
    mutate("testk-request.txt", "CS =0010 00000000 ffffffff 00cf9b00 DPL=0 CS32 [-RA]",
           "CS =0010 00000000 ffffffff 00cf9b00", 1, NULL);
    mutate("testk-request.txt", "CS =0010 00000000 ffffffff 00cf9b00",
           "CS =0010 0000000000000000 ffffffff 00cf9b00", 0, "segment");
    mutate("testk-request.txt", "GDT=     00102630", "GDT=    00102630", 0, "GDT");
    mutate("testk-request.txt", "GDT=     00102630", "GDT=     0000000000102630", 0, "IDT");
    mutate("testk-request.txt", "CR4=00000000", "CR4=00000000 CR8=0", 0, "CR line");
    mutate("testk-request.txt", "EFER=0000000000000000", "EFER=00000000", 0, "EFER");
    mutate("testk-request.txt", "DR7=0000000000000400", "DR7=00000400", 0, "DR lines");
    mutate("testk-request.txt", "DR7=0000000000000400", "DR7=0000000000000400 DR8=0", 0,
           "DR lines");
    mutate("testk-request.txt", "DR2=0000000000000000 ", "", 0, "DR lines");
    mutate("testk-request.txt", "DR3=0000000000000000 ", "DR3=0000000000000000", 1, NULL);
    mutate("testk-request.txt", "DR1=0000000000000000", "DR1=000000000000000g", 0, "DR lines");
    mutate("testk-request.txt", "DR6=", "DR7=", 0, "DR lines");
    mutate("testk-request.txt", "FCW=037f", "garbage after EFER is skipped", 1, NULL);
    /* a line in the middle */
    mutate("testk-request.txt", "CS =0010", "junk\r\nCS =0010", 0, "segment");
    /* the 64-bit layout with a 32-bit number */
    mutate("linux-idle-cpu1-parked.txt", "R8 =0000000000000000", "R8 =00000000", 0, "general");
    mutate("linux-idle-cpu1-parked.txt", "R8 =", "R8=", 0, "general");
    test_truncated("testk-request.txt", 1);
    test_truncated("testk-smp-ap-wfs.txt", 2);
    test_truncated("linux-idle-cpu1-parked.txt", 2);
}

/* ---- precondition 1 ---- */

static void expect_launch(const struct cpu_set *s, int want, const char *werr, const char *what)
{
    char err[200] = "";
    int got = cpustate_launch_cpu(s, err, sizeof(err));

    if (want >= 0)
        CHECK(got == want, "%s: CPU %d, expected %d (%s)", what, got, want, err);
    else
        CHECK(got == -1 && !strcmp(err, werr), "%s: %d '%s', expected '%s'", what, got, err, werr);
}

static void test_launch_cpu(void)
{
    char err[200];
    struct cpu_state *c;

    /* real states: the requests testk made (and the host refused or accepted) */
    parse_file("testk-request.txt", &S, err, sizeof(err));
    expect_launch(&S, 0, NULL, "testk request");
    parse_file("testk-interrupts-on.txt", &S, err, sizeof(err));
    expect_launch(&S, -1, "CPU 0 has interrupts on", "sti");
    parse_file("testk-paging-on.txt", &S, err, sizeof(err));
    expect_launch(&S, -1, "CPU 0 has paging on", "paging");
    parse_file("testk-smp-ap-spinning.txt", &S, err, sizeof(err));
    expect_launch(&S, -1, "CPUs 0 and 1 are both running: every CPU but the launching one must "
                  "be halted", "ap spinning");
    parse_file("testk-smp-ap-halted-if.txt", &S, err, sizeof(err));
    expect_launch(&S, -1, "CPU 1 is halted with interrupts on", "ap sti; hlt");
    parse_file("testk-smp-ap-wfs.txt", &S, err, sizeof(err));
    expect_launch(&S, 0, NULL, "ap in wait-for-SIPI");
    parse_file("testk-hang-seabios-ap.txt", &S, err, sizeof(err));
    expect_launch(&S, -1, "every CPU is halted: none is launching", "all halted");
    S.cpu[1].hlt = 0;                   /* SeaBIOS's AP as the requester: IDT limit 0, but its GDT */
    S.cpu[1].gdt_limit = 0x37;
    expect_launch(&S, -1, "CPU 1: the launching CPU is not the BSP (CPU 0)", "cpu 1 requests");
    /* testk's vsap: CPU 1 asks from real mode while CPU 0 halts */
    parse_file("testk-ap-requests.txt", &S, err, sizeof(err));
    expect_launch(&S, -1, "CPU 1: the launching CPU is not the BSP (CPU 0)", "vsap");
    /* testk's vsarm arm=dr7: L0 on post_launch */
    parse_file("testk-dr7-armed.txt", &S, err, sizeof(err));
    expect_launch(&S, -1, "CPU 0: DR7 0x00000401: breakpoints armed", "dr7 armed");
    parse_file("testk-p3-request.txt", &S, err, sizeof(err));
    expect_launch(&S, 0, NULL, "protocol 3 request");
    parse_file("reset-S.txt", &S, err, sizeof(err));
    expect_launch(&S, -1, "CPU 0 is not in protected mode", "real mode");
    parse_file("linux-idle-cpu1-parked.txt", &S, err, sizeof(err));
    S.cpu[0].hlt = 0;
    expect_launch(&S, -1, "CPU 0 has paging on", "linux");
    S.cpu[0].cr0 &= ~(uint64_t)CR0_PG;  /* not a state a CPU can be in; the rule still holds */
    expect_launch(&S, -1, "CPU 0 is in long mode", "lma");
    parse_file("synthetic-compat-mode.txt", &S, err, sizeof(err));
    expect_launch(&S, -1, "CPU 0 has paging on", "compat");

    /* each rule both ways, from the accepted request */
    parse_file("testk-request.txt", &T, err, sizeof(err));
#define FROM_GOOD() (S = T, c = &S.cpu[0])
    FROM_GOOD();
    c->cr0 &= ~(uint64_t)CR0_PE;
    expect_launch(&S, -1, "CPU 0 is not in protected mode", "PE");
    FROM_GOOD();
    c->efer |= EFER_LMA;
    expect_launch(&S, -1, "CPU 0 is in long mode", "LMA");
    FROM_GOOD();
    c->efer |= 0x100;                   /* LME alone, paging off: not long mode yet */
    expect_launch(&S, 0, NULL, "LME");
    FROM_GOOD();
    c->eflags |= EFL_VM;
    expect_launch(&S, -1, "CPU 0 is in virtual-8086 mode", "VM");
    FROM_GOOD();
    c->smm = 1;
    expect_launch(&S, -1, "CPU 0 is in SMM", "SMM");
    FROM_GOOD();
    c->cpl = 3;
    expect_launch(&S, -1, "CPU 0 is at CPL 3", "CPL");
    FROM_GOOD();
    c->eflags |= EFL_IF;
    expect_launch(&S, -1, "CPU 0 has interrupts on", "IF");
    FROM_GOOD();
    c->eflags |= EFL_TF | EFL_LAZY;     /* the entry writes EFLAGS: other flags do not matter */
    expect_launch(&S, 0, NULL, "TF, arithmetic flags, DF");
    FROM_GOOD();
    c->a20 = 0;
    expect_launch(&S, -1, "CPU 0 has A20 masked", "A20");
    FROM_GOOD();
    c->idt_limit = 1;
    expect_launch(&S, -1, "CPU 0 has an IDT (limit 0x1): it must be empty", "IDT");
    FROM_GOOD();
    c->idt_base = 0x1234;               /* the base does not matter with limit 0 */
    expect_launch(&S, 0, NULL, "IDT base");
    FROM_GOOD();
    c->gdt_limit = 0x1e;
    expect_launch(&S, -1, "CPU 0's GDT (limit 0x1e) has no entry 0x18", "GDT limit");
    FROM_GOOD();
    c->gdt_limit = 0xffff;
    expect_launch(&S, 0, NULL, "bigger GDT");
    FROM_GOOD();
    c->hlt = 1;
    expect_launch(&S, -1, "every CPU is halted: none is launching", "halted requester");
    /* DR7: each of L0, G0 ... L3, G3 arms a breakpoint; nothing above bit 7 does */
    for (int bit = 0; bit < 8; bit++) {
        char want[64];

        FROM_GOOD();
        c->dr[7] = 0x400 | 1u << bit;
        snprintf(want, sizeof(want), "CPU 0: DR7 0x%08x: breakpoints armed", 0x400 | 1u << bit);
        expect_launch(&S, -1, want, "DR7 enable bit");
    }
    FROM_GOOD();
    c->dr[7] = 0xffffffff00000000ull | 0xffff2700;  /* conditions, lengths, GE/LE, GD */
    expect_launch(&S, 0, NULL, "DR7 without an enable bit");
    FROM_GOOD();
    c->dr[0] = c->rip;                  /* an address alone arms nothing */
    c->dr[6] = 0xffff4ff1;
    expect_launch(&S, 0, NULL, "DR0, DR6");
    /* the other CPUs: halted and IF = 0 */
    parse_file("testk-smp-ap-wfs.txt", &T, err, sizeof(err));
    FROM_GOOD();
    S.cpu[1].eflags |= EFL_IF;
    expect_launch(&S, -1, "CPU 1 is halted with interrupts on", "ap IF");
    FROM_GOOD();
    S.cpu[1].hlt = 0;
    expect_launch(&S, -1, "CPUs 0 and 1 are both running: every CPU but the launching one must be "
                  "halted", "ap running");
    FROM_GOOD();
    S.cpu[0].hlt = 1;
    S.cpu[1].hlt = 0;
    expect_launch(&S, -1, "CPU 1: the launching CPU is not the BSP (CPU 0)",
                  "the AP requests from real mode");
    FROM_GOOD();
    S.cpu[1].cr0 |= CR0_PG;             /* a halted CPU's mode does not matter */
    S.cpu[1].cpl = 3;
    expect_launch(&S, 0, NULL, "ap mode");
    S.n = 0;
    expect_launch(&S, -1, "no CPU", "no CPU");
#undef FROM_GOOD
}

/* ---- the GDT in the measured image ---- */

#define MLE_START 0x00100000u
#define GDT_OFF 0x2630u

static void put_desc(uint8_t *mle, unsigned sel, uint64_t d)
{
    for (int i = 0; i < 8; i++)
        mle[GDT_OFF + sel + i] = (uint8_t)(d >> (8 * i));
}

static void expect_gdt(const struct cpu_state *c, const uint8_t *mle, size_t len, const char *werr,
                       const char *what)
{
    struct vs_gdt g = { 0, 0 };
    char err[200] = "";
    int rc = cpustate_check_gdt(c, MLE_START, mle, len, &g, err, sizeof(err));

    if (!werr)
        CHECK(rc == 0, "%s: %s", what, err);
    else
        CHECK(rc == -1 && !strcmp(err, werr), "%s: %d '%s', expected '%s'", what, rc, err, werr);
}

static void test_gdt(void)
{
    static uint8_t mle[0x5488];
    struct vs_gdt g;
    struct cpu_state c;
    struct cpu_seg s;
    char err[200];

    parse_file("testk-request.txt", &S, err, sizeof(err));
    c = S.cpu[0];                       /* GDT 0x00102630, limit 0x1f */
    memset(mle, 0, sizeof(mle));
    put_desc(mle, 0x10, 0x00cf9b000000ffffull);
    put_desc(mle, 0x18, 0x00cf93000000ffffull);
    expect_gdt(&c, mle, sizeof(mle), NULL, "testk's GDT");
    CHECK(cpustate_check_gdt(&c, MLE_START, mle, sizeof(mle), &g, err, sizeof(err)) == 0 &&
          g.code == 0x00cf9b000000ffffull && g.data == 0x00cf93000000ffffull, "descriptors");
    put_desc(mle, 0x10, 0x00cf9a000000ffffull);
    put_desc(mle, 0x18, 0x00cf92000000ffffull);
    expect_gdt(&c, mle, sizeof(mle), NULL, "accessed bits clear");
    put_desc(mle, 0x18, 0x00cf93000000ffffull);
    /* code: 16-bit, 64-bit, ring 3, conforming, not present, based, byte-granular, data */
    static const struct { uint64_t d; const char *name; } badcode[] = {
        { 0x008f9b000000ffffull, "16-bit" }, { 0x00af9b000000ffffull, "64-bit" },
        { 0x00cffb000000ffffull, "DPL 3" }, { 0x00cf9f000000ffffull, "conforming" },
        { 0x00cf1b000000ffffull, "not present" }, { 0x00cf9b010000ffffull, "base 64 KiB" },
        { 0x004f9b000000ffffull, "G clear" }, { 0x00c79b000000ffffull, "limit 0x7ffff" },
        { 0x00cf93000000ffffull, "data" }, { 0x00df9b000000ffffull, "AVL" },
        { 0x00cf99000000ffffull, "execute-only" },
    };
    for (size_t i = 0; i < sizeof(badcode) / sizeof(badcode[0]); i++) {
        char want[120];

        put_desc(mle, 0x10, badcode[i].d);
        snprintf(want, sizeof(want), "GDT entry 0x10 is %016llx, not flat 32-bit ring-0 code",
                 (unsigned long long)badcode[i].d);
        expect_gdt(&c, mle, sizeof(mle), want, badcode[i].name);
    }
    put_desc(mle, 0x10, 0x00cf9b000000ffffull);
    static const struct { uint64_t d; const char *name; } baddata[] = {
        { 0x00cf91000000ffffull, "read-only" }, { 0x00cf97000000ffffull, "expand-down" },
        { 0x008f93000000ffffull, "16-bit" }, { 0x00cff3000000ffffull, "DPL 3" },
        { 0x00cf9b000000ffffull, "code" }, { 0x01cf93000000ffffull, "base 16 MiB" },
        { 0x00cf13000000ffffull, "not present" },
    };
    for (size_t i = 0; i < sizeof(baddata) / sizeof(baddata[0]); i++) {
        char want[120];

        put_desc(mle, 0x18, baddata[i].d);
        snprintf(want, sizeof(want), "GDT entry 0x18 is %016llx, not flat ring-0 data",
                 (unsigned long long)baddata[i].d);
        expect_gdt(&c, mle, sizeof(mle), want, baddata[i].name);
    }
    put_desc(mle, 0x18, 0x00cf93000000ffffull);
    /* where the GDT lies: inside, the last byte included */
    expect_gdt(&c, mle, GDT_OFF + 0x20, NULL, "GDT ends with the MLE");
    expect_gdt(&c, mle, GDT_OFF + 0x1f, "CPU 0's GDT 0x00102630-0x00102650 is outside the MLE",
               "one byte past the end");
    c.gdt_limit = 0xffff;
    expect_gdt(&c, mle, sizeof(mle), "CPU 0's GDT 0x00102630-0x00112630 is outside the MLE",
               "limit past the end");
    c = S.cpu[0];
    c.gdt_base = MLE_START - 8;
    expect_gdt(&c, mle, sizeof(mle), "CPU 0's GDT 0x000ffff8-0x00100018 is outside the MLE",
               "before the start");
    c.gdt_base = 0x10b060;
    expect_gdt(&c, mle, sizeof(mle), "CPU 0's GDT 0x0010b060-0x0010b080 is outside the MLE",
               "a copy outside");
    c = S.cpu[0];
    c.gdt_limit = 0x17;
    expect_gdt(&c, mle, sizeof(mle), "CPU 0's GDT (limit 0x17) has no entry 0x18", "short");

    /* the caches a descriptor gives */
    s = cpustate_desc_cache(0x10, 0x00cf9b000000ffffull);
    CHECK(s.sel == 0x10 && s.base == 0 && s.limit == 0xffffffffu && s.flags == 0x00cf9b00, "flat");
    s = cpustate_desc_cache(0x8, 0x12409a345678ffffull);
    CHECK(s.base == 0x12345678 && s.limit == 0xffff && s.flags == 0x00409a00,
          "based %llx %x %x", (unsigned long long)s.base, s.limit, s.flags);
}

/* ---- after the transfer ---- */

static void expect_verify(const struct cpu_set *before, const struct cpu_set *after,
                          const struct vs_entry *e, const char *werr, const char *what)
{
    char err[200] = "";
    int rc = cpustate_verify_entry(before, after, e, err, sizeof(err));

    if (!werr)
        CHECK(rc == 0, "%s: %s", what, err);
    else
        CHECK(rc == -1 && !strcmp(err, werr), "%s: %d '%s', expected '%s'", what, rc, err, werr);
}

static struct cpu_set B;

static void test_verify(void)
{
    char err[200];
    struct vs_entry e = {
        .cpu = 0, .eip = 0x00100057, .eax = VSENTER_ENTRY_MAGIC, .ebx = 0x00100000,
        .ecx = 0x00105450, .gdt = { 0x00cf9b000000ffffull, 0x00cf93000000ffffull },
        .gdt_base = 0x00102630, .gdt_limit = 0x1f,
    };
    struct cpu_state *c;

    /* protocol 3's entry on one CPU: EDX = 1 */
    CHECK(parse_file("testk-p3-request.txt", &B, err, sizeof(err)) == 0, "p3 before: %s", err);
    CHECK(parse_file("testk-p3-entry.txt", &T, err, sizeof(err)) == 0, "p3 after: %s", err);
    e.ecx = 0x00106170;
    e.edx = 1;
    e.gdt_base = 0x00103180;
    expect_verify(&B, &T, &e, NULL, "testk's protocol 3 entry");
    e.edx = 2;
    expect_verify(&B, &T, &e, "EDX 00000001, expected 00000002 (the number of CPUs)", "edx 2");
    /* the rules on an entry captured under protocol 2, which left EDX 0 */
    e.ecx = 0x00105450;
    e.edx = 0;
    e.gdt_base = 0x00102630;
    CHECK(parse_file("testk-request.txt", &B, err, sizeof(err)) == 0, "before: %s", err);
    CHECK(parse_file("testk-entry.txt", &T, err, sizeof(err)) == 0, "after: %s", err);
    /* as QEMU showed it: EFL=00000446, stale ZF/PF/DF over the 0x2 the gdbstub wrote */
    CHECK(T.cpu[0].eflags == 0x446, "the dump's lazy flags");
    expect_verify(&B, &T, &e, NULL, "testk's entry");
#define FROM_GOOD() (S = T, c = &S.cpu[0])
    FROM_GOOD();
    c->rip = 0x100058;
    expect_verify(&B, &S, &e, "EIP 00100058, expected 00100057", "eip");
    FROM_GOOD();
    c->gpr[R_AX] = 0;
    expect_verify(&B, &S, &e, "EAX/EBX/ECX 00000000/00100000/00105450, expected "
                  "544e5356/00100000/00105450", "eax");
    FROM_GOOD();
    c->gpr[R_BX] = 0x100001;
    expect_verify(&B, &S, &e, "EAX/EBX/ECX 544e5356/00100001/00105450, expected "
                  "544e5356/00100000/00105450", "ebx");
    FROM_GOOD();
    c->gpr[R_CX] = 0;
    expect_verify(&B, &S, &e, "EAX/EBX/ECX 544e5356/00100000/00000000, expected "
                  "544e5356/00100000/00105450", "ecx");
    FROM_GOOD();
    c->gpr[R_DX] = 1;
    expect_verify(&B, &S, &e, "EDX 00000001, expected 00000000 (the number of CPUs)", "edx");
    FROM_GOOD();
    c->gpr[R_SP] = 0x109d10;
    expect_verify(&B, &S, &e, "ESP 00109d10, expected 0", "esp");
    FROM_GOOD();
    c->eflags = 0x246;
    expect_verify(&B, &S, &e, "EFLAGS 00000246, expected 00000002", "IF");
    FROM_GOOD();
    c->eflags = 0x102;
    expect_verify(&B, &S, &e, "EFLAGS 00000102, expected 00000002", "TF");
    FROM_GOOD();
    c->eflags = 0x2 | EFL_LAZY;
    expect_verify(&B, &S, &e, NULL, "every lazy flag");
    FROM_GOOD();
    c->eflags = 0x0;
    expect_verify(&B, &S, &e, "EFLAGS 00000000, expected 00000002", "bit 1");
    FROM_GOOD();
    c->cpl = 3;
    expect_verify(&B, &S, &e, "CPL=3 A20=1 SMM=0 HLT=0, expected 0 1 0 0", "cpl");
    FROM_GOOD();
    c->a20 = 0;
    expect_verify(&B, &S, &e, "CPL=0 A20=0 SMM=0 HLT=0, expected 0 1 0 0", "a20");
    FROM_GOOD();
    c->smm = 1;
    expect_verify(&B, &S, &e, "CPL=0 A20=1 SMM=1 HLT=0, expected 0 1 0 0", "smm");
    FROM_GOOD();
    c->hlt = 1;
    expect_verify(&B, &S, &e, "CPL=0 A20=1 SMM=0 HLT=1, expected 0 1 0 0", "hlt");
    FROM_GOOD();
    c->cr0 = 0x80000011;
    expect_verify(&B, &S, &e, "CR0=80000011 CR3=00000000 CR4=00000000 EFER=0, expected 00000011 0 0 0",
                  "cr0");
    FROM_GOOD();
    c->cr3 = 0x10c000;
    expect_verify(&B, &S, &e, "CR0=00000011 CR3=0010c000 CR4=00000000 EFER=0, expected 00000011 0 0 0",
                  "cr3");
    FROM_GOOD();
    c->cr4 = 0x10;
    expect_verify(&B, &S, &e, "CR0=00000011 CR3=00000000 CR4=00000010 EFER=0, expected 00000011 0 0 0",
                  "cr4");
    FROM_GOOD();
    c->efer = 0x100;
    expect_verify(&B, &S, &e, "CR0=00000011 CR3=00000000 CR4=00000000 EFER=100, expected 00000011 0 0 0",
                  "efer");
    FROM_GOOD();
    c->cr2 = 0x1234;                    /* CR2 is not part of the entry state */
    expect_verify(&B, &S, &e, NULL, "cr2");
    FROM_GOOD();
    c->seg[SEG_CS].flags = 0x00cf9a00;
    expect_verify(&B, &S, &e, "CS =0010 00000000 ffffffff 00cf9a00, expected 0010 00000000 ffffffff "
                  "00cf9b00", "cs flags");
    FROM_GOOD();
    c->seg[SEG_CS].sel = 0x08;
    expect_verify(&B, &S, &e, "CS =0008 00000000 ffffffff 00cf9b00, expected 0010 00000000 ffffffff "
                  "00cf9b00", "cs selector");
    FROM_GOOD();
    c->seg[SEG_SS].base = 0x10;
    expect_verify(&B, &S, &e, "SS =0018 00000010 ffffffff 00cf9300, expected 0018 00000000 ffffffff "
                  "00cf9300", "ss base");
    FROM_GOOD();
    c->seg[SEG_DS].limit = 0xfffff;
    expect_verify(&B, &S, &e, "DS =0018 00000000 000fffff 00cf9300, expected 0018 00000000 ffffffff "
                  "00cf9300", "ds limit");
    FROM_GOOD();
    c->seg[SEG_ES].flags = 0x00cf9200;
    expect_verify(&B, &S, &e, "ES =0018 00000000 ffffffff 00cf9200, expected 0018 00000000 ffffffff "
                  "00cf9300", "es flags");
    FROM_GOOD();
    c->seg[SEG_FS].sel = 0;
    expect_verify(&B, &S, &e, "FS =0000 00000000 ffffffff 00cf9300, expected 0018 00000000 ffffffff "
                  "00cf9300", "fs");
    FROM_GOOD();
    c->seg[SEG_GS].flags = 0;
    expect_verify(&B, &S, &e, "GS =0018 00000000 ffffffff 00000000, expected 0018 00000000 ffffffff "
                  "00cf9300", "gs");
    FROM_GOOD();
    c->seg[SEG_TR].sel = 0x28;          /* TR and LDT are not part of the entry state */
    expect_verify(&B, &S, &e, NULL, "tr");
    FROM_GOOD();
    c->gdt_base = 0x10b060;
    expect_verify(&B, &S, &e, "GDT 0010b060+1f, expected 00102630+1f", "gdt");
    FROM_GOOD();
    c->idt_limit = 0x7ff;
    expect_verify(&B, &S, &e, "IDT limit 7ff, expected 0", "idt");
    FROM_GOOD();
    c->cs64 = true;
    expect_verify(&B, &S, &e, "CPU 0 is not in the 32-bit layout", "layout");
    /* the expected descriptors decide the caches: the accessed bit as the GDT had it */
    FROM_GOOD();
    e.gdt.code = 0x00cf9a000000ffffull;
    expect_verify(&B, &S, &e, "CS =0010 00000000 ffffffff 00cf9b00, expected 0010 00000000 ffffffff "
                  "00cf9a00", "expected code flags");
    e.gdt.code = 0x00cf9b010000ffffull;
    expect_verify(&B, &S, &e, "the GDT entry for CS is not flat", "based code");
    e.gdt.code = 0x00cf9b000000ffffull;
    e.cpu = 1;
    expect_verify(&B, &S, &e, "no CPU 1", "no such CPU");
    e.cpu = 0;
    S.n = 2;
    expect_verify(&B, &S, &e, "2 CPUs, 1 before", "CPU count");
    /* two CPUs: the AP must still wait */
    CHECK(parse_file("testk-smp-ap-wfs.txt", &B, err, sizeof(err)) == 0, "smp before: %s", err);
    CHECK(parse_file("testk-smp-entry.txt", &T, err, sizeof(err)) == 0, "smp after: %s", err);
    expect_verify(&B, &T, &e, NULL, "smp entry");
    FROM_GOOD();
    S.cpu[1].hlt = 0;
    expect_verify(&B, &S, &e, "CPU 1 is no longer halted with interrupts off", "ap woke");
    FROM_GOOD();
    S.cpu[1].eflags |= EFL_IF;
    expect_verify(&B, &S, &e, "CPU 1 is no longer halted with interrupts off", "ap IF");
#undef FROM_GOOD
}

void test_cpustate(void)
{
    test_parse_samples();
    test_malformed();
    test_launch_cpu();
    test_gdt();
    test_verify();
}
