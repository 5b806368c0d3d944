/* SPDX-License-Identifier: MIT */
#include "arch/x86/io.h"
#include "drivers/pci.h"
#include "pci/walk.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA 0xcfc

static uint32_t address(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
    return 0x80000000u | (bus & 0xffu) << 16 | (dev & 0x1fu) << 11 | (fn & 7u) << 8 |
           (reg & 0xfcu);
}

static uint32_t config_read(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
    outl(PCI_CONFIG_ADDRESS, address(bus, dev, fn, reg));
    return inl(PCI_CONFIG_DATA);
}

static void config_write(unsigned bus, unsigned dev, unsigned fn, unsigned reg, uint32_t v)
{
    outl(PCI_CONFIG_ADDRESS, address(bus, dev, fn, reg));
    outl(PCI_CONFIG_DATA, v);
}

uint32_t pci_read32(unsigned dev, unsigned fn, unsigned reg)
{
    return config_read(0, dev, fn, reg);
}

void pci_write32(unsigned dev, unsigned fn, unsigned reg, uint32_t v)
{
    config_write(0, dev, fn, reg, v);
}

static uint32_t walk_read(void *ctx, struct pci_fn f, unsigned reg)
{
    (void)ctx;
    return config_read(f.bus, f.dev, f.fn, reg);
}

/* Writes keep the dword's other half: the capability ID and next pointer are read-only, and
 * the status register's write-1-to-clear bits get zeros (unchanged). */
static void quiesce_fn(void *ctx, struct pci_fn f)
{
    struct pci_cap caps[PCI_CAP_MAX];
    (void)ctx;

    uint16_t command = (uint16_t)config_read(f.bus, f.dev, f.fn, PCI_COMMAND);
    uint16_t quiet_command = pci_command_quiesced(command);
    if (quiet_command != command)
        config_write(f.bus, f.dev, f.fn, PCI_COMMAND, quiet_command);
    unsigned n = pci_walk_caps(walk_read, 0, f, caps);
    for (unsigned i = 0; i < n; i++) {
        uint32_t v = config_read(f.bus, f.dev, f.fn, caps[i].off);
        uint16_t control = (uint16_t)(v >> 16);
        uint16_t quiet = pci_cap_control_quiesced(caps[i].id, control);
        if (quiet != control)
            config_write(f.bus, f.dev, f.fn, caps[i].off, (v & 0xffffu) | (uint32_t)quiet << 16);
    }
}

unsigned pci_quiesce_all(void)
{
    return pci_walk_functions(walk_read, 0, quiesce_fn, 0);
}
