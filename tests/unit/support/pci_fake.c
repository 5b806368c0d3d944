/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "pci_fake.h"

#define PCI_STATUS_CAP_LIST 0x10u       /* status register bit 4 (byte 0x06) */

uint32_t pci_fake_read(void *ctx, struct pci_fn f, unsigned reg)
{
    struct pci_fake *p = ctx;
    uint8_t devfn = (uint8_t)(f.dev << 3 | f.fn);

    p->reads++;
    for (size_t o = 0; o + PCI_FAKE_RECORD <= p->len; o += PCI_FAKE_RECORD) {
        const uint8_t *r = p->buf + o;
        if (r[0] != f.bus || r[1] != devfn)
            continue;
        const uint8_t *d = r + 2 + (reg & 0xfcu);
        return (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 |
               (uint32_t)d[3] << 24;
    }
    return 0xffffffffu;
}

uint8_t *pci_fake_add(struct pci_fake *p, uint8_t bus, uint8_t dev, uint8_t fn,
                      uint8_t header_type)
{
    if (p->len + PCI_FAKE_RECORD > p->cap)
        return NULL;
    uint8_t *r = p->buf + p->len;
    unsigned index = (unsigned)(p->len / PCI_FAKE_RECORD);
    memset(r, 0, PCI_FAKE_RECORD);
    r[0] = bus;
    r[1] = (uint8_t)(dev << 3 | fn);
    p->len += PCI_FAKE_RECORD;
    uint8_t *cfg = r + 2;
    cfg[0] = 0xf4;
    cfg[1] = 0x1a;
    cfg[2] = (uint8_t)index;
    cfg[3] = 0x10;
    cfg[0x0e] = header_type;
    return cfg;
}

void pci_fake_buses(uint8_t *cfg, uint8_t primary, uint8_t secondary, uint8_t subordinate)
{
    cfg[0x18] = primary;
    cfg[0x19] = secondary;
    cfg[0x1a] = subordinate;
}

void pci_fake_cap(uint8_t *cfg, uint8_t off, uint8_t id, uint8_t next, uint16_t control)
{
    if (!(cfg[0x06] & PCI_STATUS_CAP_LIST)) {
        cfg[0x06] |= PCI_STATUS_CAP_LIST;
        cfg[0x34] = off;
    }
    cfg[off] = id;
    cfg[off + 1] = next;
    cfg[off + 2] = (uint8_t)control;
    cfg[off + 3] = (uint8_t)(control >> 8);
}
