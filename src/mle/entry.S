/* SPDX-License-Identifier: MIT */
/*
 * mle_entry: the MLE's entry point (its MLE header names it), reached only through the
 * virtual SENTER. The host left 32-bit protected mode, paging and interrupts off, flat
 * segments from the GDT the requester had loaded (inside the MLE), and an empty IDT: any
 * exception or NMI before vtboot's IDT is loaded shuts the machine down. Nothing the requester
 * set is used: vtboot's own GDT and segments, .bss and stacks cleared (nothing from before
 * the launch survives there), its own stack and IDT, then C. EDX (the host's CPU count) is
 * kept for C, which trusts it only once PCR 17 confirms the launch.
 */
#include "arch/x86/entry.h"
#include "arch/x86/segments.h"

    .section .text.mle_entry, "ax"  /* kept: only the MLE header's offset names it */
    .code32
    .globl mle_entry
mle_entry:
    cli
    cld
    movl %edx, %esi                 /* FLAT_SETUP keeps ESI; .bss is cleared in it */
    lgdt gdt_descriptor
    ljmp $SEL_CODE32, $1f
1:  FLAT_SETUP
    movl %esi, mle_entry_cpus
    call mle_main            /* does not return */
2:  cli
    hlt
    jmp 2b
