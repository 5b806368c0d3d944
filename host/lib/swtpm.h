/* SPDX-License-Identifier: MIT */
/*
 * swtpm as our child (not --daemon, so we have its pid): a TPM 2.0 with its state in a
 * directory and only a control channel; QEMU hands it the data channel itself
 * (CMD_SET_DATAFD). No --flags startup-*: SeaBIOS sends TPM2_Startup.
 * Also the two other ways we run it: swtpm_setup for a fresh state with chosen PCR banks, and
 * a swtpm with a data socket of its own for tpm2-tools (tpmprov.c).
 */
#ifndef HOST_SWTPM_H
#define HOST_SWTPM_H

#include "proc.h"

#include <stdbool.h>

/* ctrl_fd becomes the control channel: a listening socket (is_client false: swtpm accepts
 * QEMU's connection on it) or one end of a connected socket pair (is_client true). */
int swtpm_start(struct proc *p, const char *statedir, int ctrl_fd, bool is_client,
                const char *log_path);

/* swtpm for tpm2-tools: data and control channel on listening unix sockets WORKDIR/NAME.sock
 * and WORKDIR/NAME.sock.ctrl (swtpm accepts one client after the other on each), --flags
 * not-need-init, stderr to WORKDIR/swtpm-NAME.log. tcti is tpm2-tools' "swtpm:path=<sock>". */
struct swtpm_server {
    struct proc proc;
    char *sock, *ctrl, *log, *tcti;
};

#define SWTPM_SERVER_STOP_MS 2000

/* 0, or -1 with the reason logged (s is then ended already). */
int swtpm_server_start(struct swtpm_server *s, const char *statedir, const char *workdir,
                       const char *name);
/* Stops swtpm (if it runs), removes the sockets, frees the names; the log stays. */
void swtpm_server_end(struct swtpm_server *s);

/* The file that holds a TPM 2.0 state in swtpm's directory backend. */
#define SWTPM_STATE_FILE "tpm2-00.permall"
bool swtpm_state_exists(const char *statedir);

/*
 * A fresh TPM 2.0 state in statedir (which must exist and hold none):
 *   swtpm_setup --tpm2 --tpmstate DIR --pcr-banks BANKS --logfile LOG
 * no EK, no certificates (the fast path: --create-ek-cert costs RSA and ECC key generation and
 * two certtool runs). banks: a comma list, or "-" for swtpm's own allocation (all banks).
 * Must run while we have no other child (see proc_adopt). Returns 0, -1 (error, swtpm_setup's
 * log shown) or 128+signal.
 */
int swtpm_setup_state(const char *statedir, const char *banks, const char *workdir);
/* The same with EKs and their certificates: swtpm_setup ... --create-ek-cert --config CONFIG,
 * CONFIG naming the certificate tool (swtpm_localca) and its configuration (the CA's
 * directory: attestrun.c writes both). config NULL: swtpm_setup_state(). */
int swtpm_setup_state_ek(const char *statedir, const char *banks, const char *workdir,
                         const char *config);

#endif
