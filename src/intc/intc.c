/* SPDX-License-Identifier: MIT */
#include "intc/intc.h"

#define APIC_BASE_BSP (1u << 8)
#define APIC_BASE_ENABLE (1u << 11)
#define INTC_MASKED (1u << 16)

uint64_t apic_base_for_vtboot(uint64_t current)
{
    return APIC_DEFAULT_BASE | APIC_BASE_ENABLE | (current & APIC_BASE_BSP);
}

uint32_t intc_entry_masked(uint32_t entry)
{
    return entry | INTC_MASKED;
}

unsigned ioapic_redirection_entries(uint32_t version)
{
    return ((version >> 16) & 0xffu) + 1;
}
