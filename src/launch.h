/* SPDX-License-Identifier: MIT */
/*
 * The measured launch, as tboot's begin_launch/post_launch do it with TXT: find the TPM, read
 * the policy from NV, ask the host for the dynamic launch, confirm it in PCR 17, verify and
 * measure the modules, and log every extend. Errors go through the policy: this returns when
 * Linux may start (measured, or unmeasured where the policy allows it) and halts otherwise.
 */
#ifndef LAUNCH_H
#define LAUNCH_H

#include <stdbool.h>

#include "boot/bootinfo.h"
#include "boot/options.h"
#include "tboot/measure.h"

struct launch_state {
    bool tpm;                        /* a TPM 2.0 answered */
    bool launched;                   /* PCR 17 holds the dynamic launch of our MLE */
    bool measured;                   /* policy and modules are extended */
    bool policy_from_nv;
};

void measured_launch(const struct boot_info *bi, const struct vtboot_options *opts,
                     struct launch_state *st);

/* Extends every PCR the launch touched with an unpredictable value, so that nothing sealed to
 * the launched state unseals after it (tboot's cap_pcrs). */
void launch_cap_pcrs(const char *why);

/* For S3: the TPM at the launch's locality, its banks, and the measurements made. */
bool launch_is_measured(void);
bool launch_tpm_acquire(void);
void launch_tpm_release(void);
struct tpm2 *launch_tpm(void);
const struct tpm_banks *launch_banks(void);
const struct vl_list *launch_measurements(void);

/* After S3: the TPM again, a new dynamic launch and the same measurements extended again,
 * with a new event log. False, with the reason logged, if any step fails. */
bool relaunch(const struct vtboot_options *opts, const struct vl_list *vl);

#endif
