/* SPDX-License-Identifier: MIT */
/*
 * echo: the test ACM of the emulated GETSEC[ENTERACCS]/[EXITAC] and [SENTER]
 * (docs/txt-platform.md "0005", "0006"; tests/qemu/test_txt_acmode.py, test_txt_senter.py). It does no SINIT work: it saves the register state it was
 * entered with into the caller's buffer (ESI; layout in echo.h), reads the TXT status through
 * both configuration spaces, the TPM's locality 3 ACCESS byte and IA32_MISC_ENABLE, closes and
 * opens the private space, reads its own first dword, makes the private-space writes the caller
 * lists (echo.h), closes the private space it was given (not after SENTER), gives the caller its GDT back and leaves
 * with EXITAC to the return address ENTERACCS passed in EBX (or, after SENTER, the caller's
 * input gave: echo.h ECHO_IN_EXIT_EIP).
 *
 * It runs wherever the caller copied it (a 4 KiB-aligned ACBASE) and touches no address of its
 * own, so it needs no relocation: everything is ESI-, EBP- or ESP-relative or a fixed MMIO
 * address. The stack is the caller's (ESP passes through ENTERACCS): the few bytes the ACM
 * pushes are popped again before EXITAC, so the caller's ESP is what it was.
 *
 * EDI != 0: spin EDI iterations before reading the image, long enough for a device to DMA
 * over the RAM copy of the module (which the ACM must not see: it runs from ACRAM).
 */
#include "echo.h"

#define R(i) ((i) * 4)(%esi)

#define TXT_PRIV_BASE 0xfed20000
#define TXT_PRIV_STS TXT_PRIV_BASE
#define TXT_PRIV_CMD_OPEN_PRIVATE 0xfed20040
#define TXT_PRIV_CMD_CLOSE_PRIVATE 0xfed20048
#define TXT_PUB_STS 0xfed30000
#define TIS_LOC3_ACCESS 0xfed43000
#define IA32_MISC_ENABLE 0x1a0
#define GETSEC_EXITAC 3

    .text
    .globl echo_entry
echo_entry:
    /* EAX and EFLAGS first: nothing below may change them before they are saved */
    mov %eax, R(ECHO_R_EAX)
    pushfl
    popl R(ECHO_R_EFLAGS)
    mov %ebx, R(ECHO_R_EBX)
    mov %ecx, R(ECHO_R_ECX)
    mov %edx, R(ECHO_R_EDX)
    mov %esi, R(ECHO_R_ESI)
    mov %edi, R(ECHO_R_EDI)
    mov %ebp, R(ECHO_R_EBP)
    mov %esp, R(ECHO_R_ESP)
    call 1f                              /* pushes the address of 1: */
1:  pop %eax
    sub $(1b - echo_entry), %eax
    mov %eax, R(ECHO_R_EIP)
    mov %cr0, %eax
    mov %eax, R(ECHO_R_CR0)
    mov %cr4, %eax
    mov %eax, R(ECHO_R_CR4)
    mov %dr7, %eax
    mov %eax, R(ECHO_R_DR7)
    xor %eax, %eax                       /* a selector fills only the low word */
    mov %cs, %ax
    mov %eax, R(ECHO_R_CS)
    mov %ds, %ax
    mov %eax, R(ECHO_R_DS)
    mov %es, %ax
    mov %eax, R(ECHO_R_ES)
    mov %ss, %ax
    mov %eax, R(ECHO_R_SS)
    sub $8, %esp
    sgdt (%esp)
    movzwl (%esp), %eax
    mov %eax, R(ECHO_R_GDTR_LIMIT)
    mov 2(%esp), %eax
    mov %eax, R(ECHO_R_GDTR_BASE)

    /* the chipset as AC mode sees it */
    mov TXT_PRIV_STS, %eax
    mov %eax, R(ECHO_R_PRIV_STS)
    mov TXT_PUB_STS, %eax
    mov %eax, R(ECHO_R_PUB_STS)
    movzbl TIS_LOC3_ACCESS, %eax
    mov %eax, R(ECHO_R_TIS_LOC3_ACCESS)
    push %ecx                            /* ECX and EDX carry the caller's GDTR */
    push %edx
    mov $IA32_MISC_ENABLE, %ecx
    rdmsr
    mov %eax, R(ECHO_R_MISC_ENABLE)
    pop %edx
    pop %ecx

    /* the private space closed (reads all-ones) and opened again: CMD.OPEN-PRIVATE is honoured
     * from AC mode, also while the space is closed */
    movl $1, TXT_PRIV_CMD_CLOSE_PRIVATE
    mov TXT_PRIV_STS, %eax
    mov %eax, R(ECHO_R_PRIV_STS_CLOSED)
    movl $1, TXT_PRIV_CMD_OPEN_PRIVATE
    mov TXT_PRIV_STS, %eax
    mov %eax, R(ECHO_R_PRIV_STS_REOPENED)

    test %edi, %edi
    jz 3f
2:  pause
    dec %edi
    jnz 2b
3:  mov (%ebp), %eax                     /* through DS, at ACBASE: which copy is running */
    mov %eax, R(ECHO_R_IMAGE)
    movl $ECHO_MAGIC, R(ECHO_R_MAGIC)

    /* the caller's private-space writes (echo.h); EAX and EDI are free here */
    mov R(ECHO_IN_WRITE0_OFF), %eax
    test %eax, %eax
    jz 5f
    mov R(ECHO_IN_WRITE0_VAL), %edi
    mov %edi, TXT_PRIV_BASE(%eax)
    mov R(ECHO_IN_WRITE1_OFF), %eax
    test %eax, %eax
    jz 5f
    mov R(ECHO_IN_WRITE1_VAL), %edi
    mov %edi, TXT_PRIV_BASE(%eax)
5:

    /* ENTERACCS opened the private space and EXITAC leaves it as it is (SDM): an ACM that
     * launches nothing closes it, so the caller sees it closed again; after SENTER (an exit
     * address given) it stays open, as SINIT leaves it for the MLE (MLE.JOIN, the CMDs) */
    cmpl $0, R(ECHO_IN_EXIT_EIP)
    jne 7f
    movl $1, TXT_PRIV_CMD_CLOSE_PRIVATE
7:

    /* the caller's GDTR, from ECX[31:16] (limit) and EDX (base) as ENTERACCS passed them, or
     * with the return address from the caller's input (SENTER passes neither) */
    mov R(ECHO_IN_EXIT_EIP), %eax
    test %eax, %eax
    jz 6f
    mov %eax, %ebx
    mov R(ECHO_IN_EXIT_GDTR_LIMIT), %ecx
    shl $16, %ecx
    mov R(ECHO_IN_EXIT_GDTR_BASE), %edx
6:  mov %edx, 2(%esp)
    shr $16, %ecx
    mov %cx, (%esp)
    lgdt (%esp)
    add $8, %esp
    mov $GETSEC_EXITAC, %eax             /* EBX: the return address */
    xor %edx, %edx
    .byte 0x0f, 0x37                     /* getsec */
4:  hlt                                  /* EXITAC does not come back */
    jmp 4b
    .section .note.GNU-stack, "", @progbits
