/* SPDX-License-Identifier: MIT */
#include <stdint.h>

#include "arch/x86/io.h"
#include "arch/x86/segments.h"
#include "drivers/apic.h"
#include "drivers/interrupts.h"
#include "drivers/pci.h"
#include "drivers/timer.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "log/printk.h"
#include "prelaunch/quiesce.h"

/* How long an INIT or SIPI takes to reach every other CPU before the host looks at them. */
#define INIT_SETTLE_US 10000u

/* real mode: cli; 1: hlt; jmp 1b (the MLE copies its own start-up code over it later) */
static const uint8_t halt_loop16[] = { 0xfa, 0xf4, 0xeb, 0xfd };

__attribute__((noinline)) void prelaunch_quiesce(void)
{
    interrupts_mask_all();
    unsigned functions = pci_quiesce_all();
    debug_regs_clear();
    /* QEMU acts on an INIT only when the halted CPU wakes for something else: until then its
     * local APIC keeps what a loader set. A SIPI into a halt loop wakes it, so the INIT resets
     * its APIC, and it halts with interrupts off. Twice: an AP that had a SIPI pending takes
     * that one after the first INIT. */
    memcpy(phys_map(AP_START_BASE, sizeof(halt_loop16)), halt_loop16, sizeof(halt_loop16));
    for (unsigned i = 0; i < 2; i++) {
        apic_init_others();
        timer_delay_us(INIT_SETTLE_US);
        apic_startup_others(AP_START_BASE);
        timer_delay_us(INIT_SETTLE_US);
    }
    pr_detail("quiesced: local APIC, I/O APIC, PICs, %u PCI functions, debug registers; "
              "the other CPUs INITed and halted\n", functions);
}
