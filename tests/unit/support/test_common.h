/* SPDX-License-Identifier: MIT */
/* What every unit test includes: cmocka (with the headers it needs first) and the support. */
#ifndef TESTS_TEST_COMMON_H
#define TESTS_TEST_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "builders.h"
#include "phys_fake.h"

/* assert_string_contains(haystack, needle): a distinctive substring of an error message. */
#define assert_contains(hay, needle)                                                         \
    do {                                                                                     \
        const char *h_ = (hay), *n_ = (needle);                                              \
        if (!strstr(h_, n_))                                                                 \
            fail_msg("\"%s\" does not contain \"%s\"", h_, n_);                              \
    } while (0)

/* A cmocka teardown that drops the fake memory. */
static inline int phys_teardown(void **state)
{
    (void)state;
    phys_fake_reset();
    return 0;
}

#define T(fn) cmocka_unit_test_teardown(fn, phys_teardown)

#endif
