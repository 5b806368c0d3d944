/* SPDX-License-Identifier: MIT */
/*
 * A proxy on swtpm's control channel. QEMU connects to our socket (lfd); we hold swtpm's end
 * (sfd). Every QEMU request is forwarded whole, with its ancillary file descriptors
 * (CMD_SET_DATAFD passes QEMU's TPM data socket to swtpm as SCM_RIGHTS), and every answer
 * goes back. Between two QEMU requests we can inject our own commands (the locality-4 hash
 * sequence of a dynamic launch); QEMU requests that arrive meanwhile wait in our buffer.
 * Framing per command: tpmctrl.h.
 */
#ifndef HOST_CTRLPROXY_H
#define HOST_CTRLPROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTRLPROXY_MAX_FDS 8

struct ctrlproxy {
    int lfd, qfd, sfd;
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
void ctrlproxy_close(struct ctrlproxy *p);

#endif
