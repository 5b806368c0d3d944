/* SPDX-License-Identifier: MIT */
/*
 * A proxy on swtpm's control channel. QEMU connects to our socket (lfd); we hold swtpm's end
 * (sfd). Every QEMU request is forwarded whole, with its ancillary file descriptors
 * (CMD_SET_DATAFD passes QEMU's TPM data socket to swtpm as SCM_RIGHTS), and every answer
 * goes back. Between two QEMU requests we can inject our own commands (the locality-4 hash
 * sequence of a dynamic launch); QEMU requests that arrive meanwhile wait in our buffer.
 * Framing per command: tpmctrl.h.
 *
 * TPM fault injection (ctrlproxy_set_faults): QEMU's CMD_SET_DATAFD carries QEMU's end of the
 * TPM data channel. With faults configured we hand swtpm one end of a socket pair of our own
 * instead and relay between QEMU's descriptor and the other end (struct tpmrelay), answering
 * the commands the faults name ourselves. Without faults QEMU's descriptor goes to swtpm as
 * it is (no copy in between).
 */
#ifndef HOST_CTRLPROXY_H
#define HOST_CTRLPROXY_H

#include "listener.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTRLPROXY_MAX_FDS 8

struct tpmfault_set;

/*
 * The TPM data channel, relayed. A command is what QEMU writes at once (QEMU writes each one
 * whole and reads its answer before the next, tpm_emulator.c), i.e. what has arrived when the
 * socket runs dry, once it is at least 10 bytes: the framing swtpm itself uses (it reads until
 * it has a 10-byte header, and takes that read as the command). Well-formed TPM 2.0 commands
 * (tpmfault_command) are counted and failed or forwarded; anything else is forwarded as it is
 * (swtpm answers it as it would without us). More than TPMRELAY_CMD_MAX bytes at once (QEMU's
 * TIS buffer is 4096) are dropped whole and answered TPM_RC_COMMAND_SIZE (0x142). Answers from
 * swtpm are framed by their size field and passed on in one write (QEMU's probe at start-up
 * reads its answer with a single read()).
 */
#define TPMRELAY_CMD_MAX 4096u
#define TPMRELAY_RSP_MAX 4096u

struct tpmrelay {
    int qfd, sfd;                       /* QEMU's data socket, our end of swtpm's; -1: none */
    struct tpmfault_set *faults;
    uint8_t cmd[TPMRELAY_CMD_MAX + 1];  /* the command from QEMU being gathered */
    size_t clen;
    size_t dropping;                    /* >0: bytes of an oversized command dropped so far */
    bool pending;                       /* a command is at swtpm, its answer not complete */
    uint32_t pending_cc;                /* ... its code (0: not a TPM 2.0 command) */
    size_t pending_len;
    uint8_t rsp[TPMRELAY_RSP_MAX];      /* swtpm's answer being gathered */
    size_t rlen;
    uint8_t *toq, *tos;                 /* bytes not yet written to QEMU / to swtpm */
    size_t toq_len, toq_off, tos_len, tos_off;
    unsigned long commands, injected, malformed;
};

struct ctrlproxy {
    int lfd, qfd, sfd;
    struct listener listener;   /* on lfd */
    uint8_t *qbuf;              /* bytes from QEMU not yet forwarded */
    size_t qlen, qcap;
    int fds[CTRLPROXY_MAX_FDS]; /* descriptors from QEMU not yet forwarded */
    int nfds;
    bool qemu_pending;          /* a QEMU request is at swtpm, answer not complete */
    uint32_t qemu_cmd;
    uint8_t rhdr[16];           /* start of the current answer (to frame it) */
    size_t rhave;
    bool ours_pending;          /* our injected command is at swtpm */
    uint8_t ours[16];
    size_t ours_have, ours_need;
    int holds;                  /* >0: do not forward QEMU requests (injection running) */
    bool broken;                /* a side closed or misbehaved */
    unsigned long forwarded;    /* QEMU requests forwarded */
    struct tpmfault_set *faults;/* NULL: no fault injection, no data relay */
    struct tpmrelay relay;
};

/* lfd: listening socket for QEMU; sfd: connected to swtpm. Both become owned by p. */
void ctrlproxy_init(struct ctrlproxy *p, int lfd, int sfd);
/* Injects one command (cmd + body) once the channel is idle, waits for the 4-byte result
 * (running the event loop). Returns 0 and *result, or -1 with a reason in err. */
int ctrlproxy_inject(struct ctrlproxy *p, uint32_t cmd, const void *body, size_t len,
                     uint32_t *result, int timeout_ms, char *err, size_t errsz);
/* Keeps QEMU's requests back until ctrlproxy_release() (to group several injections). */
void ctrlproxy_hold(struct ctrlproxy *p);
void ctrlproxy_release(struct ctrlproxy *p);
/* Relays the TPM data channel and fails the commands faults names (NULL: none). Call before
 * QEMU starts (CMD_SET_DATAFD is QEMU's first request); faults must outlive p. */
void ctrlproxy_set_faults(struct ctrlproxy *p, struct tpmfault_set *faults);
void ctrlproxy_close(struct ctrlproxy *p);

#endif
