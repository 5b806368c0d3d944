/* SPDX-License-Identifier: MIT */
/*
 * void linux_enter(uint32_t entry, uint32_t boot_params): the Linux 32-bit boot protocol
 * (Documentation/x86/boot.rst, "32-bit boot protocol"): flat __BOOT_CS/__BOOT_DS, paging and
 * interrupts off, ESI = zero page, EBP = EDI = EBX = 0.
 */
#include "arch/x86/entry.h"
#include "arch/x86/segments.h"

    .text
    .code32
    .globl linux_enter
linux_enter:
    movl 4(%esp), %edx
    movl 8(%esp), %esi
    cli
    lgdt gdt_descriptor
    ljmp $SEL_CODE32, $1f
1:  DATA_SEGMENTS
    movl %esi, %eax
    xorl %ebp, %ebp
    xorl %edi, %edi
    xorl %ebx, %ebx
    jmp *%edx
