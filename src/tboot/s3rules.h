/* SPDX-License-Identifier: MIT */
/*
 * The decisions of vtboot's S3 over the state it keeps while the machine sleeps
 * (tboot/s3state.h). That state sits in RAM the whole time, so everything in it is read as
 * an attacker's until these rules and the TPM have vouched for it: whether it is vtboot's
 * and well-formed, whether it is for this resume (the TPM's counts), its digest, and whether
 * the sealed key's creation data says the key was made in this launch for this state.
 */
#ifndef TBOOT_S3RULES_H
#define TBOOT_S3RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tboot/s3state.h"
#include "tpm/tpm2_seal.h"

/* Magic, version and size are this vtboot's: a state it wrote (the pre-launch resume path
 * looks at nothing else before it asks for the launch). */
bool s3_state_is_ours(const struct s3_state *s);

/*
 * The resume's first check: 0, or -1 with err (n bytes) "no S3 state of vtboot's to resume"
 * (not s3_state_is_ours) or "the resume state is malformed" (more MAC regions, measurements
 * or ACPI tables than their arrays hold, or an RSDP longer than its buffer).
 */
int s3_state_check(const struct s3_state *s, char *err, size_t n);

/* SHA-256 of the state's bytes before `sealed`: the state digest, sealed with the key and
 * recorded as the sealed object's outsideInfo. */
void s3_state_digest(const struct s3_state *s, uint8_t out[32]);

/*
 * Between this suspend and the MLE's check at the next resume the TPM counts two restarts:
 * the firmware's TPM2_Startup(STATE), and the resume's dynamic launch (swtpm counts the
 * locality-4 hash sequence as one; measured: host/README.md). Counts never go back, and a TPM
 * reset (a reboot) changes resetCount: a state sealed for these counts is good for the next
 * resume only.
 */
#define RESUME_RESTARTS 2u

/* At suspend: the reset and restart counts the next resume will find, from the TPM's now. */
void s3_counts_for_resume(const struct tpm2_clock *now, uint32_t *reset, uint32_t *restart);

/* At resume: 0 if the TPM's counts now are those the state was sealed for; else -1 with err
 * (n bytes) saying both. */
int s3_counts_check(const struct s3_state *s, const struct tpm2_clock *now, char *err, size_t n);

/*
 * Whether the sealed key's creation data (parsed by tpm2_creation_parse, after
 * TPM2_CertifyCreation proved the TPM made it) shows a key made in this launch for this
 * state: PCR 17 and 18 alone of seal_bank, whose SHA-256 over their values now is pcr_digest;
 * under the parent named parent_name (parent_name_size bytes, at most TPM2_NAME_MAX); at
 * launch_locality (< 5); with outsideInfo the state digest found now (state_digest). NULL if
 * so, else the reason of the first rule that fails, in that order.
 */
const char *s3_creation_verdict(const struct tpm2_creation_info *info, uint16_t seal_bank,
                                const uint8_t pcr_digest[32], const uint8_t *parent_name,
                                uint16_t parent_name_size, unsigned launch_locality,
                                const uint8_t state_digest[32]);

#endif
