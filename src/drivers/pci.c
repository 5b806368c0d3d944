/* SPDX-License-Identifier: MIT */
#include "arch/x86/io.h"
#include "drivers/pci.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA 0xcfc

static uint32_t address(unsigned dev, unsigned fn, unsigned reg)
{
    return 0x80000000u | (dev & 0x1fu) << 11 | (fn & 7u) << 8 | (reg & 0xfcu);
}

uint32_t pci_read32(unsigned dev, unsigned fn, unsigned reg)
{
    outl(PCI_CONFIG_ADDRESS, address(dev, fn, reg));
    return inl(PCI_CONFIG_DATA);
}

void pci_write32(unsigned dev, unsigned fn, unsigned reg, uint32_t v)
{
    outl(PCI_CONFIG_ADDRESS, address(dev, fn, reg));
    outl(PCI_CONFIG_DATA, v);
}
