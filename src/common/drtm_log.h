/* SPDX-License-Identifier: MIT */
/*
 * The D-RTM event log (TCG PC Client, crypto-agile), in vtboot's region at _evtlog_start. Its
 * address goes into vtboot's block of the shared page when the log starts, its length after
 * every event.
 */
#ifndef COMMON_DRTM_LOG_H
#define COMMON_DRTM_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "tpm/tpm2.h"

/* Starts the log for these banks (the launch's event first is the caller's); -1 if no room. */
int drtm_log_start(const struct tpm_banks *banks);
bool drtm_log_started(void);
/* Appends an event; -1, said on the log, if it is full. */
int drtm_log_event(uint32_t pcr, uint32_t type, const struct tpm_digest_list *d, const char *what);
uint32_t drtm_log_used(void);

#endif
