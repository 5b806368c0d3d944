/* SPDX-License-Identifier: MIT */
/*
 * The guest's console UART, relayed through two FIFOs that QEMU's pipe chardev opens
 * (base.out: guest to us, base.in: us to guest). Not a socket: QEMU's UART writes one byte per
 * write(2), and a Unix stream socket holds only ~280 such writes before it refuses more, so a
 * relay that is a moment late (two QEMUs on two cores) made the UART drop bytes once the
 * guest's transmit timeout ran out. A pipe buffers bytes, not writes: 1 MiB here.
 * Everything the guest sends goes to out_fd (stdout) and to the log file; optionally our
 * stdin goes to the guest.
 * Neither direction ever waits in the event loop: what a slow side cannot take yet stays in a
 * bounded buffer, written when poll says the side can take more, and until then we read no
 * more from the other side (back-pressure: nothing is dropped, the guest's UART or our stdin
 * waits instead of the launcher).
 */
#ifndef HOST_SERIAL_H
#define HOST_SERIAL_H

#include <stdbool.h>

#include <stddef.h>

struct relay {
    int from_guest, to_guest;
    int out_fd, log_fd;
    bool own_out;               /* out_fd is our non-blocking reopening of stdout: close it */
    bool from_stdin;
    char out[16384];            /* from the guest, not yet taken by out_fd */
    size_t out_len, out_off;
    char in[4096];              /* from stdin, not yet taken by the guest's FIFO */
    size_t in_len, in_off;
};

/* Makes the FIFOs base.in and base.out. log_fd may be -1. */
int relay_init(struct relay *r, const char *base, int out_fd, int log_fd, bool from_stdin);
/* Reads whatever the guest sent and we have not read yet (after QEMU exited); a stdout that
 * does not take it within half a second loses it (the log file still gets it). */
void relay_drain(struct relay *r);
void relay_close(struct relay *r);

#endif
