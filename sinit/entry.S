/* SPDX-License-Identifier: MIT */
/*
 * The SINIT's entry from GETSEC[SENTER] (docs/txt-platform.md 3.4 step 1). The CPU left
 * (SDM, "Register State Initialization after GETSEC[SENTER]"): paging off, flat CS/DS/SS of
 * the ACM's GDT, EBP = EBX = ACBASE (where ACRAM holds the module), EDX = SENTER's flags,
 * every event masked. The image is linked at 0 and runs at ACBASE + the payload's offset, so
 * this code first finds where it runs, computes the module's own digest while the image is
 * still as signed, applies the R_386_RELATIVE relocations (into ACRAM; the RAM copy and the
 * measurement stay as they were), takes its own stack and enters sinit_main().
 */
#include "sinit.h"

#define GETSEC_EXITAC 3
#define R_386_RELATIVE 8

    .section .sinit_entry, "ax"
    .globl sinit_entry
sinit_entry:
    cld
    mov %edx, %edi                       /* SENTER's EDX, kept for sinit_main */
    /* EBX := the GOT, the PIC base every C function uses (no relocation needed for it) */
    call 1f
1:  pop %ebx
    add $_GLOBAL_OFFSET_TABLE_ + (. - 1b), %ebx
    lea sinit_stack_top@GOTOFF(%ebx), %esp
    /* the module's digest before anything in it changes (sinit_acm_digest uses no pointer
     * stored in the image, so it runs unrelocated) */
    push %ebp
    call sinit_acm_digest
    add $4, %esp
    /* load base: where link address 0 runs (sinit.ld puts sinit_entry there) */
    lea sinit_entry@GOTOFF(%ebx), %esi
    lea __rel_start@GOTOFF(%ebx), %ecx
    lea __rel_end@GOTOFF(%ebx), %edx
2:  cmp %edx, %ecx
    jae 4f
    cmpb $R_386_RELATIVE, 4(%ecx)        /* ELF32_R_TYPE(r_info) */
    jne 3f
    mov (%ecx), %eax                     /* r_offset: a link address */
    add %esi, (%esi, %eax)
    add $8, %ecx
    jmp 2b
3:  call sinit_bad_relocation           /* a relocation this loader does not apply */
4:  push %edi
    push %ebp
    call sinit_main                      /* does not return */
5:  hlt
    jmp 5b

/* Exception stubs: a fault in the SINIT is a failed launch (sinit_exception) */
    .align SINIT_STUB_SIZE
    .globl sinit_exception_stubs
sinit_exception_stubs:
    .set vec, 0
    .rept 32
    .align SINIT_STUB_SIZE
    push $vec
    jmp exception_common
    .set vec, vec + 1
    .endr
exception_common:
    call 1f
1:  pop %ebx
    add $_GLOBAL_OFFSET_TABLE_ + (. - 1b), %ebx
    call sinit_exception                 /* (vector, error code or EIP) on the stack */
6:  hlt
    jmp 6b

/* void sinit_exitac(uint32_t target, uint32_t ecx): GETSEC[EXITAC] to `target` (EBX), ECX as
 * given, EDX 0 (the SDM requires it) */
    .text
    .globl sinit_exitac
sinit_exitac:
    mov 4(%esp), %ebx
    mov 8(%esp), %ecx
    xor %edx, %edx
    xor %esi, %esi
    xor %edi, %edi
    xor %ebp, %ebp
    mov $GETSEC_EXITAC, %eax
    .byte 0x0f, 0x37                     /* getsec */
7:  hlt
    jmp 7b

    .section .note.GNU-stack, "", @progbits
