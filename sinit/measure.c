/* SPDX-License-Identifier: MIT */
/*
 * The SINIT's own PCR extends and every record of the D-RTM event log (docs/txt-platform.md
 * 3.4 step 7), in the order src/txt/drtm.c lists them, the same list vtboot-pcr predicts
 * from. The first event (HASH_START) the CPU already extended through locality 4: it is
 * only logged.
 */
#include "crypto/hash.h"
#include "lib/format.h"
#include "measure.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int measure_drtm(struct tpm2 *t, const struct tpm_banks *banks,
                 const struct txt_drtm_events *ev, const struct tpm_digest_list *mle,
                 struct event_log *log, char *err, unsigned errlen)
{
    for (unsigned i = 0; i < TXT_DRTM_NR_EVENTS; i++) {
        const struct txt_drtm_event *e = &ev->ev[i];
        struct tpm_digest_list d = { .count = banks->count };

        if (e->is_mle)
            d = *mle;
        else
            for (unsigned b = 0; b < banks->count; b++) {
                d.d[b].alg = banks->alg[b];
                if (hash_buffer(banks->alg[b], e->data, e->len, d.d[b].bytes))
                    FAIL("no hash for bank 0x%04x", banks->alg[b]);
            }
        if (i > 0 && tpm2_pcr_extend(t, e->pcr, &d))
            FAIL("extending PCR %u: %s", e->pcr, t->err);
        if (evlog_append(log, e->pcr, e->type, &d, e->is_mle ? NULL : e->data,
                         e->is_mle ? 0 : e->len))
            FAIL("the event log (%u bytes) is full at event %u", log->cap, i);
    }
    return 0;
}
