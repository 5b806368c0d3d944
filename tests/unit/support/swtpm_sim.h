/* SPDX-License-Identifier: MIT */
/*
 * A real TPM for host tests: swtpm (`swtpm socket --tpm2`, already started with
 * Startup(CLEAR)) serving a Unix socket S and its control channel S.ctrl in a scratch
 * directory (both listening sockets made here and passed to swtpm, so there is nothing to
 * wait for and no port to race for), its state in the same directory, and a tpm_transmit_fn
 * that writes raw commands to S and reads the responses (the socket speaks TPM commands
 * without framing). tpm2-tools reach the same TPM with the TCTI in `tcti` (tpm2-tss 3.2's swtpm
 * TCTI opens S.ctrl itself). swtpm serves one connection at a time: disconnect before running
 * a tool. swtpm dies with the test process (PR_SET_PDEATHSIG) even if the test crashes.
 */
#ifndef TESTS_SWTPM_SIM_H
#define TESTS_SWTPM_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct swtpm_sim {
    pid_t pid;
    int fd;                          /* connection to the server, -1 if none */
    char dir[64];                    /* scratch directory: tpm state, sockets, swtpm's log */
    char sock[96];                   /* S */
    char tcti[128];                  /* "swtpm:path=S" */
};

/* Starts swtpm; 0, or -1 with the reason in err (swtpm missing, could not start). */
int swtpm_sim_start(struct swtpm_sim *s, char *err, size_t errlen);
/* Kills swtpm, removes the directory. Safe to call twice or after a failed start. */
void swtpm_sim_stop(struct swtpm_sim *s);

int swtpm_sim_connect(struct swtpm_sim *s);
void swtpm_sim_disconnect(struct swtpm_sim *s);

/* A tpm_transmit_fn: ctx is the struct swtpm_sim (connected). */
int swtpm_sim_transmit(void *ctx, const uint8_t *cmd, size_t cmd_len, uint8_t *rsp,
                       size_t rsp_cap, size_t *rsp_len, char *err, size_t errlen);

#endif
