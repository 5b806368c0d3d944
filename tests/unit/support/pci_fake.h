/* SPDX-License-Identifier: MIT */
/*
 * A fake PCI configuration space for pci/walk.h, as bytes (also the fuzzer's input format):
 * records of PCI_FAKE_RECORD bytes, each a function's bus, device/function (dev << 3 | fn)
 * and its 256 bytes of config space. A read finds the first record with that address; a
 * function no record names reads as all ones (absent). The builders below write records.
 */
#ifndef TESTS_PCI_FAKE_H
#define TESTS_PCI_FAKE_H

#include <stddef.h>
#include <stdint.h>

#include "pci/walk.h"

#define PCI_FAKE_RECORD 258u

struct pci_fake {
    uint8_t *buf;                   /* the records */
    size_t len, cap;                /* bytes used, bytes available */
    unsigned reads;                 /* reads so far */
};

/* pci_config_read over a struct pci_fake (ctx). */
uint32_t pci_fake_read(void *ctx, struct pci_fn f, unsigned reg);

/* Adds a function (vendor 0x1af4, device 0x1000 + its index, the header type given, 0x80 for
 * a multi-function device's function 0); returns its config space. */
uint8_t *pci_fake_add(struct pci_fake *p, uint8_t bus, uint8_t dev, uint8_t fn,
                      uint8_t header_type);
/* A bridge's primary, secondary and subordinate buses. */
void pci_fake_buses(uint8_t *cfg, uint8_t primary, uint8_t secondary, uint8_t subordinate);
/* A capability at off with the next pointer given; the first one added also sets the list
 * bit and the capability pointer (0x34). */
void pci_fake_cap(uint8_t *cfg, uint8_t off, uint8_t id, uint8_t next, uint16_t control);

#endif
