/* SPDX-License-Identifier: MIT */
/*
 * pci/walk.c over a fake config space (tests/unit/support/pci_fake.h): which functions the bus
 * walk visits (multi-function devices, bridges, bridges that loop or point backwards), the
 * capability walk (loops, pointers into the header, the 48-entry bound) and the quiesced
 * register values.
 */
#include "test_common.h"

#include "pci/walk.h"
#include "pci_fake.h"

#define MAX_VISITS 512

static uint8_t space[64 * PCI_FAKE_RECORD];
static struct pci_fake fake;
static struct pci_fn visits[MAX_VISITS];
static unsigned nvisits;

static void reset(void)
{
    memset(space, 0, sizeof(space));
    fake = (struct pci_fake){ space, 0, sizeof(space), 0 };
    nvisits = 0;
}

static void record(void *ctx, struct pci_fn f)
{
    (void)ctx;
    assert_true(nvisits < MAX_VISITS);
    visits[nvisits++] = f;
}

static unsigned walk(void)
{
    unsigned n = pci_walk_functions(pci_fake_read, &fake, record, NULL);
    assert_int_equal(n, nvisits);
    return n;
}

static void assert_visit(unsigned i, unsigned bus, unsigned dev, unsigned fn)
{
    assert_true(i < nvisits);
    assert_int_equal(visits[i].bus, bus);
    assert_int_equal(visits[i].dev, dev);
    assert_int_equal(visits[i].fn, fn);
}

static void test_bus0_devices_in_order(void **state)
{
    (void)state;
    reset();
    pci_fake_add(&fake, 0, 0, 0, 0);
    pci_fake_add(&fake, 0, 2, 0, 0);
    pci_fake_add(&fake, 0, 31, 0, 0);
    assert_int_equal(walk(), 3);
    assert_visit(0, 0, 0, 0);
    assert_visit(1, 0, 2, 0);
    assert_visit(2, 0, 31, 0);
}

static void test_functions_only_of_a_multifunction_device(void **state)
{
    (void)state;
    reset();
    pci_fake_add(&fake, 0, 1, 0, 0);         /* single-function: fn 1-7 alias, not scanned */
    pci_fake_add(&fake, 0, 1, 1, 0);
    pci_fake_add(&fake, 0, 31, 0, 0x80);     /* q35's ICH9: LPC, SATA, SMBus */
    pci_fake_add(&fake, 0, 31, 2, 0);
    pci_fake_add(&fake, 0, 31, 3, 0);
    pci_fake_add(&fake, 0, 5, 3, 0);         /* no function 0: no device */
    assert_int_equal(walk(), 4);
    assert_visit(0, 0, 1, 0);
    assert_visit(1, 0, 31, 0);
    assert_visit(2, 0, 31, 2);
    assert_visit(3, 0, 31, 3);
}

static void test_behind_bridges(void **state)
{
    (void)state;
    reset();
    pci_fake_buses(pci_fake_add(&fake, 0, 3, 0, 1), 0, 1, 2);
    pci_fake_buses(pci_fake_add(&fake, 1, 0, 0, 1), 1, 2, 2);
    pci_fake_add(&fake, 1, 4, 0, 0);
    pci_fake_add(&fake, 2, 0, 0, 0);
    pci_fake_add(&fake, 3, 0, 0, 0);         /* no bridge leads there */
    assert_int_equal(walk(), 4);
    assert_visit(0, 0, 3, 0);
    assert_visit(1, 1, 0, 0);
    assert_visit(2, 1, 4, 0);
    assert_visit(3, 2, 0, 0);
}

static void test_bridge_loops_and_backward_pointers_scan_each_bus_once(void **state)
{
    (void)state;
    reset();
    pci_fake_buses(pci_fake_add(&fake, 0, 1, 0, 1), 0, 1, 1);
    pci_fake_buses(pci_fake_add(&fake, 0, 2, 0, 1), 0, 1, 1);   /* bus 1 again */
    pci_fake_buses(pci_fake_add(&fake, 0, 3, 0, 1), 0, 0, 0);   /* unconfigured: bus 0 */
    pci_fake_buses(pci_fake_add(&fake, 1, 0, 0, 1), 1, 1, 1);   /* itself */
    pci_fake_buses(pci_fake_add(&fake, 1, 1, 0, 1), 1, 0, 0);   /* back to bus 0 */
    assert_int_equal(walk(), 5);
    for (unsigned i = 0; i < nvisits; i++)
        for (unsigned j = 0; j < i; j++)
            assert_false(visits[i].bus == visits[j].bus && visits[i].dev == visits[j].dev &&
                         visits[i].fn == visits[j].fn);
}

