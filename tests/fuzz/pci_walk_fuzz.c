/* SPDX-License-Identifier: MIT */
/*
 * pci/walk.c over a fuzzed configuration space: the input is a list of functions in
 * tests/unit/support/pci_fake.h's format (bus, device/function, 256 bytes of config space),
 * so bridges can point anywhere and capability lists can loop. The walks must end, and:
 *   - every function visited is present, visited once, on bus 0 or on the secondary bus of a
 *     bridge visited before it, above that bridge's own bus;
 *   - a capability list starts at the capability pointer, follows each next pointer (low two
 *     bits ignored), holds at most 48 entries, each at a distinct dword offset from 0x40 up,
 *     and ends only at a pointer below 0x40 or one it already holds;
 *   - the quiesced values clear exactly bus mastering, MSI enable and MSI-X enable.
 */
#include "fuzz_common.h"
#include "pci/walk.h"
#include "pci_fake.h"

static uint8_t space[64 * PCI_FAKE_RECORD];
static struct pci_fake fake;
static uint8_t seen_fn[256][256];            /* [bus][devfn]: visited */
static uint8_t bus_reached[256];             /* a bus the walk may scan */

static uint8_t cfg8(struct pci_fn f, unsigned reg)
{
    return (uint8_t)(pci_fake_read(&fake, f, reg & 0xfcu) >> (8 * (reg & 3)));
}

static void check_caps(struct pci_fn f)
{
    struct pci_cap caps[PCI_CAP_MAX];
    uint8_t held[256] = { 0 };
    unsigned n = pci_walk_caps(pci_fake_read, &fake, f, caps);

    FUZZ_ASSERT(n <= PCI_CAP_MAX, "%u capabilities", n);
    if (!(cfg8(f, 0x06) & 0x10)) {
        FUZZ_ASSERT(n == 0, "a list without the status bit");
        return;
    }
    unsigned ptr = cfg8(f, 0x34) & 0xfcu;
    for (unsigned i = 0; i < n; i++) {
        FUZZ_ASSERT(caps[i].off == ptr && ptr >= 0x40, "entry %u at 0x%x, pointer 0x%x", i,
                    caps[i].off, ptr);
        FUZZ_ASSERT(!held[ptr], "offset 0x%x twice", ptr);
        held[ptr] = 1;
        FUZZ_ASSERT(caps[i].id == cfg8(f, ptr), "entry %u's ID", i);
        ptr = cfg8(f, ptr + 1) & 0xfcu;
    }
    FUZZ_ASSERT(ptr < 0x40 || held[ptr], "the list ended at 0x%x after %u entries", ptr, n);
}

static void visit(void *ctx, struct pci_fn f)
{
    (void)ctx;
    uint8_t devfn = (uint8_t)(f.dev << 3 | f.fn);
    FUZZ_ASSERT(f.dev < 32 && f.fn < 8, "%02x:%02x.%x", f.bus, f.dev, f.fn);
    FUZZ_ASSERT(!seen_fn[f.bus][devfn], "%02x:%02x.%x twice", f.bus, f.dev, f.fn);
    seen_fn[f.bus][devfn] = 1;
    FUZZ_ASSERT(bus_reached[f.bus], "bus %02x reached through no bridge", f.bus);
    FUZZ_ASSERT((pci_fake_read(&fake, f, 0) & 0xffff) != 0xffff, "an absent function");
    if ((cfg8(f, 0x0e) & 0x7f) == 1 && cfg8(f, 0x19) > f.bus)
        bus_reached[cfg8(f, 0x19)] = 1;
    check_caps(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > sizeof(space))
        return 0;
    memcpy(space, data, size);
    fake = (struct pci_fake){ space, size - size % PCI_FAKE_RECORD, sizeof(space), 0 };
    memset(seen_fn, 0, sizeof(seen_fn));
    memset(bus_reached, 0, sizeof(bus_reached));
    bus_reached[0] = 1;

    unsigned n = pci_walk_functions(pci_fake_read, &fake, visit, NULL);
    unsigned records = (unsigned)(fake.len / PCI_FAKE_RECORD), counted = 0;
    for (unsigned b = 0; b < 256; b++)
        for (unsigned d = 0; d < 256; d++)
            counted += seen_fn[b][d];
    FUZZ_ASSERT(n == counted && n <= records, "%u visits, %u distinct, %u records", n, counted,
                records);

    uint16_t v = (uint16_t)(size >= 2 ? data[0] | data[1] << 8 : 0);
    FUZZ_ASSERT(pci_command_quiesced(v) == (v & ~0x0004u), "command 0x%04x", v);
    FUZZ_ASSERT(pci_cap_control_quiesced(PCI_CAP_ID_MSI, v) == (v & ~0x0001u), "MSI 0x%04x", v);
    FUZZ_ASSERT(pci_cap_control_quiesced(PCI_CAP_ID_MSIX, v) == (v & ~0x8000u), "MSI-X 0x%04x",
                v);
    uint8_t id = size >= 3 ? data[2] : 0;
    if (id != PCI_CAP_ID_MSI && id != PCI_CAP_ID_MSIX)
        FUZZ_ASSERT(pci_cap_control_quiesced(id, v) == v, "ID 0x%02x", id);
    return 0;
}
