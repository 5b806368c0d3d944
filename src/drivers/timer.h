/* SPDX-License-Identifier: MIT */
/* Time for timeouts: the TSC, calibrated once against the 8254 PIT (channel 2). */
#ifndef DRIVERS_TIMER_H
#define DRIVERS_TIMER_H

#include <stdint.h>

void timer_init(void);
uint64_t timer_now_us(void);
void timer_delay_us(uint32_t us);

#endif
