/* SPDX-License-Identifier: MIT */
/* printk(): line prefixes, level tags, loglvl filtering, console and memory log together;
 * printk_memlog_only(). */
#include "test_common.h"

#include "log/memlog.h"
#include "log/printk.h"
#include "console_capture.h"


static uint8_t logmem[0x8000];

static int setup(void **state)
{
    (void)state;
    console_capture_clear();
    printk_set_loglvl(LOG_ALL);
    printk_set_memlog(memlog_init(logmem, sizeof(logmem)), sizeof(logmem));
    return 0;
}

static const char *logtext(void)
{
    static char t[0x8000];
    struct tboot_log *l = printk_memlog(NULL);
    memcpy(t, l->buf, l->curr_pos);
    t[l->curr_pos] = '\0';
    return t;
}

#define TS(fn) cmocka_unit_test_setup(fn, setup)

static void prefixes(void **state)
{
    (void)state;
    pr_info("hello %s\n", "world");
    pr_err("bad %u\n", 42);
    pr_warn("careful\n");
    pr_detail("  0x%016llx\n", 0x100000ull);
    const char *want = "vtboot: hello world\n"
                       "vtboot: ERROR: bad 42\n"
                       "vtboot: WARNING: careful\n"
                       "vtboot:   0x0000000000100000\n";
    assert_string_equal(console_text, want);
    assert_string_equal(logtext(), want);
}

static void multi_line_and_partial(void **state)
{
    (void)state;
    pr_err("line one\nline two\n");
    assert_string_equal(console_text, "vtboot: ERROR: line one\nvtboot: ERROR: line two\n");
    console_capture_clear();
    /* a line built from several calls gets one prefix */
    pr_info("module 0: ");
    pr_info("0x%08x", 0x200000u);
    pr_info(" ok\n");
    pr_info("\n");
    assert_string_equal(console_text, "vtboot: module 0: 0x00200000 ok\nvtboot: \n");
    console_capture_clear();
    pr_info("%s", "");
    assert_string_equal(console_text, "");
    pr_info("a\n\nb\n");
    assert_string_equal(console_text, "vtboot: a\nvtboot: \nvtboot: b\n");
}

static void loglvl_filter(void **state)
{
    (void)state;
    printk_set_loglvl(LOG_ERR | LOG_WARN);
    pr_info("not shown\n");
    pr_detail("not shown\n");
    pr_warn("shown\n");
    pr_err("shown too\n");
    assert_string_equal(console_text, "vtboot: WARNING: shown\nvtboot: ERROR: shown too\n");
    assert_string_equal(logtext(), console_text);
    printk_set_loglvl(0);
    console_capture_clear();
    pr_err("nothing\n");
    assert_int_equal(console_len, 0);
    printk_set_loglvl(LOG_DETAIL);
    printk(LOG_DETAIL, "detail only\n");
    pr_info("no\n");
    assert_string_equal(console_text, "vtboot: detail only\n");
}

static void sinks_off(void **state)
{
    (void)state;
    printk_set_console(NULL);
    pr_info("only in memory\n");
    assert_int_equal(console_len, 0);
    assert_string_equal(logtext(), "vtboot: only in memory\n");
    printk_set_memlog(NULL, 0);
    assert_null(printk_memlog(NULL));
    pr_info("nowhere\n");               /* must not crash */
    printk_set_console(console_capture);
    pr_info("console only\n");
    assert_string_equal(console_text, "vtboot: console only\n");
}

static void long_line_truncated(void **state)
{
    (void)state;
    char big[1000];
    memset(big, 'q', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    pr_info("%s\n", big);
    /* 511 bytes of formatted text survive (the newline is lost) */
    assert_int_equal(console_len, 8 + 511);
    assert_memory_equal(console_text, "vtboot: qqq", 11);
    /* and the next line continues it, unprefixed */
    pr_info("next\n");
    assert_string_equal(console_text + 8 + 511, "next\n");
}

static void memlog_full_through_printk(void **state)
{
    (void)state;
    static uint8_t small[62 + 200];
    printk_set_memlog(memlog_init(small, sizeof(small)), sizeof(small));
    for (unsigned i = 0; i < 20; i++)
        pr_info("line %u\n", i);
    struct tboot_log *l = printk_memlog(NULL);
    assert_int_equal(l->curr_pos, 200);
    assert_memory_equal(l->buf + 200 - 59,
                        "\n[vtboot: memory log full, later lines are on serial only]\n", 59);
    assert_memory_equal(l->buf, "vtboot: line 0\nvtboot: line 1\n", 30);
    /* the console got everything */
    assert_non_null(strstr(console_text, "vtboot: line 19\n"));
}

static void memlog_only_skips_the_console(void **state)
{
    (void)state;
    pr_info("both\n");
    printk_memlog_only(LOG_INFO, "parked %u\n", 1u);
    printk_memlog_only(LOG_DETAIL, "detail %u\n", 2u);
    pr_warn("both again\n");
    assert_string_equal(console_text, "vtboot: both\nvtboot: WARNING: both again\n");
    assert_string_equal(logtext(), "vtboot: both\nvtboot: parked 1\nvtboot: detail 2\n"
                                   "vtboot: WARNING: both again\n");
    /* loglvl filters it like any other line */
    printk_set_loglvl(LOG_ERR);
    printk_memlog_only(LOG_INFO, "filtered\n");
    assert_null(strstr(logtext(), "filtered"));
}

/* A console that prints into the memory log from inside printk: the inner call meets the lock
 * held by a holder that will not let go before it returns, as a CPU that Linux took back with
 * INIT while it printed its park line never does (issue 21's hang). */
static void nested_console(const char *s, size_t len)
{
    static bool inside;
    console_capture(s, len);
    if (inside)
        return;
    inside = true;
    printk_memlog_only(LOG_INFO, "inner %u\n", 7u);
    inside = false;
}

static void lock_never_released_is_taken_over(void **state)
{
    (void)state;
    printk_set_console(nested_console);
    pr_info("outer\n");                 /* its line may come out garbled: the cost, announced */
    const char *log = logtext();
    const char *warn = strstr(log, "vtboot: WARNING: printk: the lock's holder never let go "
                                   "(a CPU taken back while it printed): taken over\n");
    assert_non_null(warn);
    assert_non_null(strstr(warn, "vtboot: inner 7\n"));
    /* the lock works again: the next line comes out whole, without a warning */
    console_capture_clear();
    pr_info("after\n");
    assert_string_equal(console_text, "vtboot: after\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TS(prefixes),
        TS(multi_line_and_partial),
        TS(loglvl_filter),
        TS(sinks_off),
        TS(long_line_truncated),
        TS(memlog_full_through_printk),
        TS(memlog_only_skips_the_console),
        TS(lock_never_released_is_taken_over),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
