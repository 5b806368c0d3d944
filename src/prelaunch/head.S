/* SPDX-License-Identifier: MIT */
/*
 * The pre-launch entries, where nothing is measured yet:
 *   _start: from a multiboot1 or multiboot2 loader: 32-bit protected mode, paging off, flat
 *     segments, EAX = loader magic, EBX = boot information.
 *   s3_resume32: from the low page's S3 waking vector (arch/x86/lowmem.S): protected mode,
 *     vtboot's GDT loaded.
 * Each loads vtboot's GDT, stack and IDT before any C runs; the C code asks for the launch.
 */
#include "abi/multiboot1.h"
#include "abi/multiboot2.h"
#include "arch/x86/entry.h"
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
    ljmp $SEL_CODE32, $1f
1:  FLAT_SETUP
    pushl %esi
    pushl %ebp
    call prelaunch_boot             /* does not return */
2:  cli
    hlt
    jmp 2b

    .globl s3_resume32
s3_resume32:
    FLAT_SETUP
    call prelaunch_resume           /* does not return */
3:  cli
    hlt
    jmp 3b
