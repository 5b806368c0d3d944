/* SPDX-License-Identifier: MIT */
/*
 * Capping: PCRs 17-19 extended with unpredictable values, so that nothing sealed to the
 * launched state unseals after it (tboot's cap_pcrs). Armed by the MLE as it starts (PCR 17
 * may hold a launch value from then on); every end of the launch caps once.
 */
#ifndef COMMON_PCR_CAP_H
#define COMMON_PCR_CAP_H

#include <stdbool.h>

/* From now on PCR 17 may hold this MLE's launch value. */
void pcr_cap_arm(void);
/* Armed and not capped yet: the PCRs hold the launch (S3 seals only then). */
bool pcr_cap_armed(void);
/* If armed: caps once (a failing cap is said, never retried through a halt). */
void pcr_cap(const char *why);
/* Caps whether armed or not (a launch that was asked for and never confirmed), with the
 * launch TPM found by the caller. */
void pcr_cap_now(const char *why);

#endif
