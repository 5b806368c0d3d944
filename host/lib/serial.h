/* SPDX-License-Identifier: MIT */
/*
 * The guest's console UART, relayed: QEMU connects (as a chardev socket client) to a socket we
 * listen on, so no byte is lost before we are ready; everything the guest sends goes to out_fd
 * (stdout) and to the log file; optionally our stdin goes to the guest.
 */
#ifndef HOST_SERIAL_H
#define HOST_SERIAL_H

#include <stdbool.h>

struct relay {
    int lfd, fd;
    int out_fd, log_fd;
    bool eof;
    bool from_stdin;
};

/* Listens on sockpath. log_fd may be -1. */
int relay_init(struct relay *r, const char *sockpath, int out_fd, int log_fd, bool from_stdin);
/* Reads whatever is left (after QEMU exited) until EOF. */
void relay_drain(struct relay *r);
void relay_close(struct relay *r);

#endif
