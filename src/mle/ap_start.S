/* SPDX-License-Identifier: MIT */
/*
 * The MLE's other CPUs (mle/takeover.c starts them with INIT-SIPI-SIPI):
 *   ap_start16: copied from the measured image to AP_START_BASE, where a SIPI enters it in
 *     real mode (CS = AP_START_BASE >> 4, IP = 0). It loads an empty IDT first (an NMI then
 *     shuts the machine down instead of running the real-mode IVT[2] handler a loader set),
 *     then vtboot's GDT, and enters protected mode in the image. A20 is on: the host checks
 *     it at the launch, and a SIPI does not change it.
 *   ap_entry32: the MLE's IDT, a count of CPUs that entered (smp/checkin.h), this CPU's stack
 *     by APIC ID, ap_checkin(apic_id), then ap_park.
 *   ap_park: interrupts off, halted, until the kernel INITs the CPU. An NMI here runs the MLE's
 *     handler, which keeps the CPU parked without an IRET (arch/x86/idt.c), so that further
 *     NMIs stay blocked.
 */
#include "arch/x86/entry.h"
#include "arch/x86/segments.h"

#define OFF(x) ((x) - ap_start16)
#define CR0_PE 1

    .section .text.apstart, "ax"
    .code16
    .globl ap_start16, ap_start16_end
ap_start16:
    lidtl %cs:OFF(ap_empty_idt)
    cli
    cld
    lgdtl %cs:OFF(ap_gdt_descriptor)
    movl %cr0, %eax
    orl $CR0_PE, %eax
    movl %eax, %cr0
    ljmpl $SEL_CODE32, $ap_entry32

    .balign 8
ap_empty_idt:
    .word 0
    .long 0
ap_gdt_descriptor:
    .word GDT_LIMIT
    .long gdt
ap_start16_end:

    .text
    .code32
ap_entry32:
    DATA_SEGMENTS
    lidt idt_descriptor
    lock incl ap_checkins           /* .entered: counted before anything can fail */
    movl $1, %eax
    cpuid
    shrl $24, %ebx                  /* the initial APIC ID */
    cmpl $MAX_CPUS, %ebx
    jae ap_park                     /* no stack of its own: entered, never recorded */
    movl %ebx, %eax
    incl %eax
    imull $CPU_STACK_SIZE, %eax
    addl $cpu_stacks, %eax
    movl %eax, %esp
    pushl $0
    popfl
    pushl %ebx
    call ap_checkin

    .globl ap_park, ap_park_end
ap_park:
    cli
    hlt
    jmp ap_park
ap_park_end:
