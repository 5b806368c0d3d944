/* SPDX-License-Identifier: MIT */
/*
 * The guest's console UART, relayed through two FIFOs that QEMU's pipe chardev opens
 * (base.out: guest to us, base.in: us to guest). Not a socket: QEMU's UART writes one byte per
 * write(2), and a Unix stream socket holds only ~280 such writes before it refuses more, so a
 * relay that is a moment late (two QEMUs on two cores) made the UART drop bytes once the
 * guest's transmit timeout ran out. A pipe buffers bytes, not writes: 1 MiB here.
 * Everything the guest sends goes to out_fd (stdout) and to the log file; optionally our
 * stdin goes to the guest.
 */
#ifndef HOST_SERIAL_H
#define HOST_SERIAL_H

#include <stdbool.h>

struct relay {
    int from_guest, to_guest;
    int out_fd, log_fd;
    bool from_stdin;
};

/* Makes the FIFOs base.in and base.out. log_fd may be -1. */
int relay_init(struct relay *r, const char *base, int out_fd, int log_fd, bool from_stdin);
/* Reads whatever the guest sent and we have not read yet (after QEMU exited). */
void relay_drain(struct relay *r);
void relay_close(struct relay *r);

#endif
