/* SPDX-License-Identifier: MIT */
#include <stdint.h>

#include "arch/x86/io.h"
#include "drivers/warm_reset.h"
#include "lib/phys.h"

#define CMOS_INDEX 0x70
#define CMOS_DATA 0x71
#define CMOS_SHUTDOWN_STATUS 0x0f
#define WARM_RESET_VECTOR 0x467u        /* 40:67, offset then segment */

void warm_reset_disarm(void)
{
    outb(CMOS_INDEX, CMOS_SHUTDOWN_STATUS);
    outb(CMOS_DATA, 0);
    volatile uint8_t *vector = phys_map(WARM_RESET_VECTOR, 4);
    for (unsigned i = 0; i < 4; i++)
        vector[i] = 0;
}
