/* SPDX-License-Identifier: MIT */
/*
 * PCI configuration space walks, over a read callback (pure: the driver supplies ports
 * 0xcf8/0xcfc, tests a fake): the functions on bus 0 and behind every bridge, and a
 * function's capability list. A device controls its own config space, so both walks are
 * bounded and refuse loops: each bus is scanned once, a capability list ends at 48 entries
 * (every dword slot from 0x40 to 0xfc) or at the first pointer it has already seen.
 */
#ifndef PCI_WALK_H
#define PCI_WALK_H

#include <stdint.h>

#define PCI_COMMAND 0x04                /* command (low 16 bits), status (high 16) */
#define PCI_COMMAND_MASTER 0x0004u
#define PCI_CAP_ID_MSI 0x05
#define PCI_CAP_ID_MSIX 0x11
#define PCI_CAP_MAX 48                  /* dword slots 0x40-0xfc */

struct pci_fn {
    uint8_t bus, dev, fn;
};

/* The dword at reg (a multiple of 4) of a function's config space. */
typedef uint32_t (*pci_config_read)(void *ctx, struct pci_fn f, unsigned reg);
typedef void (*pci_fn_visit)(void *ctx, struct pci_fn f);

/* Calls visit for every present function (vendor ID not 0xffff) on bus 0 and on the
 * secondary bus of every PCI-to-PCI bridge found, each bus once (a bridge naming a bus that
 * is not above its own, or one already scanned, adds nothing). Returns the functions visited. */
unsigned pci_walk_functions(pci_config_read read, void *ctx, pci_fn_visit visit, void *vctx);

struct pci_cap {
    uint8_t id, off;
};

/* The capability list of a function (empty without the status register's list bit), in
 * list order, at most PCI_CAP_MAX entries; returns how many. */
unsigned pci_walk_caps(pci_config_read read, void *ctx, struct pci_fn f,
                       struct pci_cap caps[PCI_CAP_MAX]);

/* The command register with bus mastering off (no DMA, no MSI: QEMU sends both through it). */
uint16_t pci_command_quiesced(uint16_t command);
/* A capability's message control with MSI or MSI-X off; any other capability's as it is. */
uint16_t pci_cap_control_quiesced(uint8_t id, uint16_t control);

#endif
