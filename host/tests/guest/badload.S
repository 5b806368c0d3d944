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

/*
 * badload's real-mode entries, copied to TRAMP (0x7000) by badload.c: for a SIPI (vector 7:
 * CS 0x700, IP 0), for an NMI through IVT[2] and for SeaBIOS's INIT path through 40:67. Each
 * goes to 32-bit protected mode with a flat GDT of its own, a stack per APIC ID, and calls
 * badload_low(kind, APIC ID).
 */
#define TRAMP 0x7000
#define LOW(x) (TRAMP + (x) - lowtramp_start)

    .section .rodata
    .balign 16
    .globl lowtramp_start, lowtramp_end, lowtramp_sipi, lowtramp_nmi, lowtramp_reset
    .code16
lowtramp_start:
lowtramp_sipi:
    cli
    mov $1, %bl
    ljmp $0, $LOW(lowtramp_common)
lowtramp_nmi:
    cli
    mov $2, %bl
    ljmp $0, $LOW(lowtramp_common)
lowtramp_reset:
    cli
    mov $3, %bl
    ljmp $0, $LOW(lowtramp_common)
lowtramp_common:
    xor %ax, %ax
    mov %ax, %ds
    lgdtl LOW(lowtramp_gdtr)
    mov %cr0, %eax
    or $1, %eax
    mov %eax, %cr0
    ljmpl $0x08, $LOW(lowtramp_32)
    .code32
lowtramp_32:
    mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    mov %ax, %fs
    mov %ax, %gs
    cld
    movzbl %bl, %esi                 /* the kind */
    mov $1, %eax
    cpuid
    shr $24, %ebx                    /* the initial APIC ID */
    and $7, %ebx
    mov %ebx, %eax
    inc %eax
    shl $12, %eax
    add LOW(lowtramp_stacks), %eax
    mov %eax, %esp
    push %ebx
    push %esi
    call *LOW(lowtramp_entry)
1:  cli
    hlt
    jmp 1b
    .balign 8
lowtramp_gdt:
    .quad 0
    .quad 0x00cf9a000000ffff
    .quad 0x00cf92000000ffff
lowtramp_gdtr:
    .word 23
    .long LOW(lowtramp_gdt)
    .balign 4
lowtramp_entry:
    .long badload_low
lowtramp_stacks:
    .long ap_stacks
lowtramp_end:

    .text
    .globl badload_nmi_iret
badload_nmi_iret:
    iret

    .bss
    .balign 4096
    .globl moved_apic_page
moved_apic_page:
    .skip 4096
ap_stacks:
    .skip 8 * 4096
