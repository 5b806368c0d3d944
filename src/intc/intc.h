/* SPDX-License-Identifier: MIT */
/* The register values vtboot's interrupt-controller drivers write (drivers/apic.c, ioapic.c). */
#ifndef INTC_INTC_H
#define INTC_INTC_H

#include <stdint.h>

#define APIC_DEFAULT_BASE 0xfee00000u

/* IA32_APIC_BASE for vtboot: the architectural xAPIC base, enabled, the BSP flag as the CPU
 * has it; nothing of what a loader left (QEMU never moves the APIC's MMIO window with the
 * MSR, so another base turns every APIC write into a RAM write; x2APIC mode, which cannot
 * go straight to xAPIC, makes the write fault instead, and vtboot halts). */
uint64_t apic_base_for_vtboot(uint64_t current);

/* A local APIC LVT entry or an I/O APIC redirection entry (low dword), masked. */
uint32_t intc_entry_masked(uint32_t entry);

/* The number of redirection entries, from the I/O APIC's version register. */
unsigned ioapic_redirection_entries(uint32_t version);

#endif
