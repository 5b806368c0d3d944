/* SPDX-License-Identifier: MIT */
#include "tboot/progress.h"

bool progress_reports(uint64_t total)
{
    return total >= PROGRESS_THRESHOLD;
}

void progress_start(struct progress *p, const struct progress_cb *cb, unsigned item,
                    uint64_t total)
{
    p->cb = cb && cb->fn && progress_reports(total) ? cb : 0;
    p->item = item;
    p->reported = 0;
    p->total = total;
    p->done = 0;
}

void progress_advance(struct progress *p, uint64_t n)
{
    if (!p->cb)
        return;
    p->done = n > p->total - p->done ? p->total : p->done + n;
    /* total < 2^64 / 100 for anything below 4 GiB (and far beyond), so no overflow */
    unsigned pct = (unsigned)(p->done * 100 / p->total);
    while (p->reported + PROGRESS_STEP <= pct) {
        p->reported += PROGRESS_STEP;
        p->cb->fn(p->cb->arg, p->item, p->reported, p->total);
    }
}
