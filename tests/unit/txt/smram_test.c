/* SPDX-License-Identifier: MIT */
/*
 * src/txt/smram.c: of all 256 SMRAMC values exactly those with G_SMRAME and D_LCK set and
 * D_OPEN clear pass (bits 6, 4 and 3 from the Q35 datasheet, written out here); the firmware's
 * values name their fault: SeaBIOS's unlocked 0x0a, the patched firmware's 0x1a, and an SMRAM
 * opened by the pre-launch OS.
 */
#include "test_common.h"

#include "txt/smram.h"

static char err[100];

static void exactly_enabled_closed_locked_pass(void **state)
{
    (void)state;
    unsigned passed = 0;
    for (unsigned v = 0; v < 256; v++) {
        int want = (v & 0x08) && (v & 0x10) && !(v & 0x40) ? 0 : -1;
        assert_int_equal(txt_smram_check((uint8_t)v, err, sizeof(err)), want);
        passed += want == 0;
    }
    assert_int_equal(passed, 32);       /* three bits fixed, five free */
}

static void the_firmwares_values(void **state)
{
    (void)state;
    assert_int_equal(txt_smram_check(0x1a, err, sizeof(err)), 0);
    assert_int_equal(txt_smram_check(0x0a, err, sizeof(err)), -1);
    assert_string_equal(err, "MCH SMRAMC 0x0a: SMRAM unlocked (D_LCK clear)");
    assert_int_equal(txt_smram_check(0x4a, err, sizeof(err)), -1);
    assert_string_equal(err, "MCH SMRAMC 0x4a: SMRAM unlocked (D_LCK clear)");
    assert_int_equal(txt_smram_check(0x5a, err, sizeof(err)), -1);
    assert_string_equal(err, "MCH SMRAMC 0x5a: SMRAM open (D_OPEN set)");
    assert_int_equal(txt_smram_check(0x12, err, sizeof(err)), -1);
    assert_string_equal(err, "MCH SMRAMC 0x12: SMRAM disabled (G_SMRAME clear)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exactly_enabled_closed_locked_pass),
        cmocka_unit_test(the_firmwares_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
