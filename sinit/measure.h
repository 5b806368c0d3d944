/* SPDX-License-Identifier: MIT */
#ifndef SINIT_MEASURE_H
#define SINIT_MEASURE_H

#include "tpm/eventlog.h"
#include "tpm/tpm2.h"
#include "txt/drtm.h"

/* Extends PCRs 17 and 18 with `ev` (the MLE's digests for its MLE event) and logs each
 * event, HASH_START included, into `log` (started). 0, or -1 with the reason. */
int measure_drtm(struct tpm2 *t, const struct tpm_banks *banks,
                 const struct txt_drtm_events *ev, const struct tpm_digest_list *mle,
                 struct event_log *log, char *err, unsigned errlen);

#endif
