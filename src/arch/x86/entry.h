/* SPDX-License-Identifier: MIT */
/* Assembly shared by vtboot's entry points (prelaunch/head.S, mle/entry.S and the ways
 * in from Linux): flat data segments, and what every entry from outside does before C. */
#ifndef ARCH_X86_ENTRY_H
#define ARCH_X86_ENTRY_H

#include "arch/x86/segments.h"

/* DS, ES, FS, GS and SS from vtboot's flat data descriptor (the GDT must be vtboot's). */
.macro DATA_SEGMENTS
    movw $SEL_DATA32, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %fs
    movw %ax, %gs
    movw %ax, %ss
.endm

/* Flat data segments, .bss zeroed (stacks included: whatever ran before leaves nothing there),
 * the boot CPU's stack, flags cleared, vtboot's IDT. No stack is needed before it. */
.macro FLAT_SETUP
    DATA_SEGMENTS
    movl $_bss_start, %edi
    movl $_bss_end, %ecx
    subl %edi, %ecx
    xorl %eax, %eax
    rep stosb
    movl $bsp_stack_top, %esp
    pushl $0
    popfl
    call idt_install
.endm

#endif
