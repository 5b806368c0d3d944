/* SPDX-License-Identifier: MIT */
/*
 * swtpm's control channel (S.ctrl beside the command socket of support/swtpm_sim) for tests
 * that need what only the platform can do to a TPM: a power cycle (CMD_INIT, i.e. _TPM_Init,
 * after which the TPM wants TPM2_Startup again). The protocol: a big-endian u32 command code
 * and its body; the answer starts with a big-endian u32 result, 0 for success
 * (stefanberger/swtpm include/swtpm/tpm_ioctl.h, src/swtpm/ctrlchannel.c; host/lib/tpmctrl.h
 * has the launcher's copy). No cmocka here.
 */
#ifndef TESTS_SWTPM_CTRL_H
#define TESTS_SWTPM_CTRL_H

#include <stddef.h>
#include <stdint.h>

#include "swtpm_sim.h"

/*
 * CMD_INIT with no flags: the TPM restarts as after a power cycle (its NV state, the owner
 * seed included, is kept; PCRs, loaded objects and sessions are not) and wants TPM2_Startup
 * again (without the power cycle, a TPM2_Startup after TPM2_Shutdown is TPM_RC_INITIALIZE).
 * The test's command connection stays open and usable. 0, or -1 with the reason in err.
 */
int swtpm_sim_power_cycle(struct swtpm_sim *s, char *err, size_t errlen);

#endif
