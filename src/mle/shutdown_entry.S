/* SPDX-License-Identifier: MIT */
/*
 * shutdown_entry: where Linux jumps for reboot, poweroff, sleep and CPU offline
 * (arch/x86/kernel/tboot.c, tboot_shutdown): a plain call with interrupts off, from 64-bit
 * long mode (or 32-bit paged mode for a 32-bit kernel), CR3 pointing at tables that identity-map
 * [tboot_base, tboot_base + tboot_size), the stack still the kernel's. Leave paging, switch to
 * this CPU's own stack and hand over to C with the APIC ID.
 */
#include "arch/x86/entry.h"
#include "arch/x86/segments.h"

#define MSR_EFER 0xc0000080
#define EFER_LME 8
#define CR0_PG 0x80000000
#define CR4_PCIDE (1 << 17)

    .text
    .code64
    .globl shutdown_entry
shutdown_entry:
    /* these first instructions encode the same in 32- and 64-bit mode */
    cli
    movl $MSR_EFER, %ecx
    rdmsr
    btl $EFER_LME, %eax
    jnc shutdown_entry32

    lgdt gdt_descriptor(%rip)
    pushq $SEL_CODE32
    movl $compat_mode, %eax
    pushq %rax
    lretq                           /* to a 32-bit code segment: compatibility mode */

    .code32
compat_mode:
    movw $SEL_DATA32, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movl %cr4, %eax
    andl $~CR4_PCIDE, %eax          /* clearing CR0.PG faults while PCIDE is set */
    movl %eax, %cr4
    movl %cr0, %eax
    andl $~CR0_PG, %eax
    movl %eax, %cr0                 /* paging off: long mode is no longer active */
    movl $MSR_EFER, %ecx
    rdmsr
    btrl $EFER_LME, %eax
    wrmsr
    jmp flat32

shutdown_entry32:
    lgdt gdt_descriptor
    ljmp $SEL_CODE32, $1f
1:  movl %cr0, %eax
    andl $~CR0_PG, %eax
    movl %eax, %cr0

flat32:
    DATA_SEGMENTS
    xorl %eax, %eax
    movl %eax, %cr4
    /* this CPU's stack, by APIC ID (cpu.S; capped: CPUs beyond MAX_CPUS share the last one) */
    movl $1, %eax
    cpuid
    shrl $24, %ebx
    cmpl $MAX_CPUS, %ebx
    jb 2f
    movl $(MAX_CPUS - 1), %ebx
2:  movl %ebx, %eax
    incl %eax
    shll $12, %eax
    addl $cpu_stacks, %eax
    movl %eax, %esp
    pushl $0
    popfl
    pushl %ebx
    call idt_install
    call shutdown_handler           /* does not return */
3:  cli
    hlt
    jmp 3b

