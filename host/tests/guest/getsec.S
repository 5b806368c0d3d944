/* SPDX-License-Identifier: MIT */
/*
 * getsec's multiboot1 header, entry, GDT, IDT stubs and fault probes (getsec.c).
 *
 * A probe runs one instruction that may fault. It sets fault_resume to its resume label; the
 * exception handler (getsec_trap) sees fault_resume set, records the fault and returns to the
 * label with EAX = GETSEC_FAULT | vector << 16 | error code (the probe's result, 0 when the
 * instruction completed). Faults are taken at CPL 0 without a stack switch, so the label runs
 * on the probe's own stack.
 */
#include "abi/multiboot1.h"

#define MB1_FLAGS (MB1_HF_PAGE_ALIGN | MB1_HF_MEMORY_INFO)
#define SEL_CODE 0x08
#define SEL_DATA 0x10

    .section .multiboot, "a"
    .balign 4
    .long MB1_HEADER_MAGIC, MB1_FLAGS, -(MB1_HEADER_MAGIC + MB1_FLAGS)

    .text
    .globl _start
_start:
    cli
    cld
    mov $stack_top, %esp
    lgdt gdtr
    ljmp $SEL_CODE, $1f
1:  mov $SEL_DATA, %ecx
    mov %ecx, %ds
    mov %ecx, %es
    mov %ecx, %fs
    mov %ecx, %gs
    mov %ecx, %ss
    push %ebx
    push %eax
    call getsec_main
2:  cli
    hlt
    jmp 2b

/* the exception stubs: vectors with an error code push only their number */
.macro stub vec, has_err
    .balign 8
stub_\vec:
    .if \has_err == 0
    push $0
    .endif
    push $\vec
    jmp trap_common
.endm
    .balign 8
    .globl idt_stubs
idt_stubs:
    stub 0, 0
    stub 1, 0
    stub 2, 0
    stub 3, 0
    stub 4, 0
    stub 5, 0
    stub 6, 0
    stub 7, 0
    stub 8, 1
    stub 9, 0
    stub 10, 1
    stub 11, 1
    stub 12, 1
    stub 13, 1
    stub 14, 1
    stub 15, 0
    stub 16, 0
    stub 17, 1
    stub 18, 0
    stub 19, 0
    stub 20, 0
    stub 21, 1
    stub 22, 0
    stub 23, 0
    stub 24, 0
    stub 25, 0
    stub 26, 0
    stub 27, 0
    stub 28, 0
    stub 29, 1
    stub 30, 1
    stub 31, 0
    .globl idt_stub_table
    .section .rodata
    .balign 4
idt_stub_table:
    .irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    .long stub_\v
    .endr

    .text
/* the frame getsec_trap gets (struct trap_frame in getsec.c): pusha's registers, the vector,
 * the error code, then what the CPU pushed (EIP, CS, EFLAGS) */
trap_common:
    pusha
    push %esp
    call getsec_trap
    add $4, %esp
    popa
    add $8, %esp
    iret

/* uint32_t probe_rdmsr(uint32_t msr, uint64_t *val) */
    .globl probe_rdmsr
probe_rdmsr:
    mov 4(%esp), %ecx
    movl $1f, fault_resume
    .globl probe_rdmsr_insn
probe_rdmsr_insn:
    rdmsr
    mov 8(%esp), %ecx
    mov %eax, (%ecx)
    mov %edx, 4(%ecx)
    xor %eax, %eax
1:  movl $0, fault_resume
    ret

/* uint32_t probe_wrmsr(uint32_t msr, uint64_t val) */
    .globl probe_wrmsr
probe_wrmsr:
    mov 4(%esp), %ecx
    mov 8(%esp), %eax
    mov 12(%esp), %edx
    movl $1f, fault_resume
    .globl probe_wrmsr_insn
probe_wrmsr_insn:                       /* the EIP a fault reports (tests/qemu/test_txt_cpu.py) */
    wrmsr
    xor %eax, %eax
1:  movl $0, fault_resume
    ret

/* uint32_t probe_write_cr4(uint32_t val) */
    .globl probe_write_cr4
probe_write_cr4:
    mov 4(%esp), %ecx
    movl $1f, fault_resume
    .globl probe_write_cr4_insn
probe_write_cr4_insn:
    mov %ecx, %cr4
    xor %eax, %eax
1:  movl $0, fault_resume
    ret

/* uint32_t probe_getsec(struct regs *r): GETSEC with EAX, EBX, ECX, EDX, ESI, EDI from *r,
 * the registers it leaves written back to *r (not after a fault) */
    .globl probe_getsec
