/* SPDX-License-Identifier: MIT */
/*
 * Entry from a multiboot1 or multiboot2 loader: 32-bit protected mode, paging off, flat
 * segments, EAX = loader magic, EBX = boot information. Nothing else is assumed: vtboot loads
 * its own GDT, stack and IDT before any C runs.
 */
#include "abi/multiboot1.h"
#include "abi/multiboot2.h"
#include "arch/x86/segments.h"

#define MB1_FLAGS (MB1_HF_PAGE_ALIGN | MB1_HF_MEMORY_INFO)

    .section .multiboot, "a"
    .balign 8
mb1_header:
    .long MB1_HEADER_MAGIC
    .long MB1_FLAGS
    .long -(MB1_HEADER_MAGIC + MB1_FLAGS)

    .balign 8
mb2_header:
    .long MB2_HEADER_MAGIC
    .long MB2_ARCH_I386
    .long mb2_header_end - mb2_header
    .long -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
    /* modules page-aligned */
    .balign 8
    .short MB2_HTAG_MODULE_ALIGN, 0
    .long 8
    .balign 8
    .short MB2_HTAG_END, 0
    .long 8
mb2_header_end:

    .section .text.entry, "ax"
    .code32
    .globl _start
_start:
    cli
    cld
    movl %eax, %ebp                 /* loader magic */
    movl %ebx, %esi                 /* boot information */
    lgdt gdt_descriptor
    ljmp $SEL_CODE32, $flat

/* From the low page's S3 waking vector (lowmem.S): protected mode, vtboot's GDT loaded. */
    .globl s3_resume32
s3_resume32:
    xorl %ebp, %ebp                 /* magic 0: an S3 resume, not a loader */
    xorl %esi, %esi
flat:
    movw $SEL_DATA32, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %fs
    movw %ax, %gs
    movw %ax, %ss
    /* clear .bss, stack included (a loader zeroes it too, but need not) */
    movl $_bss_start, %edi
    movl $_bss_end, %ecx
    subl %edi, %ecx
    xorl %eax, %eax
    rep stosb
    movl $bsp_stack_top, %esp
    pushl $0
    popfl
    call idt_install
    testl %ebp, %ebp
    jz 2f
    pushl %esi
    pushl %ebp
    call vtboot_main                /* does not return */
2:  call vtboot_resume              /* does not return */
4:  cli
    hlt
    jmp 4b

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
5:  cli
    hlt
    jmp 5b

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

    .section .bss
    .balign 16
bsp_stack:
    .skip BSP_STACK_SIZE
    .globl bsp_stack_top
bsp_stack_top:
