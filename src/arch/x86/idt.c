/* SPDX-License-Identifier: MIT */
/* The exception table: any fault in vtboot is reported on the log and ends in a clean halt. */
#include <stdint.h>

#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "arch/x86/segments.h"
#include "layout.h"
#include "log/printk.h"
#include "common/halt.h"
#include "common/machine.h"

struct exception_frame {
    uint32_t cr2;
    uint32_t edi, esi, ebp, esp, ebx, edx, ecx, eax;
    uint32_t vector, error, eip, cs, eflags;
};

struct idt_gate {
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t zero;
    uint8_t type;                    /* 0x8e: present, ring 0, 32-bit interrupt gate */
    uint16_t offset_hi;
} __attribute__((packed));

#define NR_EXCEPTIONS 32
#define STUB_SIZE 16

extern const uint8_t exception_stubs[];
extern const char ap_park[], ap_park_end[];
static struct idt_gate idt[NR_EXCEPTIONS];
/* not static: the MLE's parked APs load it too (ap_start.S) */
struct __attribute__((packed)) { uint16_t limit; uint32_t base; } idt_descriptor;

void exception_handler(const struct exception_frame *f);

void idt_install(void)
{
    for (unsigned v = 0; v < NR_EXCEPTIONS; v++) {
        uint32_t a = (uint32_t)(uintptr_t)(exception_stubs + v * STUB_SIZE);
        idt[v] = (struct idt_gate){ (uint16_t)a, SEL_CODE32, 0, 0x8e, (uint16_t)(a >> 16) };
    }
    idt_descriptor.limit = sizeof(idt) - 1;
    idt_descriptor.base = (uint32_t)(uintptr_t)idt;
    __asm__ __volatile__("lidt %0" : : "m"(idt_descriptor));
}

static const char *const exception_names[NR_EXCEPTIONS] = {
    "divide error", "debug", "NMI", "breakpoint", "overflow", "bound range", "invalid opcode",
    "device not available", "double fault", "coprocessor overrun", "invalid TSS",
    "segment not present", "stack fault", "general protection", "page fault", "reserved",
    "x87 error", "alignment check", "machine check", "SIMD error", "virtualization",
    "control protection",
};

void exception_handler(const struct exception_frame *f)
{
    static int nesting;

    /* An NMI on a parked AP (ap_start.S): it stays parked, silent (the console is the
     * launching CPU's), without an IRET, so that further NMIs stay blocked. */
    if (f->eip >= sym_addr(ap_park) && f->eip < sym_addr(ap_park_end))
        cpu_halt_forever();
    if (nesting++)
        machine_stop_cpu();
    printk_break_lock();
    const char *name = f->vector < NR_EXCEPTIONS && exception_names[f->vector]
                           ? exception_names[f->vector] : "reserved";
    pr_err("CPU exception %u (%s), error code 0x%x, at eip 0x%08x (cr2 0x%08x)\n", f->vector,
           name, f->error, f->eip, f->cr2);
    pr_err("eax %08x ebx %08x ecx %08x edx %08x esi %08x edi %08x ebp %08x\n", f->eax, f->ebx,
           f->ecx, f->edx, f->esi, f->edi, f->ebp);
    halt("CPU exception in vtboot");
}
