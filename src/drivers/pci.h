/* SPDX-License-Identifier: MIT */
/* PCI configuration space through the legacy 0xcf8/0xcfc mechanism (bus 0 devices only). */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include <stdint.h>

uint32_t pci_read32(unsigned dev, unsigned fn, unsigned reg);
void pci_write32(unsigned dev, unsigned fn, unsigned reg, uint32_t v);

#endif
