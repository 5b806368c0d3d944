/* SPDX-License-Identifier: MIT */
/* The I/O APIC at its fixed address (QEMU's pc and q35: 0xfec00000). */
#ifndef DRIVERS_IOAPIC_H
#define DRIVERS_IOAPIC_H

/* Masks every redirection entry (as many as the version register says), the rest of each
 * entry kept: no pin delivers anything, NMI, SMI or INIT included, until the kernel
 * programs it. */
void ioapic_mask_all(void);

#endif
