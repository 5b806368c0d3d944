/* SPDX-License-Identifier: MIT */
/* src/acpi/gas.c: which GAS registers vtboot accesses, and the kernel's registers as vtboot's. */
#include "test_common.h"

#include "acpi/gas.h"

static struct acpi_gas gas(uint8_t space, uint8_t width, uint64_t addr)
{
    return (struct acpi_gas){ space, width, 0, 0, addr };
}

static void usable_io(void **state)
{
    (void)state;
    struct acpi_gas g = gas(ACPI_GAS_IO, 16, 0x604);
    assert_true(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_IO, 8, 0xcf9);
    assert_true(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_IO, 32, 0x600);
    assert_true(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_IO, 16, 0xffff);                /* the last port */
    assert_true(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_IO, 16, 0x10000);
    assert_false(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_IO, 16, 0xffffffff00000604ull);
    assert_false(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_IO, 16, 1);
    assert_true(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_IO, 16, 0);                     /* absent */
    assert_false(acpi_gas_usable(&g));
}

static void usable_memory(void **state)
{
    (void)state;
    struct acpi_gas g = gas(ACPI_GAS_MEMORY, 16, 0xfed00004ull);
    assert_true(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_MEMORY, 32, 0xffffffffull);     /* the last address below 4 GiB */
    assert_true(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_MEMORY, 32, 0x100000000ull);
    assert_false(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_MEMORY, 8, 0xfedcba9876543210ull);
    assert_false(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_MEMORY, 8, 0);
    assert_false(acpi_gas_usable(&g));
    g = gas(ACPI_GAS_MEMORY, 8, 0x10000);            /* memory may be above 0xffff */
    assert_true(acpi_gas_usable(&g));
}

/* 8, 16 and 32 bits only, in either space. */
static void usable_widths(void **state)
{
    (void)state;
    for (unsigned w = 0; w < 256; w++) {
        bool ok = w == 8 || w == 16 || w == 32;
        struct acpi_gas io = gas(ACPI_GAS_IO, (uint8_t)w, 0x604);
        struct acpi_gas mem = gas(ACPI_GAS_MEMORY, (uint8_t)w, 0xfed00004ull);
        if (acpi_gas_usable(&io) != ok || acpi_gas_usable(&mem) != ok)
            fail_msg("width %u: want %s", w, ok ? "usable" : "unusable");
    }
}

/* Only system memory and system I/O: not PCI configuration, EC, SMBus, FFixedHW, ... */
static void usable_spaces(void **state)
{
    (void)state;
    for (unsigned s = 2; s < 256; s++) {
        struct acpi_gas g = gas((uint8_t)s, 16, 0x604);
        if (acpi_gas_usable(&g))
            fail_msg("space %u usable", s);
    }
}

/* bit_offset and access_size do not decide. */
static void usable_ignores_offset_and_access(void **state)
{
    (void)state;
    struct acpi_gas g = { ACPI_GAS_IO, 16, 0xff, 0xff, 0x604 };
    assert_true(acpi_gas_usable(&g));
    g = (struct acpi_gas){ ACPI_GAS_MEMORY, 32, 3, 4, 0xfed00000ull };
    assert_true(acpi_gas_usable(&g));
}

/* The kernel's fields, one by one, each with its own value. */
static void from_kernel_copies(void **state)
{
    (void)state;
    struct tboot_acpi_gas k = { ACPI_GAS_IO, 16, 5, 2, 0x604 };
    struct acpi_gas g;
    memset(&g, 0xcc, sizeof(g));
    assert_true(acpi_gas_from_kernel(&k, &g));
    assert_int_equal(g.space_id, ACPI_GAS_IO);
    assert_int_equal(g.bit_width, 16);
    assert_int_equal(g.bit_offset, 5);
    assert_int_equal(g.access_size, 2);
    assert_int_equal(g.address, 0x604);

    k = (struct tboot_acpi_gas){ ACPI_GAS_MEMORY, 32, 1, 3, 0xfed00104ull };
    assert_true(acpi_gas_from_kernel(&k, &g));
    assert_int_equal(g.space_id, ACPI_GAS_MEMORY);
    assert_int_equal(g.bit_width, 32);
    assert_int_equal(g.bit_offset, 1);
    assert_int_equal(g.access_size, 3);
    assert_int_equal(g.address, 0xfed00104ull);
}

/* An unusable register becomes an absent one: all zero. */
static void from_kernel_refuses(void **state)
{
    (void)state;
    static const struct tboot_acpi_gas bad[] = {
        { ACPI_GAS_IO, 16, 0, 0, 0 },                /* PM1b absent */
        { ACPI_GAS_IO, 24, 0, 0, 0x604 },
        { ACPI_GAS_IO, 16, 0, 0, 0x10000 },
        { ACPI_GAS_MEMORY, 16, 0, 0, 0x100000000ull },
        { 2, 16, 0, 0, 0x604 },                      /* PCI configuration space */
    };
    static const struct acpi_gas zero;
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct acpi_gas g;
        memset(&g, 0xcc, sizeof(g));
        assert_false(acpi_gas_from_kernel(&bad[i], &g));
        assert_memory_equal(&g, &zero, sizeof(g));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(usable_io),
        cmocka_unit_test(usable_memory),
        cmocka_unit_test(usable_widths),
        cmocka_unit_test(usable_spaces),
        cmocka_unit_test(usable_ignores_offset_and_access),
        cmocka_unit_test(from_kernel_copies),
        cmocka_unit_test(from_kernel_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
