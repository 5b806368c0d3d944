/* SPDX-License-Identifier: MIT */
/* x86 port and memory-mapped I/O, and the few privileged instructions vtboot uses. */
#ifndef ARCH_X86_IO_H
#define ARCH_X86_IO_H

#include <stdint.h>

#include "arch/x86/cpuid.h"

static inline void outb(uint16_t port, uint8_t v) { __asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ __volatile__("outw %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ __volatile__("outl %0, %1" : : "a"(v), "Nd"(port)); }

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint16_t inw(uint16_t port)
{
    uint16_t v;
    __asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint32_t inl(uint16_t port)
{
    uint32_t v;
    __asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint8_t mmio_read8(uintptr_t a) { return *(volatile uint8_t *)a; }
static inline uint16_t mmio_read16(uintptr_t a) { return *(volatile uint16_t *)a; }
static inline uint32_t mmio_read32(uintptr_t a) { return *(volatile uint32_t *)a; }
static inline void mmio_write8(uintptr_t a, uint8_t v) { *(volatile uint8_t *)a = v; }
static inline void mmio_write16(uintptr_t a, uint16_t v) { *(volatile uint16_t *)a = v; }
static inline void mmio_write32(uintptr_t a, uint32_t v) { *(volatile uint32_t *)a = v; }

static inline void cpu_relax(void) { __asm__ __volatile__("pause" ::: "memory"); }

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static inline uint32_t cpu_apic_id(void)
{
    uint32_t r[4];
    cpuid(1, 0, r);
    return r[1] >> 24;
}

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ __volatile__("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

/* DR0-DR3, DR6 and DR7: no breakpoint armed, none recorded (a #DB runs whatever handles it). */
static inline void debug_regs_clear(void)
{
    __asm__ __volatile__("movl %0, %%dr7\n\tmovl %0, %%dr0\n\tmovl %0, %%dr1\n\t"
                         "movl %0, %%dr2\n\tmovl %0, %%dr3\n\tmovl %0, %%dr6"
                         : : "r"(0u));
}

static inline void wbinvd(void) { __asm__ __volatile__("wbinvd" ::: "memory"); }

__attribute__((noreturn)) static inline void cpu_halt_forever(void)
{
    for (;;)
        __asm__ __volatile__("cli; hlt");
}

#endif