probe_getsec:
    push %ebp
    push %ebx
    push %esi
    push %edi
    mov 20(%esp), %ebp
    mov 0(%ebp), %eax
    mov 4(%ebp), %ebx
    mov 8(%ebp), %ecx
    mov 12(%ebp), %edx
    mov 16(%ebp), %esi
    mov 20(%ebp), %edi
    movl $1f, fault_resume
    .globl probe_getsec_insn
probe_getsec_insn:
    .byte 0x0f, 0x37                    /* getsec */
    mov %eax, 0(%ebp)
    mov %ebx, 4(%ebp)
    mov %ecx, 8(%ebp)
    mov %edx, 12(%ebp)
    mov %esi, 16(%ebp)
    mov %edi, 20(%ebp)
    xor %eax, %eax
1:  movl $0, fault_resume
    pop %edi
    pop %esi
    pop %ebx
    pop %ebp
    ret

/* uint32_t probe_getsec_prefixed(uint32_t prefix): GETSEC[CAPABILITIES] (EAX = EBX = 0)
 * behind the prefix byte 0xf0 (LOCK), 0xf2 (REPNE), 0xf3 (REP) or 0x66 (operand size); 0 if
 * it completed, or the fault; another prefix value runs it without one */
    .globl probe_getsec_prefixed
probe_getsec_prefixed:
    push %ebx
    mov 8(%esp), %ecx
    xor %eax, %eax
    xor %ebx, %ebx
    movl $1f, fault_resume
    cmp $0xf0, %ecx
    je 2f
    cmp $0xf2, %ecx
    je 3f
    cmp $0xf3, %ecx
    je 4f
    cmp $0x66, %ecx
    je 5f
    .byte 0x0f, 0x37
    jmp 6f
2:
    .globl probe_getsec_lock_insn
probe_getsec_lock_insn:
    .byte 0xf0, 0x0f, 0x37
    jmp 6f
3:
    .globl probe_getsec_repne_insn
probe_getsec_repne_insn:
    .byte 0xf2, 0x0f, 0x37
    jmp 6f
4:
    .globl probe_getsec_rep_insn
probe_getsec_rep_insn:
    .byte 0xf3, 0x0f, 0x37
    jmp 6f
5:
    .globl probe_getsec_opsize_insn
probe_getsec_opsize_insn:
    .byte 0x66, 0x0f, 0x37
6:  xor %eax, %eax
1:  movl $0, fault_resume
    pop %ebx
    ret

/*
 * getsec's MLE (getsec_launch.c): tboot's MLE header (include/abi/mle.h), the entry our SINIT
 * leaves to with EXITAC, and a page of 0xee that a device's DMA must not reach once the SINIT
 * set the PMRs. The SINIT's GDT and IDT were in ACRAM, which EXITAC scrubbed: the entry loads
 * getsec's before anything reads a descriptor, takes back the stack acmode_getsec left and
 * returns from it as an ACM's EXITAC would (acmode_return).
 */
    .section .mle, "awx"
    .balign 4096
    .globl mle_start
mle_start:
mle_hdr:
    .byte 0x5a, 0xac, 0x82, 0x90, 0x6f, 0x47, 0xa7, 0x74
    .byte 0x0f, 0x5c, 0x55, 0xa2, 0xcb, 0x51, 0xb6, 0x42
    .long 0x34                           /* length */
    .long 0x00020001                     /* version 2.1 */
    .long mle_entry - mle_start
    .long 0                              /* first_valid_page */
    .long 0, mle_end - mle_start         /* mle_start_off, mle_end_off */
    .long 0x201                          /* GETSEC wake-up, TCG event log */
    .long 0, 0                           /* no command line */
    .globl mle_entry
mle_entry:
    mov %ebx, mle_entered_at
    lgdt gdtr
    lidt getsec_idtr
    mov acmode_esp, %esp
    jmp acmode_return
    .balign 4096
    .globl mle_target
mle_target:
    .fill 4096, 1, 0xee
    .globl mle_end
mle_end:

    .data
    .balign 4
    .globl mle_entered_at
mle_entered_at:                          /* EBX at the MLE's entry: its physical address */
    .long 0

    .section .rodata
    .balign 8
/* flat ring-0 code at 0x08 and data at 0x10 */
gdt:
    .quad 0
    .quad 0x00cf9b000000ffff
    .quad 0x00cf93000000ffff
gdtr:
    .short 23
    .long gdt

    .bss
    .balign 16
    .skip 16384
stack_top:
    .section .note.GNU-stack, "", @progbits
