/* SPDX-License-Identifier: MIT */
/*
 * What the pre-launch code hands the MLE (boot/handoff.c): nothing in it is trusted, so every
 * field is checked; and the MLE's command line area, filled the way tboot's lcp2_mlehash
 * predicts it (zeros, then at most size - 1 bytes).
 */
#include "test_common.h"

#include "abi/multiboot1.h"
#include "abi/multiboot2.h"
#include "boot/handoff.h"
#include "log/memlog.h"

static struct handoff h;
static char err[160];

static void boot_handoffs(void **state)
{
    (void)state;
    handoff_start(&h, HANDOFF_BOOT, MB2_BOOTLOADER_MAGIC, 0x9000);
    assert_int_equal(handoff_check(&h, err, sizeof(err)), 0);
    assert_int_equal(h.loader_info, 0x9000);
    handoff_start(&h, HANDOFF_BOOT, MB1_BOOTLOADER_MAGIC, 0x9000);
    assert_int_equal(handoff_check(&h, err, sizeof(err)), 0);
    handoff_start(&h, HANDOFF_S3_RESUME, 0, 0);
    assert_int_equal(handoff_check(&h, err, sizeof(err)), 0);
}

static void rejected(void **state)
{
    (void)state;
    handoff_start(&h, HANDOFF_BOOT, 0x12345678, 0x9000);
    assert_int_equal(handoff_check(&h, err, sizeof(err)), -1);
    assert_string_equal(err, "the hand-over names no multiboot loader (magic 0x12345678)");

    handoff_start(&h, 3, MB2_BOOTLOADER_MAGIC, 0x9000);
    assert_int_equal(handoff_check(&h, err, sizeof(err)), -1);
    assert_string_equal(err, "the hand-over is of unknown kind 3");
    handoff_start(&h, 0, MB2_BOOTLOADER_MAGIC, 0x9000);
    assert_int_equal(handoff_check(&h, err, sizeof(err)), -1);

    memset(&h, 0, sizeof(h));                  /* what a fresh .handoff holds: nothing */
    assert_int_equal(handoff_check(&h, err, sizeof(err)), -1);
    assert_string_equal(err, "no hand-over from the pre-launch code (magic 0x00000000, version 0)");
    handoff_start(&h, HANDOFF_BOOT, MB2_BOOTLOADER_MAGIC, 0x9000);
    h.version = 2;
    assert_int_equal(handoff_check(&h, err, sizeof(err)), -1);
    assert_contains(err, "version 2");
}

static void prelaunch_log(void **state)
{
    (void)state;
    size_t len = 99;
    memset(&h, 0, sizeof(h));
    assert_null(handoff_log_text(&h, &len));                 /* no UUID */
    assert_int_equal(len, 0);

    struct tboot_log *log = memlog_init(h.log, sizeof(h.log));
    memlog_append(log, sizeof(h.log), "vtboot: pre\n", 12);
    const char *t = handoff_log_text(&h, &len);
    assert_non_null(t);
    assert_int_equal(len, 12);
    assert_memory_equal(t, "vtboot: pre\n", 12);

    /* a header claiming more than the area holds, or a position past the size */
    log->max_size = (uint16_t)(sizeof(h.log) - sizeof(*log) + 1);
    assert_null(handoff_log_text(&h, &len));
    log->max_size = 200;
    log->curr_pos = 201;
    assert_null(handoff_log_text(&h, &len));
    log->curr_pos = 200;
    assert_non_null(handoff_log_text(&h, &len));
    assert_int_equal(len, 200);
}

static void cmdline_area(void **state)
{
    (void)state;
    char area[16];
    memset(area, 0x55, sizeof(area));
    mle_cmdline_store(area, sizeof(area), "logging=serial");
    assert_memory_equal(area, "logging=serial\0\0", 16);

    memset(area, 0x55, sizeof(area));
    mle_cmdline_store(area, sizeof(area), "0123456789abcdefXYZ");    /* truncated, NUL kept */
    assert_memory_equal(area, "0123456789abcde\0", 16);

    memset(area, 0x55, sizeof(area));
    mle_cmdline_store(area, sizeof(area), "");
    for (unsigned i = 0; i < sizeof(area); i++)
        assert_int_equal(area[i], 0);

    area[0] = 0x55;
    mle_cmdline_store(area, 0, "x");                          /* no area: nothing written */
    assert_int_equal(area[0], 0x55);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(boot_handoffs),
        cmocka_unit_test(rejected),
        cmocka_unit_test(prelaunch_log),
        cmocka_unit_test(cmdline_area),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
