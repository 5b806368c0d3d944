/* SPDX-License-Identifier: MIT */
/* testk: a tiny multiboot1 + multiboot2 kernel that exercises vtboot-qemu (see testk.c). */
#include "abi/multiboot1.h"
#include "abi/multiboot2.h"

#define MB1_FLAGS (MB1_HF_PAGE_ALIGN | MB1_HF_MEMORY_INFO)

    .section .multiboot, "a"
    .balign 4
mb1_header:
    .long MB1_HEADER_MAGIC, MB1_FLAGS, -(MB1_HEADER_MAGIC + MB1_FLAGS)

    .balign 8
mb2_header:
    .long MB2_HEADER_MAGIC, MB2_ARCH_I386, mb2_end - mb2_header
    .long -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_end - mb2_header))
    .short MB2_HTAG_END, 0
    .long 8
mb2_end:

    .text
    .globl _start
_start:
    cli
    cld
    mov $stack_top, %esp
    push %ebx
    push %eax
    call kmain
1:  cli
    hlt
    jmp 1b

    /* triple fault: an empty IDT, then an exception */
    .globl triple_fault
triple_fault:
    lidt idt0
    int3
    jmp triple_fault

    .section .rodata
    .balign 8
idt0:
    .short 0
    .long 0

    .bss
    .balign 16
stack:
    .skip 16384
stack_top:
    .section .note.GNU-stack, "", @progbits
