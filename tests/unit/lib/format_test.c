/* SPDX-License-Identifier: MIT */
/* fmt_vsnprintf() against glibc's vsnprintf, on the subset format.h documents. */
#include <limits.h>

#include "test_common.h"

#include "lib/format.h"

static unsigned compared;

/* Formats with both and requires the same text and return value, for several buffer sizes. */
static void cmp_at(int line, const char *fmt, ...)
{
    static const size_t sizes[] = { 256, 0, 1, 2, 5, 17 };
    for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        char want[256], got[256];
        va_list a, b;
        memset(want, 'W', sizeof(want));
        memset(got, 'W', sizeof(got));
        va_start(a, fmt);
        va_copy(b, a);
        int nw = vsnprintf(want, sizes[i], fmt, a);
        int ng = fmt_vsnprintf(got, sizes[i], fmt, b);
        va_end(b);
        va_end(a);
        if (nw != ng || memcmp(want, got, sizeof(want)) != 0)
            fail_msg("line %d: format \"%s\", size %zu: glibc \"%.*s\" (%d), ours \"%.*s\" (%d)",
                     line, fmt, sizes[i], sizes[i] ? (int)sizes[i] : 0, want, nw,
                     sizes[i] ? (int)sizes[i] : 0, got, ng);
        compared++;
    }
}

#define CMP(...) cmp_at(__LINE__, __VA_ARGS__)

/* formats in variables: some are legal C that gcc's -Wformat would still comment on */
static const char *F(const char *s)
{
    return s;
}

static void integers(void **state)
{
    (void)state;
    static const int iv[] = { 0, 1, -1, 7, 42, -42, 999, 1000, 65535, 123456789, INT_MAX, INT_MIN };
    static const char *const ifmt[] = { "%d", "%i", "[%5d]", "[%-5d]", "[%05d]", "[%1d]",
                                        "[%12d]", "[%-12i]", "[%012d]", "%d%%", "x%dy%dz" };
    for (unsigned f = 0; f < sizeof(ifmt) / sizeof(ifmt[0]); f++)
        for (unsigned i = 0; i < sizeof(iv) / sizeof(iv[0]); i++)
            CMP(F(ifmt[f]), iv[i], iv[(i + 1) % 12]);

    static const unsigned uv[] = { 0, 1, 9, 10, 15, 16, 255, 0x1000, 0xdeadbeef, UINT_MAX };
    static const char *const ufmt[] = { "%u", "%x", "%X", "[%8x]", "[%08X]", "[%-8x]",
                                        "[%2u]", "0x%08x", "[%010u]", "%x%X%u" };
    for (unsigned f = 0; f < sizeof(ufmt) / sizeof(ufmt[0]); f++)
        for (unsigned i = 0; i < sizeof(uv) / sizeof(uv[0]); i++)
            CMP(F(ufmt[f]), uv[i], uv[i], uv[i]);
}

static void lengths(void **state)
{
    (void)state;
    CMP("%hhd %hhd %hhd %hhu %hhx", 127, 128, 200, 300, 0x1ff);
    CMP("%hd %hd %hu %hx %hX", 32767, 70000, 70000, 0x12345, -1);
    CMP("%ld %ld %lu %lx %lX", LONG_MAX, LONG_MIN, ULONG_MAX, 0x123456789abcdefUL, 0xabcUL);
    CMP("%lld %lld %llu %llx %016llx", LLONG_MAX, LLONG_MIN, ULLONG_MAX, 0xfedcba9876543210ULL,
        0x100000ULL);
    CMP("%zu %zx %zd %zd", (size_t)SIZE_MAX, (size_t)0x1234, (ssize_t)-5, (ssize_t)12);
    CMP("%li %lli", -3L, -4LL);
    CMP("[%-20lld] [%020llu] [%20llx]", -1LL, 12345ULL, 0xffULL);
}

static void strings_and_chars(void **state)
{
    (void)state;
    static const char *const sv[] = { "", "a", "vtboot", "a longer string of text" };
    static const char *const sfmt[] = { "%s", "[%10s]", "[%-10s]", "[%.3s]", "[%8.2s]",
                                        "[%-8.0s]", "[%.30s]", "[%2s]" };
    for (unsigned f = 0; f < sizeof(sfmt) / sizeof(sfmt[0]); f++)
        for (unsigned i = 0; i < sizeof(sv) / sizeof(sv[0]); i++)
            CMP(F(sfmt[f]), sv[i]);
    CMP("%s", (char *)NULL);
    CMP("[%10s]", (char *)NULL);
    CMP("%c%c%c", 'v', 't', '!');
    CMP("[%3c] [%-3c]", 'x', 'y');
    CMP("%c", 0x141);                /* converted to unsigned char */
    CMP("100%% %s", "sure");
    CMP("no conversions at all");
    CMP("");
    /* precision on a string that is not terminated within it */
    static const char unterminated[3] = { 'a', 'b', 'c' };
    CMP("%.3s", unterminated);
}

