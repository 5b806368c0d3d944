/* SPDX-License-Identifier: MIT */
/* The launcher's libFuzzer targets: an invariant that breaks names itself (file, line, the
 * condition) before the abort libFuzzer reports as a crash. */
#ifndef HOST_FUZZ_CHECK_H
#define HOST_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define check(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            dprintf(2, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);          \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

#endif
