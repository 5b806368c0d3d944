/* SPDX-License-Identifier: MIT */
/*
 * The TPM side of the launch in the MLE, as tboot's post_launch does it with TXT: confirm the
 * dynamic launch in PCR 17, start the D-RTM event log, read the policy, verify and measure the
 * modules, log every extend. From launch_confirm on, every halt caps PCRs 17-19 first
 * (common/halt.h).
 */
#ifndef MLE_LAUNCH_H
#define MLE_LAUNCH_H

#include <stdbool.h>

#include "boot/bootinfo.h"
#include "boot/options.h"
#include "tboot/measure.h"

/* Before anything else: the TPM, and PCR 17 = H(0 || H(MLE)) in every bank. Halts, capping
 * what it can, if the launch cannot be confirmed. */
void launch_confirm(const struct vtboot_options *opts);

/* Starts the D-RTM event log with the launch's event, once vtboot's region is vtboot's. */
void launch_log_start(void);

/* The boot flow's measuring step (common/boot.h): the event log started, the policy (fail
 * closed), the modules verified against it and measured into PCRs 17-19, tboot's s3_key.
 * Returns if Linux may start. */
void launch_measure(const struct boot_info *bi);

/* The measurements made, for S3; after a resume's launch, once it is confirmed and logged, the
 * boot's measurements extended again (false, with the reason logged, if an extend fails). */
const struct vl_list *launch_measurements(void);
bool launch_extend_again(const struct vl_list *vl);

#endif
