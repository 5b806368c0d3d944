/* SPDX-License-Identifier: MIT */
/*
 * src/tboot/progress.c: a pass reports 10, 20, ..., 100 percent, each once and in order, only
 * at or above the 16 MiB threshold; a jump over several steps reports each; and a measured
 * module and an S3 MAC pass over a large buffer report exactly those ten lines.
 */
#include "test_common.h"

#include "tboot/integrity.h"
#include "tboot/measure.h"
#include "tboot/progress.h"

#define MIB (1ull << 20)

static unsigned seen[32], nseen, seen_item;
static uint64_t seen_total;

static void record(void *arg, unsigned item, unsigned percent, uint64_t total)
{
    assert_ptr_equal(arg, &nseen);
    assert_true(nseen < 32);
    seen[nseen++] = percent;
    seen_item = item;
    seen_total = total;
}

static const struct progress_cb cb = { record, &nseen };

static void reset(void)
{
    nseen = 0;
    seen_item = ~0u;
    seen_total = 0;
}

static void expect_all_steps(unsigned item, uint64_t total)
{
    assert_int_equal(nseen, 10);
    for (unsigned i = 0; i < 10; i++)
        assert_int_equal(seen[i], 10 * (i + 1));
    assert_int_equal(seen_item, item);
    assert_int_equal(seen_total, total);
}

static void test_below_threshold_is_quiet(void **state)
{
    (void)state;
    struct progress p;
    reset();
    assert_false(progress_reports(PROGRESS_THRESHOLD - 1));
    assert_true(progress_reports(PROGRESS_THRESHOLD));
    progress_start(&p, &cb, 3, PROGRESS_THRESHOLD - 1);
    progress_advance(&p, PROGRESS_THRESHOLD - 1);
    assert_int_equal(nseen, 0);
}

static void test_steps_in_order_once_each(void **state)
{
    (void)state;
    struct progress p;
    uint64_t total = 100 * MIB;
    reset();
    progress_start(&p, &cb, 2, total);
    assert_int_equal(nseen, 0);
    progress_advance(&p, 10 * MIB - 1);           /* 9.99%: nothing yet */
    assert_int_equal(nseen, 0);
    progress_advance(&p, 1);                      /* exactly 10% */
    assert_int_equal(nseen, 1);
    assert_int_equal(seen[0], 10);
    progress_advance(&p, 35 * MIB);               /* 45%: 20, 30 and 40 at once */
    assert_int_equal(nseen, 4);
    assert_int_equal(seen[3], 40);
    progress_advance(&p, 1000 * MIB);             /* past the end: clamped to 100% */
    expect_all_steps(2, total);
    progress_advance(&p, MIB);                    /* nothing after 100% */
    assert_int_equal(nseen, 10);
}

static void test_no_callback(void **state)
{
    (void)state;
    struct progress p;
    static const struct progress_cb empty = { NULL, NULL };
    reset();
    progress_start(&p, NULL, 0, 64 * MIB);
    progress_advance(&p, 64 * MIB);
    progress_start(&p, &empty, 0, 64 * MIB);
    progress_advance(&p, 64 * MIB);
    assert_int_equal(nseen, 0);
}

/* a 24 MiB module, hashed into two banks, reports its ten steps as module 1 */
static void test_measure_reports_each_module(void **state)
{
    (void)state;
    size_t big = 24 * MIB;
    uint8_t *image = calloc(1, big);
    assert_non_null(image);
    struct module_ref mods[2] = { { "small", image, 4096 }, { "big", image, (uint32_t)big } };
    struct tpm_banks banks = { 2, { TPM_ALG_SHA1, TPM_ALG_SHA256 } };
    struct tb_policy pol;
    static struct launch_measurements lm;
    tb_policy_default(&pol, PCR_MAP_DA);
    reset();
    assert_int_equal(measure_launch(&pol, &banks, PCR_MAP_DA, mods, 2, &lm, &cb), 0);
    expect_all_steps(1, big);
    free(image);
}

/* an S3 MAC pass over 20 MiB of RAM in two regions reports one pass of ten steps */
static void test_mac_pass_reports_over_all_regions(void **state)
{
    (void)state;
    uint64_t base = 0x1000000, len = 20 * MIB;
    phys_fake_add(base, (size_t)len);
    static struct e820_map ram;
    ram.nr = 0;
    assert_int_equal(e820_append(&ram, base, len, E820_TYPE_RAM), 0);
    struct mac_regions regs = { 2, { { base, (uint32_t)(8 * MIB) },
                                     { base + 8 * MIB, (uint32_t)(12 * MIB) } } };
    uint8_t key[MAC_KEY_SIZE] = { 1 }, tags[2][MAC_TAG_SIZE];
    reset();
    mac_regions_compute(key, &regs, &ram, tags, &cb);
    expect_all_steps(0, len);
    reset();
    assert_int_equal(mac_regions_verify(key, &regs, &ram, tags, &cb), -1);
    expect_all_steps(0, len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_below_threshold_is_quiet),
        T(test_steps_in_order_once_each),
        T(test_no_callback),
        T(test_measure_reports_each_module),
        T(test_mac_pass_reports_over_all_regions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
