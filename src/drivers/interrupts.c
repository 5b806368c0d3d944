/* SPDX-License-Identifier: MIT */
#include "drivers/apic.h"
#include "drivers/interrupts.h"
#include "drivers/ioapic.h"
#include "drivers/pic.h"

void interrupts_mask_all(void)
{
    /* the sources before the local APIC that receives them: QEMU clears a PIC interrupt it
     * already signalled only while LINT0 still accepts it, and a stale one later comes in
     * as vector -1 (a #GP) at the kernel's first STI */
    pic_mask_all();
    ioapic_mask_all();
    apic_take_over();
}
