/* SPDX-License-Identifier: MIT */
/* badload's multiboot1 header, entry and stack, and vtboot's ELF file built in (badload.c). */
#include "abi/multiboot1.h"

#define MB1_FLAGS (MB1_HF_PAGE_ALIGN | MB1_HF_MEMORY_INFO)

    .section .multiboot, "a"
    .balign 4
    .long MB1_HEADER_MAGIC, MB1_FLAGS, -(MB1_HEADER_MAGIC + MB1_FLAGS)

    .text
    .globl _start
_start:
    cli
    cld
    mov $stack_top, %esp
    push %ebx
    push %eax
    call badload_main

    .section .rodata
    .balign 16
    .globl vtboot_elf, vtboot_elf_end
vtboot_elf:
    .incbin VTBOOT_ELF
vtboot_elf_end:

    .bss
    .balign 16
    .skip 16384
stack_top:
