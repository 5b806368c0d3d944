/* SPDX-License-Identifier: MIT */
/*
 * Progress of a long pass over memory (a module hashed into every bank, RAM MACed for S3), so
 * that a slow boot or suspend is never silent. Pure: the pass reports each multiple of
 * PROGRESS_STEP percent it crosses, in order and once each (10, 20, ..., 100), through the
 * caller's callback, and only if the pass covers at least PROGRESS_THRESHOLD bytes; the flow
 * decides what to print. A pass that crosses several steps in one advance reports each of them.
 */
#ifndef TBOOT_PROGRESS_H
#define TBOOT_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#define PROGRESS_THRESHOLD (16ull << 20)     /* 16 MiB: shorter passes are quiet */
#define PROGRESS_STEP 10u                    /* percent */

/* item: the module's number (measure), 0 for a MAC pass; total: the pass's bytes. */
typedef void (*progress_fn)(void *arg, unsigned item, unsigned percent, uint64_t total);

struct progress_cb {
    progress_fn fn;                          /* NULL: no reports */
    void *arg;
};

struct progress {
    const struct progress_cb *cb;
    unsigned item;
    unsigned reported;                       /* the last percent reported (0: none yet) */
    uint64_t total, done;
};

/* A pass of `total` bytes; cb may be NULL. Reports nothing yet. */
void progress_start(struct progress *p, const struct progress_cb *cb, unsigned item,
                    uint64_t total);
/* n more bytes are done: reports every step now crossed (done * 100 / total, rounded down). */
void progress_advance(struct progress *p, uint64_t n);
/* Whether a pass of `total` bytes reports at all. */
bool progress_reports(uint64_t total);

#endif
