/* SPDX-License-Identifier: MIT */
/* The host unit tests' harness (unit.c has main): CHECK counts, data files. */
#ifndef HOST_TESTS_UNIT_H
#define HOST_TESTS_UNIT_H

#include <stdio.h>

extern int unit_passed, unit_failed;
extern const char *unit_data_dir;       /* host/tests/unit/data, or argv[1] */

#define CHECK(cond, ...) do { \
    if (cond) { unit_passed++; } else { unit_failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
        printf(__VA_ARGS__); printf("\n"); } } while (0)

/* a data file's bytes, NUL-terminated (exits if it cannot be read) */
char *unit_data(const char *name);

void test_mlehdr(void);
void test_mleaudit(void);
void test_cpustate(void);
void test_gdbrsp(void);
void test_gdbtrack(void);
void test_xenboot(void);
void test_txtboot(void);
void test_hostpage(void);
void test_platstate(void);
void test_bytes(void);
void test_expectopt(void);
void test_qmp(void);
void test_guestreport(void);

#endif
