/* SPDX-License-Identifier: MIT */
/* PCI configuration space through the legacy 0xcf8/0xcfc mechanism. */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include <stdint.h>

/* Bus 0 devices. */
uint32_t pci_read32(unsigned dev, unsigned fn, unsigned reg);
void pci_write32(unsigned dev, unsigned fn, unsigned reg, uint32_t v);

/* Every function on bus 0 and behind every bridge (pci/walk.h): bus mastering, MSI and MSI-X
 * off, so that no device writes memory or sends an interrupt message until its driver says
 * so. Returns the functions seen. */
unsigned pci_quiesce_all(void);

#endif
