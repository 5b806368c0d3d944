/* SPDX-License-Identifier: MIT */
/*
 * Decisions over the TPM's active PCR banks (struct tpm_banks, as tpm2_get_pcr_banks reads
 * them): which ones the launch extends (extpol=) and which one S3 seals to.
 */
#ifndef TPM_BANKS_H
#define TPM_BANKS_H

#include <stddef.h>
#include <stdint.h>

#include "tpm/tpm2.h"

/*
 * extpol=: 0 keeps every bank; an algorithm keeps only that bank (b becomes that one bank),
 * or, if the TPM has no such active bank, returns -1 with err = "extpol=<name> but the TPM has
 * no active <name> bank" and b unchanged. 0 otherwise.
 */
int tpm_banks_select(struct tpm_banks *b, uint16_t extpol, char *err, size_t errlen);

/* The bank S3 seals to: the first of SHA-256, SHA-384, SHA-512, SHA-1 that b holds; 0 if
 * none of them. */
uint16_t tpm_banks_seal_bank(const struct tpm_banks *b);

#endif
