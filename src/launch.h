/* SPDX-License-Identifier: MIT */
/*
 * The TPM side of the launch, as tboot's post_launch does it with TXT: confirm the dynamic
 * launch in PCR 17, read the policy from NV, verify and measure the modules, log every extend,
 * cap the PCRs when the launch ends. Errors go through the policy; every halt after the launch
 * caps PCRs 17-19 first (launch_confirm installs that in platform_halt).
 */
#ifndef LAUNCH_H
#define LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/bootinfo.h"
#include "boot/options.h"
#include "tboot/measure.h"

#define LAUNCH_LOCALITY 2u           /* tboot uses the TPM at locality 2 after SENTER */

struct launch_state {
    bool tpm;                        /* a TPM 2.0 answered */
    bool launched;                   /* PCR 17 holds the dynamic launch of our MLE */
    bool measured;                   /* policy and modules are extended */
    bool policy_from_nv;
};

/* In the MLE, before anything else: the TPM, and PCR 17 = H(0 || H(MLE)) in every bank.
 * Halts, capping what it can, if the launch cannot be confirmed. */
void launch_confirm(const struct vtboot_options *opts);

/* Starts the D-RTM event log with the launch's event, once vtboot's region is vtboot's. */
void launch_log_start(void);

/* After launch_confirm and launch_log_start: the policy (fail closed), the modules verified
 * against it and measured into PCRs 17-19, tboot's s3_key. Returns if Linux may start. */
void launch_measure(const struct boot_info *bi, struct launch_state *st);

/* Without a launch: the policy decides (tboot's default without a TPM) whether Linux starts
 * unmeasured; returns if it may, halts otherwise. */
void launch_unmeasured(const struct vtboot_options *opts, struct launch_state *st);

/* vtboot's block of the shared page (abi/vtboot_ext.h), once the page is written. */
void launch_ext_init(uint32_t memlog_addr);

/* Extends every PCR the launch touched with an unpredictable value, so that nothing sealed to
 * the launched state unseals after it (tboot's cap_pcrs); once, and only after a launch. */
void launch_cap_pcrs(const char *why);

/* For a launch that was asked for and never confirmed (the host did not answer): PCR 17 may
 * hold a launch value, so cap 17-19 before anything else runs. */
void launch_cap_unconfirmed(const struct vtboot_options *opts);

/* For S3: the TPM at the launch's locality, its banks, and the measurements made. */
bool launch_is_measured(void);
bool launch_tpm_acquire(void);
void launch_tpm_release(void);
struct tpm2 *launch_tpm(void);
const struct tpm_banks *launch_banks(void);
const struct vl_list *launch_measurements(void);

/* After S3, once the re-launch is confirmed and logged: the boot's measurements extended
 * again. False, with the reason logged, if an extend fails. */
bool launch_extend_again(const struct vl_list *vl);

#endif