static void test_bridge_to_a_lower_bus_is_not_followed(void **state)
{
    (void)state;
    reset();
    pci_fake_buses(pci_fake_add(&fake, 0, 1, 0, 1), 0, 5, 5);
    pci_fake_buses(pci_fake_add(&fake, 5, 0, 0, 1), 5, 3, 3);   /* below its own bus */
    pci_fake_add(&fake, 3, 0, 0, 0);
    assert_int_equal(walk(), 2);
}

static void test_a_chain_of_every_bus_is_bounded(void **state)
{
    (void)state;
    static uint8_t big[300 * PCI_FAKE_RECORD];
    reset();
    fake = (struct pci_fake){ big, 0, sizeof(big), 0 };
    for (unsigned b = 0; b < 256; b++)
        pci_fake_buses(pci_fake_add(&fake, (uint8_t)b, 0, 0, 1), (uint8_t)b,
                       (uint8_t)(b + 1), 0xff);                 /* bus 255's wraps to 0 */
    assert_int_equal(walk(), 256);
    assert_visit(255, 255, 0, 0);
}

static void test_a_function_reading_vendor_0xffff_is_absent(void **state)
{
    (void)state;
    reset();
    uint8_t *cfg = pci_fake_add(&fake, 0, 0, 0, 0);
    cfg[0] = cfg[1] = 0xff;
    assert_int_equal(walk(), 0);
}

/* ---- capabilities ---- */

static const struct pci_fn F0 = { 0, 0, 0 };

static unsigned caps_of(struct pci_cap caps[PCI_CAP_MAX])
{
    memset(caps, 0xee, PCI_CAP_MAX * sizeof(caps[0]));
    return pci_walk_caps(pci_fake_read, &fake, F0, caps);
}

static void test_caps_in_list_order(void **state)
{
    (void)state;
    struct pci_cap caps[PCI_CAP_MAX];
    reset();
    uint8_t *cfg = pci_fake_add(&fake, 0, 0, 0, 0);
    pci_fake_cap(cfg, 0x98, PCI_CAP_ID_MSIX, 0x84, 0x8002);
    pci_fake_cap(cfg, 0x84, 0x09, 0x40, 0);
    pci_fake_cap(cfg, 0x40, PCI_CAP_ID_MSI, 0x00, 0x0081);
    assert_int_equal(caps_of(caps), 3);
    assert_int_equal(caps[0].off, 0x98);
    assert_int_equal(caps[0].id, PCI_CAP_ID_MSIX);
    assert_int_equal(caps[1].off, 0x84);
    assert_int_equal(caps[2].off, 0x40);
    assert_int_equal(caps[2].id, PCI_CAP_ID_MSI);
}

static void test_no_caps_without_the_status_bit(void **state)
{
    (void)state;
    struct pci_cap caps[PCI_CAP_MAX];
    reset();
    uint8_t *cfg = pci_fake_add(&fake, 0, 0, 0, 0);
    pci_fake_cap(cfg, 0x40, PCI_CAP_ID_MSI, 0, 1);
    cfg[0x06] = 0;
    assert_int_equal(caps_of(caps), 0);
}

static void test_cap_pointer_low_bits_are_ignored(void **state)
{
    (void)state;
    struct pci_cap caps[PCI_CAP_MAX];
    reset();
    uint8_t *cfg = pci_fake_add(&fake, 0, 0, 0, 0);
    pci_fake_cap(cfg, 0x50, PCI_CAP_ID_MSI, 0x63, 1);          /* next: 0x60 */
    pci_fake_cap(cfg, 0x60, PCI_CAP_ID_MSIX, 0x00, 0x8000);
    cfg[0x34] = 0x53;
    assert_int_equal(caps_of(caps), 2);
    assert_int_equal(caps[0].off, 0x50);
    assert_int_equal(caps[1].off, 0x60);
}

