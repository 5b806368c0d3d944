/* SPDX-License-Identifier: MIT */
/* How the guest ended, decided from QMP events and QEMU's fate. */
#ifndef VTBOOT_QEMU_OUTCOME_H
#define VTBOOT_QEMU_OUTCOME_H

#include <stdbool.h>
#include <stdint.h>

enum outcome {
    OUT_NONE,
    OUT_POWEROFF,
    OUT_RESET,
    OUT_TIMEOUT,
    OUT_CRASH,
    OUT_SETUP,
    OUT_SIGNAL,
};

struct fate {
    enum outcome outcome;
    char detail[256];
    int64_t decided_at;         /* now_ms() when outcome was set */
    int signo;                  /* OUT_SIGNAL */
};

/* QMP event callback (ctx: struct fate *). */
void fate_on_event(void *ctx, const char *event, const char *json);
/* Sets the outcome unless one is already set. */
void fate_set(struct fate *f, enum outcome o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prints the final line; returns the exit status. */
int fate_report(const struct fate *f, double seconds);

#endif
