/* SPDX-License-Identifier: MIT */
/*
 * The TPM as the launch uses it (tboot: locality 2 after SENTER), with the PCR banks it
 * extends: found once per boot by whichever half runs, then shared by the policy, the
 * measurements, the caps and S3.
 */
#ifndef COMMON_LAUNCH_TPM_H
#define COMMON_LAUNCH_TPM_H

#include <stdbool.h>
#include <stdint.h>

#include "tpm/tpm2.h"

#define LAUNCH_LOCALITY 2u

/* Probes the TIS, takes the launch's locality, starts the TPM, reads its banks (extpol, a
 * bank's algorithm or 0: every active bank, tpm_banks_select). False, said on the log, if any
 * of that fails. The locality stays taken. */
bool launch_tpm_find(uint16_t extpol);
/* True once launch_tpm_find succeeded and until launch_tpm_forget. */
bool launch_tpm_usable(void);
void launch_tpm_forget(void);

bool launch_tpm_acquire(void);
void launch_tpm_release(void);
struct tpm2 *launch_tpm(void);
const struct tpm_banks *launch_banks(void);

/* One line per bank: "  <what> <alg>: <hex>". */
void launch_tpm_print_digests(const char *what, const struct tpm_digest_list *d);

#endif
