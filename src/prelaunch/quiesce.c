/* SPDX-License-Identifier: MIT */
#include "arch/x86/io.h"
#include "drivers/apic.h"
#include "drivers/ioapic.h"
#include "drivers/pci.h"
#include "drivers/pic.h"
#include "drivers/timer.h"
#include "log/printk.h"
#include "prelaunch/quiesce.h"

/* How long an INIT takes to reach every other CPU before the host looks at them. */
#define INIT_SETTLE_US 10000u

__attribute__((noinline)) void prelaunch_quiesce(void)
{
    /* the sources before the local APIC that receives them: QEMU clears a PIC interrupt it
     * already signalled only while LINT0 still accepts it, and a stale one later comes in
     * as vector -1 (a #GP) at the kernel's first STI */
    pic_mask_all();
    ioapic_mask_all();
    apic_take_over();
    unsigned functions = pci_quiesce_all();
    debug_regs_clear();
    /* twice: an AP that had a SIPI pending takes it after the first INIT */
    for (unsigned i = 0; i < 2; i++) {
        apic_init_others();
        timer_delay_us(INIT_SETTLE_US);
    }
    pr_detail("quiesced: local APIC, I/O APIC, PICs, %u PCI functions, debug registers; "
              "the other CPUs INITed\n", functions);
}
