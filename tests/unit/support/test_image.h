/* SPDX-License-Identifier: MIT */
/* The one image a parser test builds at a time (eb_build, bz_build: img, img_size), freed
 * after each test registered with TI(fn). For one test file each: the state is static. */
#ifndef TESTS_TEST_IMAGE_H
#define TESTS_TEST_IMAGE_H

#include <stdint.h>
#include <stdlib.h>

static uint8_t *img;
static size_t img_size;

static inline int image_teardown(void **state)
{
    (void)state;
    free(img);
    img = NULL;
    return 0;
}

#define TI(fn) cmocka_unit_test_teardown(fn, image_teardown)

#endif
