/* SPDX-License-Identifier: MIT */
/* The CPU tables both halves of vtboot run on (arch/x86/cpu.S, idt.c). */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

/* vtboot's IDT: every exception is reported and ends in a clean halt. */
void idt_install(void);
/* IDTR limit 0: an exception or NMI shuts the machine down (what a launch requester holds). */
void idt_load_empty(void);

#endif
