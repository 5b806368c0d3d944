/* SPDX-License-Identifier: MIT */
/*
 * What both halves of vtboot run on: the GDT (read-only, inside the MLE: the virtual SENTER
 * loads the MLE's first segments from it), the exception stubs behind idt.c's table, the empty
 * IDT a requester holds while it asks for the launch, and the CPUs' stacks.
 */
#include "arch/x86/segments.h"

    .text
    .code32
/* Exception stubs: each pushes an error code (a dummy 0 where the CPU pushes none) and its
 * vector, then joins exception_common, which hands a struct exception_frame to C. */
.macro EXC vec, has_error
    .balign 16
exc_stub_\vec:
    .if \has_error == 0
    pushl $0
    .endif
    pushl $\vec
    jmp exception_common
.endm

    .balign 16
    .globl exception_stubs
exception_stubs:
    EXC 0, 0
    EXC 1, 0
    EXC 2, 0
    EXC 3, 0
    EXC 4, 0
    EXC 5, 0
    EXC 6, 0
    EXC 7, 0
    EXC 8, 1
    EXC 9, 0
    EXC 10, 1
    EXC 11, 1
    EXC 12, 1
    EXC 13, 1
    EXC 14, 1
    EXC 15, 0
    EXC 16, 0
    EXC 17, 1
    EXC 18, 0
    EXC 19, 0
    EXC 20, 0
    EXC 21, 1
    EXC 22, 0
    EXC 23, 0
    EXC 24, 0
    EXC 25, 0
    EXC 26, 0
    EXC 27, 0
    EXC 28, 0
    EXC 29, 1
    EXC 30, 1
    EXC 31, 0

exception_common:
    pushal
    movl %cr2, %eax
    pushl %eax
    pushl %esp
    call exception_handler          /* does not return */
1:  cli
    hlt
    jmp 1b

/* void idt_load_empty(void): IDTR limit 0. Any exception or NMI then shuts the machine down
 * (no handler can be found, not even for the double fault) instead of running code. */
    .globl idt_load_empty
idt_load_empty:
    lidt empty_idt_descriptor
    ret

    .section .rodata
    .balign 16
    .globl gdt
gdt:
    .quad 0
    .quad 0
    .quad 0x00cf9b000000ffff        /* 0x10: 32-bit code, base 0, 4 GiB */
    .quad 0x00cf93000000ffff        /* 0x18: 32-bit data, base 0, 4 GiB */
    .quad 0x00009b000000ffff        /* 0x20: 16-bit code, base 0, 64 KiB */
    .quad 0x000093000000ffff        /* 0x28: 16-bit data, base 0, 64 KiB */
gdt_end:

    .balign 8
    .globl gdt_descriptor
gdt_descriptor:
    .word gdt_end - gdt - 1
    .long gdt
    .long 0                         /* upper half of the base when loaded in 64-bit mode */

    .balign 8
empty_idt_descriptor:
    .word 0
    .long 0

    .section .bss
    .balign 16
    .globl bsp_stack_top
bsp_stack:
    .skip BSP_STACK_SIZE
bsp_stack_top:

/* One stack per other CPU, by APIC ID: for shutdown_entry, and for the MLE's parked APs
 * (ap_start.S), whose NMI handler needs one. A CPU only ever uses its own. */
    .balign 4096
    .globl cpu_stacks
cpu_stacks:
    .skip MAX_CPUS * CPU_STACK_SIZE
