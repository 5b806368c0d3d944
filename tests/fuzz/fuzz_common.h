/* SPDX-License-Identifier: MIT */
/* Shared by the libFuzzer targets: a loud assertion and the canonical-e820-map check. */
#ifndef TESTS_FUZZ_COMMON_H
#define TESTS_FUZZ_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE                  /* memmem */
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builders.h"
#include "mem/e820.h"
#include "phys_fake.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond, ...)                                                               \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: assertion '%s' failed: ", __FILE__, __LINE__, #cond);    \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

/* On failure, an error message: non-empty and terminated within its buffer. */
static inline void check_err(const char *err, size_t len, int rc)
{
    if (!rc)
        return;
    FUZZ_ASSERT(memchr(err, '\0', len) != NULL, "error message not terminated");
    FUZZ_ASSERT(err[0] != '\0', "failure without a reason");
}

/* Sorted, non-overlapping, no empty or wrapping entries, touching entries differ in type. */
static inline void check_canonical(const struct e820_map *m)
{
    FUZZ_ASSERT(m->nr <= E820_MAP_MAX, "nr %u", m->nr);
    for (unsigned i = 0; i < m->nr; i++) {
        const struct e820_entry *e = &m->e[i];
        FUZZ_ASSERT(e->size != 0, "entry %u empty", i);
        FUZZ_ASSERT(e->addr + e->size > e->addr, "entry %u wraps", i);
        if (i) {
            const struct e820_entry *p = &m->e[i - 1];
            FUZZ_ASSERT(p->addr + p->size <= e->addr, "entries %u and %u overlap/unsorted", i - 1, i);
            FUZZ_ASSERT(p->addr + p->size != e->addr || p->type != e->type,
                        "entries %u and %u touch with type %u", i - 1, i, e->type);
        }
    }
}

#endif