static void star_width_precision(void **state)
{
    (void)state;
    for (int w = -12; w <= 12; w += 3) {
        CMP("[%*d]", w, 42);
        CMP("[%*s]", w, "ab");
        CMP("[%-*x]", w, 0xbeef);
        CMP("[%.*s]", w < 0 ? 2 : w, "abcdefghijklmnop");
    }
    CMP("[%.*s]", -1, "negative precision means none");
    CMP("[%*.*s]", 8, 3, "abcdef");
}

static void precision_on_integers(void **state)
{
    (void)state;
    static const int iv[] = { 0, 1, -1, 42, -12345, 123456, INT_MIN };
    static const char *const f[] = { "[%.3d]", "[%.0d]", "[%.1d]", "[%8.3d]", "[%-8.3d]",
                                     "[%08.3d]", "[%.10d]", "[%3.5i]", "[%.d]" };
    for (unsigned i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        for (unsigned j = 0; j < sizeof(iv) / sizeof(iv[0]); j++)
            CMP(F(f[i]), iv[j]);
    CMP("[%.4x] [%.8X] [%.0u] [%.0x] [%5.0x]", 0xab, 0x1234u, 0u, 0u, 0u);
    CMP("[%.*u]", 6, 42u);
    CMP("[%.*u]", -3, 42u);
    CMP("[%.12llx] [%-14.10lld]", 0xabcULL, -99LL);
}

static void pointers(void **state)
{
    (void)state;
    int x;
    CMP("%p", (void *)&x);
    CMP("%p", (void *)0x1000);
    CMP("[%20p]", (void *)0x801000);
    CMP("[%-20p]", (void *)0x801000);
    CMP("[%3p]", (void *)0xdeadbeef);
    /* glibc prints "(nil)" for NULL; ours keeps the number (a documented difference) */
    char buf[32];
    assert_int_equal(fmt_snprintf(buf, sizeof(buf), "%p", (void *)0), 3);
    assert_string_equal(buf, "0x0");
}

static void ours_only(void **state)
{
    (void)state;
    char buf[64];
    /* unknown conversions are printed as written and consume nothing */
    assert_int_equal(fmt_snprintf(buf, sizeof(buf), F("a%qb%d"), 5), 5);
    assert_string_equal(buf, "a%qb5");
    assert_int_equal(fmt_snprintf(buf, sizeof(buf), F("[%-8jd]"), 5), 7);
    assert_string_equal(buf, "[%-8jd]");
    /* a lone % at the end is dropped */
    assert_int_equal(fmt_snprintf(buf, sizeof(buf), F("abc%")), 3);
    assert_string_equal(buf, "abc");
    assert_int_equal(fmt_snprintf(buf, sizeof(buf), F("abc%-08.3l")), 3);
    assert_string_equal(buf, "abc");
    /* size 0 writes nothing, not even the terminator */
    memset(buf, 'z', sizeof(buf));
    assert_int_equal(fmt_snprintf(buf, 0, "%s", "hello"), 5);
    assert_int_equal(buf[0], 'z');
    assert_int_equal(fmt_snprintf(NULL, 0, "%d", 12345), 5);
    /* exactly full */
    assert_int_equal(fmt_snprintf(buf, 6, "%s", "hello"), 5);
    assert_string_equal(buf, "hello");
    assert_int_equal(fmt_snprintf(buf, 5, "%s", "hello"), 5);
    assert_string_equal(buf, "hell");
}

static void summary(void **state)
{
    (void)state;
    print_message("format: %u comparisons with glibc\n", compared);
    assert_true(compared > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers),
        cmocka_unit_test(lengths),
        cmocka_unit_test(strings_and_chars),
        cmocka_unit_test(star_width_precision),
        cmocka_unit_test(precision_on_integers),
        cmocka_unit_test(pointers),
        cmocka_unit_test(ours_only),
        cmocka_unit_test(summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
