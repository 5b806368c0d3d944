/* SPDX-License-Identifier: MIT */
/*
 * The launch policy as both halves apply it: tboot's default until TPM NV has been read, then
 * the policy in NV index 0x01200001 (fail closed where tboot falls back: tboot/policy.h
 * tb_policy_source); every error goes through it, and a halt it decides caps first.
 */
#ifndef COMMON_LAUNCH_POLICY_H
#define COMMON_LAUNCH_POLICY_H

#include "boot/options.h"
#include "tboot/measure.h"
#include "tboot/policy.h"

/* tboot's default policy for the options' PCR mapping; judges errors until NV is read. */
void launch_policy_init(const struct vtboot_options *opts);
/* With the launch TPM found: the policy from NV, or the default one if the index does not
 * exist; halts if it exists and cannot be used. Marks vtboot's block if it came from NV. */
void launch_policy_read(void);
/* What the policy says to do about e; halts (capping) if that is to halt. */
enum tb_action launch_policy_apply(enum tb_error e);

const struct tb_policy *launch_policy(void);
enum pcr_map launch_pcr_map(void);

#endif