static void test_cap_loops_end(void **state)
{
    (void)state;
    struct pci_cap caps[PCI_CAP_MAX];
    reset();
    uint8_t *cfg = pci_fake_add(&fake, 0, 0, 0, 0);
    pci_fake_cap(cfg, 0x40, PCI_CAP_ID_MSI, 0x40, 1);          /* itself */
    assert_int_equal(caps_of(caps), 1);

    pci_fake_cap(cfg, 0x40, PCI_CAP_ID_MSI, 0x80, 1);          /* 0x40 -> 0x80 -> 0x40 */
    pci_fake_cap(cfg, 0x80, PCI_CAP_ID_MSIX, 0x40, 0x8000);
    assert_int_equal(caps_of(caps), 2);
}

static void test_cap_pointer_into_the_header_ends_the_list(void **state)
{
    (void)state;
    struct pci_cap caps[PCI_CAP_MAX];
    reset();
    uint8_t *cfg = pci_fake_add(&fake, 0, 0, 0, 0);
    pci_fake_cap(cfg, 0x40, PCI_CAP_ID_MSI, 0x3c, 1);
    assert_int_equal(caps_of(caps), 1);
    cfg[0x34] = 0x04;                                          /* the command register */
    assert_int_equal(caps_of(caps), 0);
}

static void test_a_list_through_every_slot_is_48_long(void **state)
{
    (void)state;
    struct pci_cap caps[PCI_CAP_MAX];
    reset();
    uint8_t *cfg = pci_fake_add(&fake, 0, 0, 0, 0);
    /* 0xfc first, then down to 0x40, and 0x40 points at 0xfc again: a loop through all */
    for (unsigned off = 0xfc; off >= 0x40; off -= 4)
        pci_fake_cap(cfg, (uint8_t)off, 0x09, (uint8_t)(off == 0x40 ? 0xfc : off - 4), 0);
    unsigned reads = fake.reads;
    assert_int_equal(caps_of(caps), PCI_CAP_MAX);
    assert_int_equal(caps[0].off, 0xfc);
    assert_int_equal(caps[PCI_CAP_MAX - 1].off, 0x40);
    assert_true(fake.reads - reads <= PCI_CAP_MAX + 2);
}

/* ---- the values written ---- */

static void test_quiesced_command_clears_only_bus_master(void **state)
{
    (void)state;
    assert_int_equal(pci_command_quiesced(0x0407), 0x0403);
    assert_int_equal(pci_command_quiesced(0x0003), 0x0003);
    assert_int_equal(pci_command_quiesced(0xffff), 0xfffb);
}

static void test_quiesced_controls(void **state)
{
    (void)state;
    assert_int_equal(pci_cap_control_quiesced(PCI_CAP_ID_MSI, 0x0181), 0x0180);
    assert_int_equal(pci_cap_control_quiesced(PCI_CAP_ID_MSIX, 0xc003), 0x4003);
    assert_int_equal(pci_cap_control_quiesced(PCI_CAP_ID_MSIX, 0x0001), 0x0001);
    assert_int_equal(pci_cap_control_quiesced(0x09, 0xffff), 0xffff);  /* vendor-specific */
    assert_int_equal(pci_cap_control_quiesced(0x10, 0x8001), 0x8001);  /* PCIe */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_bus0_devices_in_order),
        T(test_functions_only_of_a_multifunction_device),
        T(test_behind_bridges),
        T(test_bridge_loops_and_backward_pointers_scan_each_bus_once),
        T(test_bridge_to_a_lower_bus_is_not_followed),
        T(test_a_chain_of_every_bus_is_bounded),
        T(test_a_function_reading_vendor_0xffff_is_absent),
        T(test_caps_in_list_order),
        T(test_no_caps_without_the_status_bit),
        T(test_cap_pointer_low_bits_are_ignored),
        T(test_cap_loops_end),
        T(test_cap_pointer_into_the_header_ends_the_list),
        T(test_a_list_through_every_slot_is_48_long),
        T(test_quiesced_command_clears_only_bus_master),
        T(test_quiesced_controls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
