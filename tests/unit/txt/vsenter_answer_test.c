/* SPDX-License-Identifier: MIT */
/*
 * src/txt/vsenter_answer.c: which bytes on the virtual SENTER UART answer this request. The
 * streams are what a requester can find there: answers an earlier requester (the loader) left
 * unread, one cut short at its start, answers to an earlier try, lines without an id, and the
 * answer to this request; CI once saw a stale refusal taken as vtboot's own (protocol 3).
 */
#include "test_common.h"

#include "txt/vsenter_answer.h"

/* Feeds s; returns the index of the byte that completed this request's refusal, or -1. */
static int feed(struct vsenter_answer *a, const char *s, char *reason, size_t size)
{
    for (int i = 0; s[i]; i++)
        if (vsenter_answer_feed(a, s[i], reason, size))
            return i;
    return -1;
}

static void stale_answers_are_skipped(void **state)
{
    (void)state;
    struct vsenter_answer a;
    char reason[96];
    const char *stream =
        "ENTER-ERR 4 id=0x6a1b2c3d CPU 0 is in SMM\n"                  /* cut at its start */
        "VSENTER-ERR 4 id=0x67727562 LAPIC 0 LINT1: NMI delivery\n"    /* the loader's */
        "VSENTER-ERR 4 malformed request\n"                            /* no id */
        "VSENTER-ERR 3 CPU 0 has an IDT (limit 0xff): it must be empty\n"
        "VSENTER-ERR 4 id=0x0000005A CPU 0 is in SMM\n"                /* not the id's form */
        "VSENTER-ERR 4 id=0x0000005a\n"                                /* no space, no reason */
        "VSENTER-ERR 4 id=0x0000005a PCI 00:1f.2: bus mastering enabled\r\n"
        "VSENTER-ERR 4 id=0x0000005a later\n";

    vsenter_answer_start(&a, 0x5a);
    int at = feed(&a, stream, reason, sizeof(reason));
    assert_int_equal(at, (int)(strstr(stream, "enabled\r\n") - stream) + 8);
    assert_string_equal(reason, "PCI 00:1f.2: bus mastering enabled");
}

static void id_zero_and_all_ones(void **state)
{
    (void)state;
    struct vsenter_answer a;
    char reason[16] = "unchanged";

    vsenter_answer_start(&a, 0);
    assert_int_equal(feed(&a, "VSENTER-ERR 4 id=0xffffffff x\n", reason, sizeof(reason)), -1);
    assert_string_equal(reason, "unchanged");
    assert_true(feed(&a, "VSENTER-ERR 4 id=0x00000000 no TPM\n", reason, sizeof(reason)) > 0);
    assert_string_equal(reason, "no TPM");
    vsenter_answer_start(&a, 0xffffffffu);
    assert_true(feed(&a, "VSENTER-ERR 4 id=0xffffffff a reason longer than 16\n", reason,
                     sizeof(reason)) > 0);
    assert_string_equal(reason, "a reason longer");     /* cut to fit */
}

/* A line longer than the buffer is cut, never overflows, and the next line is read whole. */
static void overlong_lines(void **state)
{
    (void)state;
    struct vsenter_answer a;
    char reason[64], junk[3 * VSENTER_LINE_MAX + 2];

    memset(junk, 'A', sizeof(junk) - 2);
    junk[sizeof(junk) - 2] = '\n';
    junk[sizeof(junk) - 1] = '\0';
    vsenter_answer_start(&a, 7);
    assert_int_equal(feed(&a, junk, reason, sizeof(reason)), -1);
    assert_true(feed(&a, "VSENTER-ERR 4 id=0x00000007 line too long\n", reason, sizeof(reason)) > 0);
    assert_string_equal(reason, "line too long");
    /* the head inside an over-long line's cut tail does not count */
    memcpy(junk + VSENTER_LINE_MAX + 4, "VSENTER-ERR 4 id=0x00000007 x", 29);
    vsenter_answer_start(&a, 7);
    assert_int_equal(feed(&a, junk, reason, sizeof(reason)), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stale_answers_are_skipped),
        cmocka_unit_test(id_zero_and_all_ones),
        cmocka_unit_test(overlong_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
