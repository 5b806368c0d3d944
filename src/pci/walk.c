/* SPDX-License-Identifier: MIT */
#include <stdbool.h>

#include "pci/walk.h"

#define PCI_VENDOR_NONE 0xffffu
#define PCI_HEADER 0x0c                 /* header type: bits 16-22, multi-function: bit 23 */
#define PCI_HEADER_MULTIFUNCTION (1u << 23)
#define PCI_HEADER_BRIDGE 1u
#define PCI_BUSES 0x18                  /* a bridge's primary, secondary, subordinate bus */
#define PCI_CAP_PTR 0x34
#define PCI_STATUS_CAP_LIST (1u << 20)  /* in the COMMAND dword */
#define PCI_CAP_FIRST 0x40              /* pointers below are inside the header: the end */
#define PCI_MSI_ENABLE 0x0001u
#define PCI_MSIX_ENABLE 0x8000u

static bool present(pci_config_read read, void *ctx, struct pci_fn f)
{
    return (read(ctx, f, 0) & 0xffffu) != PCI_VENDOR_NONE;
}

unsigned pci_walk_functions(pci_config_read read, void *ctx, pci_fn_visit visit, void *vctx)
{
    uint32_t scanned[256 / 32] = { 1u };   /* bus 0 */
    uint8_t queue[256] = { 0 };
    unsigned nq = 1, visited = 0;

    for (unsigned q = 0; q < nq; q++) {
        for (unsigned dev = 0; dev < 32; dev++) {
            for (unsigned fn = 0; fn < 8; fn++) {
                struct pci_fn f = { queue[q], (uint8_t)dev, (uint8_t)fn };
                if (!present(read, ctx, f)) {
                    if (fn == 0)
                        break;              /* no device */
                    continue;
                }
                uint32_t header = read(ctx, f, PCI_HEADER);
                visit(vctx, f);
                visited++;
                if (((header >> 16) & 0x7fu) == PCI_HEADER_BRIDGE) {
                    unsigned sec = (read(ctx, f, PCI_BUSES) >> 8) & 0xffu;
                    if (sec > f.bus && !(scanned[sec / 32] & (1u << (sec % 32)))) {
                        scanned[sec / 32] |= 1u << (sec % 32);
                        queue[nq++] = (uint8_t)sec;
                    }
                }
                if (fn == 0 && !(header & PCI_HEADER_MULTIFUNCTION))
                    break;                  /* a single-function device */
            }
        }
    }
    return visited;
}

unsigned pci_walk_caps(pci_config_read read, void *ctx, struct pci_fn f,
                       struct pci_cap caps[PCI_CAP_MAX])
{
    uint64_t seen = 0;                      /* one bit per dword slot from PCI_CAP_FIRST */
    unsigned n = 0;

    if (!(read(ctx, f, PCI_COMMAND) & PCI_STATUS_CAP_LIST))
        return 0;
    unsigned ptr = read(ctx, f, PCI_CAP_PTR) & 0xfcu;
    while (ptr >= PCI_CAP_FIRST && !(seen & (1ull << ((ptr - PCI_CAP_FIRST) / 4)))) {
        seen |= 1ull << ((ptr - PCI_CAP_FIRST) / 4);
        uint32_t v = read(ctx, f, ptr);
        caps[n++] = (struct pci_cap){ (uint8_t)v, (uint8_t)ptr };
        ptr = (v >> 8) & 0xfcu;
    }
    return n;
}

uint16_t pci_command_quiesced(uint16_t command)
{
    return command & (uint16_t)~PCI_COMMAND_MASTER;
}

uint16_t pci_cap_control_quiesced(uint8_t id, uint16_t control)
{
    if (id == PCI_CAP_ID_MSI)
        return control & (uint16_t)~PCI_MSI_ENABLE;
    if (id == PCI_CAP_ID_MSIX)
        return control & (uint16_t)~PCI_MSIX_ENABLE;
    return control;
}
