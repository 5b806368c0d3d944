/* SPDX-License-Identifier: MIT */
/*
 * swtpm as our child (not --daemon, so we have its pid): a TPM 2.0 with its state in a
 * directory and only a control channel; QEMU hands it the data channel itself
 * (CMD_SET_DATAFD). No --flags startup-*: SeaBIOS sends TPM2_Startup.
 */
#ifndef HOST_SWTPM_H
#define HOST_SWTPM_H

#include "proc.h"

#include <stdbool.h>

/* ctrl_fd becomes the control channel: a listening socket (is_client false: swtpm accepts
 * QEMU's connection on it) or one end of a connected socket pair (is_client true). */
int swtpm_start(struct proc *p, const char *statedir, int ctrl_fd, bool is_client,
                const char *log_path);

#endif
