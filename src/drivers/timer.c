/* SPDX-License-Identifier: MIT */
#include "arch/x86/io.h"
#include "drivers/timer.h"
#include "log/printk.h"

#define PIT_HZ 1193182u
#define CALIBRATE_MS 10u
#define PIT_CH2_DATA 0x42
#define PIT_CMD 0x43
#define PORT_61 0x61

#define TSC_PER_US_GUESS 1000u       /* 1 GHz, until calibrated */

static uint64_t tsc_per_us;          /* 0: not calibrated */
static uint64_t entry_tsc, hashing_ticks;

void timer_init(void)
{
    uint32_t count = PIT_HZ * CALIBRATE_MS / 1000;

    /* gate channel 2 on, speaker off, one-shot countdown */
    outb(PORT_61, (uint8_t)((inb(PORT_61) & ~0x02) | 0x01));
    outb(PIT_CMD, 0xb0);             /* channel 2, lobyte/hibyte, mode 0 */
    outb(PIT_CH2_DATA, (uint8_t)count);
    outb(PIT_CH2_DATA, (uint8_t)(count >> 8));
    uint64_t start = rdtsc();
    uint32_t spins = 0;
    while (!(inb(PORT_61) & 0x20) && ++spins < 100000000u)
        ;
    uint64_t ticks = rdtsc() - start;
    if (!(inb(PORT_61) & 0x20) || ticks < CALIBRATE_MS * 1000u) {
        pr_warn("timer: PIT calibration failed; assuming a 1 GHz TSC\n");
        tsc_per_us = TSC_PER_US_GUESS;
        return;
    }
    tsc_per_us = ticks / (CALIBRATE_MS * 1000u);
    pr_detail("timer: TSC at %llu MHz\n", (unsigned long long)tsc_per_us);
}

uint64_t timer_now_us(void)
{
    return rdtsc() / (tsc_per_us ? tsc_per_us : TSC_PER_US_GUESS);
}

void timer_delay_us(uint32_t us)
{
    uint64_t end = timer_now_us() + us;
    while (timer_now_us() < end)
        cpu_relax();
}

uint64_t timer_tsc(void)
{
    return rdtsc();
}

void timer_mark_entry(void)
{
    entry_tsc = rdtsc();
    hashing_ticks = 0;
}

void timer_log_entry(const char *half)
{
    pr_detail("timing: %s entry at TSC %llu\n", half, (unsigned long long)entry_tsc);
}

void timer_count_hashing(uint64_t ticks)
{
    hashing_ticks += ticks;
}

static unsigned long long ticks_us(uint64_t ticks)
{
    return (unsigned long long)(ticks / (tsc_per_us ? tsc_per_us : TSC_PER_US_GUESS));
}

void timer_log_jump(const char *what)
{
    uint64_t now = rdtsc(), ran = now - entry_tsc;
    pr_detail("timing: %s at TSC %llu: %llu ticks (%llu us) since the entry at TSC %llu, "
              "hashing %llu ticks (%llu us); TSC %llu MHz\n", what,
              (unsigned long long)now, (unsigned long long)ran, ticks_us(ran),
              (unsigned long long)entry_tsc, (unsigned long long)hashing_ticks,
              ticks_us(hashing_ticks), (unsigned long long)tsc_per_us);
}
