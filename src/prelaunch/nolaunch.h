/* SPDX-License-Identifier: MIT */
/* The pre-launch half without a launch: the policy decides whether Linux starts unmeasured,
 * and a request the host never answered is capped. */
#ifndef PRELAUNCH_NOLAUNCH_H
#define PRELAUNCH_NOLAUNCH_H

#include "boot/bootinfo.h"
#include "boot/options.h"

/* The boot flow's measuring step without a launch (common/boot.h): the policy (tboot's
 * default without a TPM) decides whether Linux starts unmeasured; returns if it may, halts
 * otherwise. */
void nolaunch_decide(const struct boot_info *bi);

/* For a launch that was asked for and never confirmed (the host did not answer): PCR 17 may
 * hold a launch value, so PCRs 17-19 are capped before anything else runs. */
void nolaunch_cap_unconfirmed(const struct vtboot_options *opts);

#endif
