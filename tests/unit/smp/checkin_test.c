/* SPDX-License-Identifier: MIT */
/*
 * smp/checkin.c: the record an AP leaves, when the MLE's wait is over, the verdict on what
 * arrived (too few, too many, a repeated or the launching CPU's APIC ID, one that never
 * recorded, a bad count from the host), and the lines the MLE prints. Also the record under
 * threads checking in at once.
 */
#include <pthread.h>

#include "test_common.h"

#include "smp/checkin.h"

static struct ap_checkins c;

/* What ap_start.S does before ap_checkin: count the entry. */
static void enter_and_record(uint32_t apic_id)
{
    __atomic_fetch_add(&c.entered, 1, __ATOMIC_SEQ_CST);
    checkin_record(&c, apic_id);
}

static void reset(void)
{
    memset(&c, 0, sizeof(c));
}

static void test_three_aps_check_in(void **state)
{
    char ids[64], line[256];
    (void)state;
    reset();
    assert_false(checkin_complete(&c, 3));
    enter_and_record(3);
    enter_and_record(1);
    assert_false(checkin_complete(&c, 3));
    enter_and_record(2);
    assert_true(checkin_complete(&c, 3));
    assert_int_equal(checkin_verdict(&c, 4, 0), CHECKIN_OK);
    checkin_format_ids(&c, ids, sizeof(ids));
    assert_string_equal(ids, "1 2 3");
    checkin_describe(CHECKIN_TOO_FEW, &c, 4, 0, line, sizeof(line));
    assert_string_equal(line, "expected 3 other CPUs to check in, 3 arrived (APIC IDs 1 2 3; "
                              "launching CPU 0)");
}

static void test_one_cpu_expects_none(void **state)
{
    char ids[64];
    (void)state;
    reset();
    assert_true(checkin_complete(&c, 0));
    assert_int_equal(checkin_verdict(&c, 1, 0), CHECKIN_OK);
    checkin_format_ids(&c, ids, sizeof(ids));
    assert_string_equal(ids, "none");
}

static void test_too_few(void **state)
{
    char line[256];
    (void)state;
    reset();
    enter_and_record(1);
    assert_false(checkin_complete(&c, 3));
    assert_int_equal(checkin_verdict(&c, 4, 0), CHECKIN_TOO_FEW);
    checkin_describe(CHECKIN_TOO_FEW, &c, 4, 0, line, sizeof(line));
    assert_string_equal(line, "expected 3 other CPUs to check in, 1 arrived (APIC IDs 1; "
                              "launching CPU 0)");
}

static void test_too_many(void **state)
{
    (void)state;
    reset();
    enter_and_record(1);
    enter_and_record(2);
    assert_true(checkin_complete(&c, 1));
    assert_int_equal(checkin_verdict(&c, 2, 0), CHECKIN_TOO_MANY);
    assert_int_equal(checkin_verdict(&c, 1, 0), CHECKIN_TOO_MANY);
}

static void test_an_apic_id_twice(void **state)
{
    char line[256];
    (void)state;
    reset();
    enter_and_record(1);
    enter_and_record(1);
    assert_int_equal(c.repeated, 1);
    assert_int_equal(checkin_verdict(&c, 3, 0), CHECKIN_REPEATED);
    checkin_describe(CHECKIN_REPEATED, &c, 3, 0, line, sizeof(line));
    assert_contains(line, "expected 2 other CPUs to check in, 2 arrived (APIC IDs 1;");
    assert_contains(line, "checked in twice");
}

static void test_the_launching_cpus_apic_id(void **state)
{
    (void)state;
    reset();
    enter_and_record(0);
    enter_and_record(2);
    assert_int_equal(checkin_verdict(&c, 3, 0), CHECKIN_LAUNCHING_ID);
    assert_int_equal(checkin_verdict(&c, 3, 1), CHECKIN_OK);   /* the BSP is APIC 1 */
    /* a launching CPU beyond the record is never in it */
    assert_int_equal(checkin_verdict(&c, 3, MAX_CPUS + 7), CHECKIN_OK);
}

static void test_an_ap_that_entered_and_never_recorded(void **state)
{
    char line[256];
    (void)state;
    reset();
    enter_and_record(1);
    __atomic_fetch_add(&c.entered, 1, __ATOMIC_SEQ_CST);       /* APIC ID >= MAX_CPUS */
    assert_false(checkin_complete(&c, 2));
    assert_int_equal(checkin_verdict(&c, 3, 0), CHECKIN_UNRECORDED);
    checkin_describe(CHECKIN_UNRECORDED, &c, 3, 0, line, sizeof(line));
    assert_contains(line, "expected 2 other CPUs to check in, 2 arrived");
    assert_contains(line, "never recorded");
}

static void test_bad_counts_from_the_host(void **state)
{
    char line[256];
    (void)state;
    reset();
    assert_int_equal(checkin_verdict(&c, 0, 0), CHECKIN_BAD_CPU_COUNT);
    assert_int_equal(checkin_verdict(&c, MAX_CPUS + 1, 0), CHECKIN_BAD_CPU_COUNT);
    assert_int_equal(checkin_verdict(&c, 0xffffffffu, 0), CHECKIN_BAD_CPU_COUNT);
    checkin_describe(CHECKIN_BAD_CPU_COUNT, &c, 0, 0, line, sizeof(line));
    assert_string_equal(line, "the host counts 0 CPUs; vtboot takes 1 to 64");
    assert_int_equal(checkin_verdict(&c, MAX_CPUS, 0), CHECKIN_TOO_FEW);
}

static void test_ids_are_cut_whole(void **state)
{
    char ids[8];
    (void)state;
    reset();
    for (uint32_t id = 10; id < 20; id++)
        enter_and_record(id);
    checkin_format_ids(&c, ids, sizeof(ids));
    assert_string_equal(ids, "10 11");
}

static void test_every_apic_id_up_to_the_last(void **state)
{
    char ids[3 * MAX_CPUS];
    (void)state;
    reset();
    for (uint32_t id = 1; id < MAX_CPUS; id++)
        enter_and_record(id);
    assert_int_equal(checkin_verdict(&c, MAX_CPUS, 0), CHECKIN_OK);
    checkin_format_ids(&c, ids, sizeof(ids));
    assert_true(strlen(ids) > 3 && strcmp(ids + strlen(ids) - 3, " 63") == 0);
}

#define THREADS 16

static void *ap_thread(void *arg)
{
    enter_and_record((uint32_t)(uintptr_t)arg);
    return NULL;
}

static void test_concurrent_check_ins(void **state)
{
    pthread_t t[THREADS];
    (void)state;
    for (unsigned round = 0; round < 50; round++) {
        reset();
        for (unsigned i = 0; i < THREADS; i++)
            assert_int_equal(pthread_create(&t[i], NULL, ap_thread, (void *)(uintptr_t)(i + 1)), 0);
        for (unsigned i = 0; i < THREADS; i++)
            pthread_join(t[i], NULL);
        assert_true(checkin_complete(&c, THREADS));
        assert_int_equal(c.checked_in, THREADS);
        assert_int_equal(checkin_verdict(&c, THREADS + 1, 0), CHECKIN_OK);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_three_aps_check_in),
        T(test_one_cpu_expects_none),
        T(test_too_few),
        T(test_too_many),
        T(test_an_apic_id_twice),
        T(test_the_launching_cpus_apic_id),
        T(test_an_ap_that_entered_and_never_recorded),
        T(test_bad_counts_from_the_host),
        T(test_ids_are_cut_whole),
        T(test_every_apic_id_up_to_the_last),
        T(test_concurrent_check_ins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
