/* SPDX-License-Identifier: MIT */
/*
 * void multiboot_enter(uint32_t entry, uint32_t magic, uint32_t info): the machine state the
 * Multiboot Specification (0.6.96 §3.2; Multiboot2 2.0 §3.3, i386) requires of a loader: EAX
 * the magic, EBX the physical address of the boot information, CS a flat 32-bit read/execute
 * code segment, DS/ES/FS/GS/SS flat read/write data segments, A20 on, protected mode without
 * paging, interrupts off (EFLAGS: IF and VM clear; everything else clear too, DF included).
 * vtboot's GDT and IDT are left loaded; the kernel loads its own before it needs them. CR4 is
 * cleared (vtboot may have enabled SSE state for its hashing). The other general registers are
 * zero.
 */
#include "arch/x86/segments.h"

    .text
    .code32
    .globl multiboot_enter
multiboot_enter:
    cli
    movl 4(%esp), %edx
    movl 8(%esp), %eax
    movl 12(%esp), %ebx
    lgdt gdt_descriptor
    ljmp $SEL_CODE32, $1f
1:  movw $SEL_DATA32, %cx
    movw %cx, %ds
    movw %cx, %es
    movw %cx, %fs
    movw %cx, %gs
    movw %cx, %ss
    xorl %ecx, %ecx
    movl %ecx, %cr4
    pushl $2
    popfl
    pushl %edx
    xorl %edx, %edx
    xorl %esi, %esi
    xorl %edi, %edi
    xorl %ebp, %ebp
    ret
