/* SPDX-License-Identifier: MIT */
/* testk: a tiny multiboot1 + multiboot2 kernel that exercises vtboot-qemu (see testk.c). */
#include "abi/multiboot1.h"
#include "abi/multiboot2.h"

#define WAKE_ADDR 0x8000            /* keep in sync with testk.c */

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

    /*
     * S3 wake-up. SeaBIOS jumps to FACS.firmware_waking_vector in real mode (CS:IP =
     * vector>>4 : vector&15) with interrupts on. testk copies wake16 .. wake16_end to
     * WAKE_ADDR (below 1 MiB, outside its ELF) and points the vector there; the code enters
     * protected mode with its own flat GDT and jumps to wake32 in testk's (re-copied) image.
     */
    .globl wake16, wake16_end
    .code16
wake16:
    cli
    cld
    mov %cs, %ax
    mov %ax, %ds
    /* "W" on COM1 as the very first sign of life */
    mov $0x3fd, %dx
1:  inb %dx, %al
    test $0x20, %al
    jz 1b
    mov $0x3f8, %dx
    mov $'W', %al
    outb %al, %dx
    lgdtl wake_gdtr - wake16
    mov %cr0, %eax
    or $1, %eax
    mov %eax, %cr0
    .byte 0x66, 0xea        /* ljmpl $0x08, $wake32 */
    .long wake32
    .word 0x08
    .balign 8
wake_gdt:
    .quad 0
    .quad 0x00cf9a000000ffff    /* 0x08: flat 32-bit code */
    .quad 0x00cf92000000ffff    /* 0x10: flat data */
wake_gdtr:
    .short 23
    .long WAKE_ADDR + (wake_gdt - wake16)
wake16_end:
    .code32

wake32:
    mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    mov %ax, %fs
    mov %ax, %gs
    mov $stack_top, %esp
    call kresume
2:  cli
    hlt
    jmp 2b

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
