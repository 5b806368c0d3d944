/* SPDX-License-Identifier: MIT */
/*
 * Every CPU's state as QEMU 7.2 prints it (HMP `info registers -a`, x86_cpu_dump_state() in
 * target/i386/cpu-dump.c, with CPU_DUMP_FPU), and the virtual SENTER's decisions on it:
 * the launch preconditions and the check of the entry state after the transfer
 * (include/abi/vsenter.h). Pure code, no I/O.
 *
 * Layouts QEMU uses, per CPU ("\nCPU#<index>\n" first):
 *   CS.L in long mode (HF_CS64): "RAX=%016" ... "R15=", "RIP=%016 RFL=%08x [7 flags] CPL=%d
 *   II=%d A20=%d SMM=%d HLT=%d", segments "%-3s=%04x %016 %08x %08x[ DPL=..]";
 *   otherwise "EAX=%08x" ... "EIP=%08x EFL=%08x ...", segments "%-3s=%04x %08x %08x %08x".
 *   GDT/IDT "GDT=     base limit" and CR2/CR3 are 64-bit wide iff EFER.LMA (HF_LMA).
 *   The segment flags are the descriptor's high word masked with 0x00ffff00.
 *   Then "DR0=%016 DR1=.. DR2=.. DR3=%016 " and "DR6=%016 DR7=%016" (16 digits in both
 *   layouts: TARGET_FMT_lx of qemu-system-x86_64), CCS/CCD only with CPU_DUMP_CCOP, EFER.
 *   EFL is cpu_compute_eflags(): env->eflags | the lazily computed arithmetic flags | DF.
 */
#ifndef HOST_CPUSTATE_H
#define HOST_CPUSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUSTATE_MAX 64         /* vtboot-qemu --smp takes 1..64 */

enum { SEG_ES, SEG_CS, SEG_SS, SEG_DS, SEG_FS, SEG_GS, SEG_LDT, SEG_TR, SEG_N };
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP };      /* gpr[] order, then r8..r15 */

#define EFL_CF 0x1u
#define EFL_PF 0x4u
#define EFL_AF 0x10u
#define EFL_ZF 0x40u
#define EFL_SF 0x80u
#define EFL_TF 0x100u
#define EFL_IF 0x200u
#define EFL_DF 0x400u
#define EFL_OF 0x800u
#define EFL_VM 0x20000u
/* what QEMU computes lazily under TCG (see above) */
#define EFL_LAZY (EFL_CF | EFL_PF | EFL_AF | EFL_ZF | EFL_SF | EFL_OF | EFL_DF)

#define CR0_PE 0x1u
#define CR0_PG 0x80000000u
#define EFER_LMA 0x400u
#define DR7_ENABLES 0xffu       /* L0, G0 ... L3, G3 */

struct cpu_seg {
    uint16_t sel;
    uint64_t base;
    uint32_t limit, flags;
};

struct cpu_state {
    int index;
    bool cs64;                  /* the 64-bit register layout */
    bool lma;                   /* the long-mode GDT/IDT/CR layout */
    uint64_t gpr[16];           /* in the 32-bit layout only the first 8, zero-extended */
    uint64_t rip;
    uint32_t eflags;
    unsigned cpl, ii, a20, smm, hlt;
    struct cpu_seg seg[SEG_N];
    uint64_t gdt_base, idt_base;
    uint32_t gdt_limit, idt_limit;
    uint64_t cr0, cr2, cr3, cr4, efer;
    uint64_t dr[8];             /* DR0-DR3, DR6, DR7 (dr[4], dr[5] stay 0) */
};

struct cpu_set {
    int n;
    struct cpu_state cpu[CPUSTATE_MAX];
};

/* Parses the whole output (the "return" string of QMP human-monitor-command; "\r\n" or "\n"
 * line ends). Every CPU must be complete and numbered 0, 1, ... in order; lines after EFER
 * (FPU, vector registers) are skipped. Returns 0, or -1 with the first problem in err. */
int cpustate_parse(const char *text, struct cpu_set *out, char *err, size_t errsz);

/*
 * Launch precondition 1 (vsenter.h), registers only: exactly one CPU not halted (the
 * launching CPU), every other one halted with IF = 0; the launching CPU is CPU 0 (the BSP,
 * where GETSEC[SENTER] runs), in protected mode with paging off, EFER.LMA = 0, not
 * virtual-8086, not in SMM, CPL 0, IF = 0, A20 enabled (otherwise addresses with bit 20 set
 * alias), IDTR limit 0, a GDTR limit that covers VSENTER_SEL_DATA, and DR7 arms no
 * breakpoint. Returns the launching CPU's index, or -1 with a reason; among them, exactly:
 *   "CPU <n>: the launching CPU is not the BSP (CPU 0)"
 *   "CPU 0: DR7 0x%08llx: breakpoints armed"   (any of DR7 bits 0-7 set)
 */
int cpustate_launch_cpu(const struct cpu_set *s, char *err, size_t errsz);

/* The descriptors the entry loads, read from the measured image. */
struct vs_gdt {
    uint64_t code, data;        /* the 8-byte GDT entries at VSENTER_SEL_CODE / _DATA */
};

/*
 * The rest of precondition 1: the launching CPU's GDT lies inside the measured range
 * [start, start + len) whose bytes are mle, and holds flat 4 GiB ring-0 32-bit code at
 * VSENTER_SEL_CODE (0x00cf9b000000ffff; the accessed bit may be clear) and data at
 * VSENTER_SEL_DATA (0x00cf93000000ffff, idem). Returns 0 with the two entries, or -1.
 */
int cpustate_check_gdt(const struct cpu_state *c, uint64_t start, const uint8_t *mle, size_t len,
                       struct vs_gdt *out, char *err, size_t errsz);

/* Segment cache a GDT entry gives (QEMU's cpu_x86_get_descr_debug + the dump's mask). */
struct cpu_seg cpustate_desc_cache(uint16_t sel, uint64_t desc);

/* What the launching CPU must look like after the transfer. */
struct vs_entry {
    int cpu;
    uint32_t eip, eax, ebx, ecx;
    uint32_t edx;               /* the number of CPUs */
    struct vs_gdt gdt;
    uint64_t gdt_base;          /* GDTR as before the transfer */
    uint32_t gdt_limit;
};

/*
 * The check after the register writes (step 6): the same CPUs as before (before->n); the
 * launching CPU in the 32-bit layout, EIP/EAX/EBX/ECX/EDX as e says, ESI = EDI = EBP =
 * ESP = 0, EFLAGS 0x2 apart from the lazily computed bits (EFL_LAZY: the dump ORs stale
 * arithmetic flags and DF into what the gdbstub wrote; the caller checks the raw value
 * through the gdbstub), CPL 0, A20 1, SMM 0, HLT 0, CR0 0x11, CR2 anything, CR3 0,
 * CR4 0, EFER 0, CS = VSENTER_SEL_CODE and SS/DS/ES/FS/GS = VSENTER_SEL_DATA each with the
 * cache its GDT entry gives, GDTR unchanged, IDTR limit 0; every other CPU still halted
 * with IF = 0. Returns 0, or -1 with the first difference.
 */
int cpustate_verify_entry(const struct cpu_set *before, const struct cpu_set *after,
                          const struct vs_entry *e, char *err, size_t errsz);

#endif
