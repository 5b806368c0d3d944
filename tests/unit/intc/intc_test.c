/* SPDX-License-Identifier: MIT */
/* intc/intc.c: the APIC base vtboot writes, masked entries, the I/O APIC's entry count. */
#include "test_common.h"

#include "intc/intc.h"

static void test_apic_base_is_the_default_enabled_with_the_bsp_flag_kept(void **state)
{
    (void)state;
    assert_true(apic_base_for_vtboot(0xfee00900ull) == 0xfee00900ull);      /* SeaBIOS, BSP */
    assert_true(apic_base_for_vtboot(0xfee00800ull) == 0xfee00800ull);      /* an AP */
    assert_true(apic_base_for_vtboot(0xfed00900ull) == 0xfee00900ull);      /* moved */
    assert_true(apic_base_for_vtboot(0x1fee00100ull) == 0xfee00900ull);     /* disabled, high */
    assert_true(apic_base_for_vtboot(0xfee00d00ull) == 0xfee00900ull);      /* x2APIC off */
    assert_true(apic_base_for_vtboot(0) == 0xfee00800ull);
}

static void test_masked_entries_keep_the_rest(void **state)
{
    (void)state;
    assert_int_equal(intc_entry_masked(0x00000400), 0x00010400);           /* NMI */
    assert_int_equal(intc_entry_masked(0x00010700), 0x00010700);           /* ExtINT, masked */
    assert_int_equal(intc_entry_masked(0x000200ec), 0x000300ec);           /* periodic timer */
}

static void test_ioapic_entries_from_the_version_register(void **state)
{
    (void)state;
    assert_int_equal(ioapic_redirection_entries(0x00170020), 24);          /* QEMU */
    assert_int_equal(ioapic_redirection_entries(0x00000011), 1);
    assert_int_equal(ioapic_redirection_entries(0xffffffff), 256);         /* nothing there */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_apic_base_is_the_default_enabled_with_the_bsp_flag_kept),
        T(test_masked_entries_keep_the_rest),
        T(test_ioapic_entries_from_the_version_register),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
