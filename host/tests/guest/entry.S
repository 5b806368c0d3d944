/* SPDX-License-Identifier: MIT */
/* testk: a tiny multiboot1 + multiboot2 kernel that exercises vtboot-qemu (see testk.c). */
#include "abi/multiboot1.h"
#include "abi/multiboot2.h"

#define WAKE_ADDR 0x8000            /* keep in sync with testk.c */
#define VSENTER_UART_PORT 0x2f8     /* abi/vsenter.h */
#define SEL_CODE 0x10               /* VSENTER_SEL_CODE */
#define SEL_DATA 0x18               /* VSENTER_SEL_DATA */
#define AP_FLAG_OFF 0xff0           /* testk.c's AP_FLAG from its AP_CODE */

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
    /* testk's own GDT (in its measured image, as the virtual SENTER wants it) */
    lgdt testk_gdtr
    ljmp $SEL_CODE, $1f
1:  mov $SEL_DATA, %ecx
    mov %ecx, %ds
    mov %ecx, %es
    mov %ecx, %fs
    mov %ecx, %gs
    mov %ecx, %ss
    push %ebx
    push %eax
    call kmain
1:  cli
    hlt
    jmp 1b

    /*
     * The MLE's entry (its header's entry_point): the host put this CPU here with ESP = 0,
     * so the registers go to memory before anything else, EFLAGS right after a stack exists
     * (mov changes no flag). Then testk's own GDT, segments, an empty IDT, and C.
     */
    .globl post_launch
post_launch:
    mov %eax, launch_regs + 0
    mov %ebx, launch_regs + 4
    mov %ecx, launch_regs + 8
    mov %edx, launch_regs + 12
    mov %esi, launch_regs + 16
    mov %edi, launch_regs + 20
    mov %ebp, launch_regs + 24
    mov %esp, launch_regs + 28
    mov $stack_top, %esp
    pushf
    popl launch_regs + 32
    mov %cr0, %eax
    mov %eax, launch_regs + 36
    mov %cr3, %eax
    mov %eax, launch_regs + 40
    mov %cr4, %eax
    mov %eax, launch_regs + 44
    mov $0xc0000080, %ecx               /* EFER */
    rdmsr
    mov %eax, launch_regs + 48
    xor %eax, %eax
    mov %cs, %ax
    mov %eax, launch_regs + 52
    mov %ds, %ax
    mov %eax, launch_regs + 56
    mov %es, %ax
    mov %eax, launch_regs + 60
    mov %fs, %ax
    mov %eax, launch_regs + 64
    mov %gs, %ax
    mov %eax, launch_regs + 68
    mov %ss, %ax
    mov %eax, launch_regs + 72
    sgdt launch_regs + 76
    sidt launch_regs + 84
    cld
    lgdt testk_gdtr
    ljmp $SEL_CODE, $1f
1:  mov $SEL_DATA, %ecx
    mov %ecx, %ds
    mov %ecx, %es
    mov %ecx, %fs
    mov %ecx, %gs
    mov %ecx, %ss
    lidt idt0
    call post_launch_c
2:  cli
    hlt
    jmp 2b

    /* the requester's wait for the host's answer: a byte on COM2 (returned in EAX). It spins
     * with DF set and ZF/PF from the poll: the entry state must not depend on them */
    .globl vs_wait_byte
vs_wait_byte:
    push %edx
    std
1:  mov $(VSENTER_UART_PORT + 5), %dx
    inb %dx, %al
    test $1, %al
    jz 1b
    cld
    mov $VSENTER_UART_PORT, %dx
    inb %dx, %al
    movzbl %al, %eax
    pop %edx
    ret

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

    /*
     * vsap's request from CPU 1: real mode from the SIPI (CS = the page testk copied this
     * to), once CPU 0 set AP_FLAG right before it halts (the host must find CPU 0 halted), the
     * request line right after ap_request16_end (testk writes it there); the answer
     * goes to COM1 after "TESTK: ap vsenter: ", then ACPI S5 through PM1a_CNT (SeaBIOS puts
     * PMBASE at 0x600 on q35 and pc).
     */
    .globl ap_request16, ap_request16_end
    .code16
ap_request16:
    cli
    cld
    mov %cs, %ax
    mov %ax, %ds
0:  cmpb $0, AP_FLAG_OFF                /* CPU 0 is about to halt */
    je 0b
    mov $(ap_request16_end - ap_request16), %si
1:  lodsb                               /* the request, to its '\n' */
    mov $VSENTER_UART_PORT, %bx
    call ap_putc
    cmp $'\n', %al
    jne 1b
    mov $(ap_prefix - ap_request16), %si
2:  lodsb
    test %al, %al
    jz 3f
    mov $0x3f8, %bx
    call ap_putc
    jmp 2b
3:  mov $(VSENTER_UART_PORT + 5), %dx   /* the answer, to COM1 */
    inb %dx, %al
    test $1, %al
    jz 3b
    mov $VSENTER_UART_PORT, %dx
    inb %dx, %al
    mov $0x3f8, %bx
    call ap_putc
    cmp $'\n', %al
    jne 3b
    mov $0x604, %dx
    mov $0x2000, %ax                    /* SLP_TYP 0 (S5), SLP_EN */
    outw %ax, %dx
4:  hlt
    jmp 4b
ap_putc:                                /* %al to the UART at %bx */
    mov %ax, %cx
    lea 5(%bx), %dx
5:  inb %dx, %al
    test $0x20, %al
    jz 5b
    mov %bx, %dx
    mov %cx, %ax
    outb %al, %dx
    ret
ap_prefix:
    .asciz "TESTK: ap vsenter: "
ap_request16_end:
    .code32

    /* triple fault: an empty IDT, then an exception */
    .globl triple_fault
triple_fault:
    lidt idt0
    int3
    jmp triple_fault

    .section .rodata
    .balign 8
    .globl idt0
idt0:
    .short 0
    .long 0

    /* flat ring-0 code at 0x10 and data at 0x18 (accessed bits set: loading them writes
     * nothing into the measured image) */
    .balign 16
    .globl testk_gdt, testk_gdtr
testk_gdt:
    .quad 0
    .quad 0
    .quad 0x00cf9b000000ffff
    .quad 0x00cf93000000ffff
testk_gdtr:
    .short 31
    .long testk_gdt

    .bss
    .balign 16
stack:
    .skip 16384
stack_top:
    .section .note.GNU-stack, "", @progbits
