/* SPDX-License-Identifier: MIT */
/*
 * Time for timeouts: the TSC, calibrated once against the 8254 PIT (channel 2). And vtboot's
 * own timing lines (pr_detail, "timing: ..."), from TSC timestamps: each half marks its entry,
 * the flows count the ticks spent hashing and MACing, and the jump into a kernel says how
 * long the half ran and how much of that was hashing.
 */
#ifndef DRIVERS_TIMER_H
#define DRIVERS_TIMER_H

#include <stdint.h>

void timer_init(void);
uint64_t timer_now_us(void);
void timer_delay_us(uint32_t us);

uint64_t timer_tsc(void);

/* This half's entry (the first thing it does), and its log line once logging is up. */
void timer_mark_entry(void);
void timer_log_entry(const char *half);
/* Ticks spent hashing (measurements, the MLE's digest) or MACing, for the timing lines. */
void timer_count_hashing(uint64_t ticks);
/* The line before a jump into a kernel (or the S3 sleep): "timing: <what> at TSC ...", the
 * ticks (and us) since the entry, of which hashing, and the TSC rate. */
void timer_log_jump(const char *what);

#endif
