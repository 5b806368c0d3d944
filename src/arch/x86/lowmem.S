/* SPDX-License-Identifier: MIT */
/*
 * Code that runs in the low page (LOWMEM_BASE), copied there by lowmem_install(). Addresses
 * inside it are offsets from lowmem_start (CS/DS = LOWMEM_BASE >> 4 in real mode, or the low
 * GDT's code16 segment based at LOWMEM_BASE); jumps into vtboot's image use absolute addresses.
 *
 *   offset 0, s3_wake16: the FACS waking vector. The firmware enters in real mode after S3;
 *     this switches to protected mode with vtboot's GDT and jumps to s3_resume32 (head.S).
 *   real_mode_jump(vector) (in the image, 32-bit): leaves protected mode through to_real16 and
 *     enters `vector` in real mode, as firmware enters a waking vector (CS = vector >> 4,
 *     IP = vector & 0xf): the kernel's S3 resume vector.
 */
#include "arch/x86/segments.h"

#define OFF(x) ((x) - lowmem_start)
#define CR0_PE 1

    .section .text.lowmem, "ax"
    .code16
    .globl lowmem_start, lowmem_end
lowmem_start:
s3_wake16:
    cli
    cld
    movw %cs, %ax
    movw %ax, %ds
    inb $0x92, %al                  /* fast A20 on */
    orb $0x02, %al
    andb $0xfe, %al
    outb %al, $0x92
    lgdtl OFF(vtboot_gdt_descriptor)
    movl %cr0, %eax
    orl $CR0_PE, %eax
    movl %eax, %cr0
    ljmpl $SEL_CODE32, $s3_resume32

to_real16:                          /* 16-bit protected mode, CS based at LOWMEM_BASE */
    movw $LOW_SEL_DATA16, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %fs
    movw %ax, %gs
    movw %ax, %ss
    movl %cr0, %eax
    andl $~CR0_PE, %eax
    movl %eax, %cr0
    ljmpw $(LOWMEM_BASE >> 4), $OFF(real16)
real16:
    movw %cs, %ax
    movw %ax, %ds
    lidtl OFF(real_mode_idt)         /* the real-mode vector table */
    xorw %ax, %ax
    movw %ax, %es
    movw %ax, %fs
    movw %ax, %gs
    movw %ax, %ss
    xorl %esp, %esp
    ljmpw *%cs:OFF(real_target)

    .balign 8
low_gdt:
    .quad 0
    .quad 0x00009b000000ffff | ((LOWMEM_BASE & 0xffffff) << 16)   /* code16, base LOWMEM_BASE */
    .quad 0x000093000000ffff                                         /* data16, base 0 */
low_gdt_descriptor:
    .word 3 * 8 - 1
    .long LOWMEM_BASE + OFF(low_gdt)
vtboot_gdt_descriptor:
    .word GDT_LIMIT
    .long gdt
real_mode_idt:
    .word 0x3ff
    .long 0
real_target:                        /* far pointer: offset, segment (written by real_mode_jump) */
    .word 0, 0
lowmem_end:

    .text
    .code32
/* void real_mode_jump(uint32_t vector): vector below 1 MiB; does not return. */
    .globl real_mode_jump
real_mode_jump:
    cli
    movl 4(%esp), %eax
    movl %eax, %edx
    andl $0xf, %edx
    movw %dx, LOWMEM_BASE + OFF(real_target)
    shrl $4, %eax
    movw %ax, LOWMEM_BASE + OFF(real_target) + 2
    lgdt LOWMEM_BASE + OFF(low_gdt_descriptor)
    ljmp $LOW_SEL_CODE16, $OFF(to_real16)
