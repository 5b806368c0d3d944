/* SPDX-License-Identifier: MIT */
/* The tboot shared page at the offsets Linux 6.1 (arch/x86/kernel/tboot.c) reads. */
#include "test_common.h"

#include "tboot/shared_page.h"

static uint8_t page[4096];

static void layout(void **state)
{
    (void)state;
    static const uint8_t uuid[16] = { 0xff, 0x8d, 0x3c, 0x66, 0xb3, 0xe8, 0x82, 0x4b,
                                      0xbf, 0xaa, 0x19, 0xea, 0x4d, 0x05, 0x7a, 0x08 };
    memset(page, 0xcc, sizeof(page));
    struct shared_page_args a = { .log_addr = 0x60000, .shutdown_entry = 0x80a123,
                                  .tboot_base = 0x800000, .tboot_size = 0x234000 };
    shared_page_init(page, &a);
    assert_memory_equal(page, uuid, 16);
    assert_int_equal(get32(page, 0x10), 6);              /* version */
    assert_int_equal(get32(page, 0x14), 0x60000);        /* log_addr */
    assert_int_equal(get32(page, 0x18), 0x80a123);       /* shutdown_entry */
    assert_int_equal(get32(page, 0x1c), 0);              /* shutdown_type: Linux writes it */
    for (unsigned i = 0x20; i < 0x68; i++)               /* acpi_sinfo: Linux fills it */
        assert_int_equal(page[i], 0);
    assert_int_equal(get32(page, 0x68), 0x800000);       /* tboot_base */
    assert_int_equal(get32(page, 0x6c), 0x234000);       /* tboot_size */
    assert_int_equal(page[0x70], 0);                     /* num_mac_regions */
    assert_int_equal(get32(page, 0x234), 0);             /* num_in_wfs */
    assert_int_equal(get32(page, 0x238), 0);             /* flags */
    assert_int_equal(get64(page, 0x23c), 0);             /* ap_wake_addr */
    assert_int_equal(get32(page, 0x244), 0xffffffffu);   /* ap_wake_trigger */
    for (unsigned i = 0x248; i < 4096; i++)              /* the whole page is cleared */
        assert_int_equal(page[i], 0);
    assert_true(shared_page_valid((const struct tboot_shared *)page));
}

static void valid_and_log_off(void **state)
{
    (void)state;
    struct shared_page_args a = { 0 };
    shared_page_init(page, &a);
    assert_int_equal(get32(page, 0x14), 0);              /* no memory log */
    assert_true(shared_page_valid((const struct tboot_shared *)page));
    for (unsigned i = 0; i < 16; i++) {
        page[i] ^= 0x01;
        assert_false(shared_page_valid((const struct tboot_shared *)page));
        page[i] ^= 0x01;
    }
    memset(page, 0, sizeof(page));
    assert_false(shared_page_valid((const struct tboot_shared *)page));
}

static void shutdown_names(void **state)
{
    (void)state;
    assert_string_equal(shutdown_type_name(0), "reboot");
    assert_string_equal(shutdown_type_name(1), "S5 (power off)");
    assert_string_equal(shutdown_type_name(2), "S4 (hibernate)");
    assert_string_equal(shutdown_type_name(3), "S3 (suspend to RAM)");
    assert_string_equal(shutdown_type_name(4), "halt");
    assert_string_equal(shutdown_type_name(5), "wait-for-SIPI");
    assert_string_equal(shutdown_type_name(6), "unknown");
    assert_string_equal(shutdown_type_name(0xffffffffu), "unknown");
}

/* The first CPU to claim ends the machine; any other parks; APIC ID 0 is a CPU, not "none". */
static void shutdown_claim_first_wins(void **state)
{
    (void)state;
    uint32_t owner = 0;
    assert_true(shutdown_claim(&owner, 0));
    assert_int_equal(owner, 1);
    assert_true(shutdown_claim(&owner, 0));          /* the same CPU still holds it */
    assert_false(shutdown_claim(&owner, 1));
    assert_false(shutdown_claim(&owner, 0xfe));
    assert_int_equal(owner, 1);

    owner = 0;
    assert_true(shutdown_claim(&owner, 3));
    assert_false(shutdown_claim(&owner, 0));         /* the boot CPU parks behind CPU 3 */
    assert_int_equal(owner, 4);
}

/* Who ends the machine, who parks, and the two late-CPU races (shared_page.h). */
static void shutdown_decisions(void **state)
{
    (void)state;
    uint32_t owner = 0;
    /* an offlined AP parks and claims nothing */
    assert_int_equal(shutdown_decide(TB_SHUTDOWN_WFS, false, &owner, 1), SHUTDOWN_PARKS);
    assert_int_equal(owner, 0);
    /* an AP that reads S3 parks whether or not the boot CPU claimed yet */
    assert_int_equal(shutdown_decide(TB_SHUTDOWN_S3, false, &owner, 1), SHUTDOWN_LATE_S3_ON_AP);
    assert_int_equal(owner, 0);
    assert_int_equal(shutdown_decide(TB_SHUTDOWN_S3, true, &owner, 0), SHUTDOWN_ENDS);
    assert_int_equal(owner, 1);
    assert_int_equal(shutdown_decide(TB_SHUTDOWN_S3, false, &owner, 1), SHUTDOWN_LATE_S3_ON_AP);
    /* the boot CPU that reads wait-for-SIPI lost its request, claimed or not */
    assert_int_equal(shutdown_decide(TB_SHUTDOWN_WFS, true, &owner, 0), SHUTDOWN_BOOT_CPU_WFS);
    owner = 0;
    assert_int_equal(shutdown_decide(TB_SHUTDOWN_WFS, true, &owner, 0), SHUTDOWN_BOOT_CPU_WFS);
    assert_int_equal(owner, 0);
    /* reboot, power off, halt: any CPU may end the machine (a panic on an AP reboots); the
     * first claim wins, the boot CPU included */
    static const uint32_t ends[] = { TB_SHUTDOWN_REBOOT, TB_SHUTDOWN_S5, TB_SHUTDOWN_S4,
                                     TB_SHUTDOWN_HALT, 6, 0xffffffffu };
    for (unsigned i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
        owner = 0;
        assert_int_equal(shutdown_decide(ends[i], false, &owner, 2), SHUTDOWN_ENDS);
        assert_int_equal(shutdown_decide(ends[i], false, &owner, 2), SHUTDOWN_ENDS);
        assert_int_equal(shutdown_decide(ends[i], true, &owner, 0), SHUTDOWN_LATE_BEHIND_OWNER);
        assert_int_equal(owner, 3);
    }
    /* the boot CPU's S3 behind an AP's reboot (a panic while suspending) parks too */
    assert_int_equal(shutdown_decide(TB_SHUTDOWN_S3, true, &owner, 0), SHUTDOWN_LATE_BEHIND_OWNER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout),
        cmocka_unit_test(valid_and_log_off),
        cmocka_unit_test(shutdown_names),
        cmocka_unit_test(shutdown_claim_first_wins),
        cmocka_unit_test(shutdown_decisions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
