/* SPDX-License-Identifier: MIT */
#include <stdbool.h>

#include "common/simd_state.h"
#include "crypto/cpu.h"
#include "drivers/simd.h"
#include "log/printk.h"

static struct simd_saved simd_saved;
static struct cpu_features simd_features;
static bool simd_on;

void boot_simd_enable(void)
{
    simd_enable(&simd_saved, &simd_features);
    simd_on = true;
}

void boot_simd_log(void)
{
    char line[160];
    crypto_describe(simd_on ? &simd_features : 0, line, sizeof(line));
    pr_info("crypto: %s\n", line);
}

void boot_simd_restore(void)
{
    if (simd_on)
        simd_restore(&simd_saved);
    else
        crypto_select_portable();
    simd_on = false;
}
