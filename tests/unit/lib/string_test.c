/* SPDX-License-Identifier: MIT */
/* memzero_explicit and strlcpy (the rest of lib/string.h is libc's on the host). */
#include "test_common.h"

#include "lib/string.h"

static void zero_explicit(void **state)
{
    (void)state;
    uint8_t key[64];
    memset(key, 0xa5, sizeof(key));
    memzero_explicit(key + 8, 32);
    for (unsigned i = 0; i < 64; i++)
        assert_int_equal(key[i], i >= 8 && i < 40 ? 0 : 0xa5);
    memzero_explicit(key, 0);
    assert_int_equal(key[0], 0xa5);
    memzero_explicit(key, sizeof(key));
    for (unsigned i = 0; i < 64; i++)
        assert_int_equal(key[i], 0);
}

static void lcpy(void **state)
{
    (void)state;
    char d[8];
    memset(d, 'x', sizeof(d));
    assert_int_equal(strlcpy(d, "abc", sizeof(d)), 3);
    assert_string_equal(d, "abc");
    assert_int_equal(d[4], 'x');                 /* nothing written past the terminator */
    assert_int_equal(strlcpy(d, "1234567", sizeof(d)), 7);
    assert_string_equal(d, "1234567");
    assert_int_equal(strlcpy(d, "123456789abc", sizeof(d)), 12);
    assert_string_equal(d, "1234567");
    assert_int_equal(strlcpy(d, "", sizeof(d)), 0);
    assert_string_equal(d, "");
    memset(d, 'x', sizeof(d));
    assert_int_equal(strlcpy(d, "abc", 1), 3);
    assert_int_equal(d[0], '\0');
    assert_int_equal(d[1], 'x');
    memset(d, 'x', sizeof(d));
    assert_int_equal(strlcpy(d, "abc", 0), 3);   /* size 0: nothing written at all */
    assert_int_equal(d[0], 'x');
    /* exact-size heap buffers: ASan catches any write past them */
    for (size_t n = 1; n < 12; n++) {
        char *h = malloc(n);
        assert_non_null(h);
        assert_int_equal(strlcpy(h, "hello world", n), 11);
        assert_int_equal(strlen(h), n - 1 < 11 ? n - 1 : 11);
        assert_memory_equal(h, "hello world", strlen(h));
        free(h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_explicit),
        cmocka_unit_test(lcpy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
