/* SPDX-License-Identifier: MIT */
/* Every interrupt controller that can reach this CPU, quiet (the pre-launch code before it asks
 * for the launch, the MLE again once the launch is confirmed). */
#ifndef DRIVERS_INTERRUPTS_H
#define DRIVERS_INTERRUPTS_H

/* Both 8259s and every I/O APIC entry masked, then this CPU's local APIC made vtboot's
 * (apic_take_over). */
void interrupts_mask_all(void);

#endif
