/* SPDX-License-Identifier: MIT */
/*
 * A listening socket in the event loop (ev.h, sock.h): every connection is accepted there
 * (sock_accept: close-on-exec, non-blocking) and handed to the owner's take(ctx, fd), which
 * keeps it (0) or turns it away (-1: the listener closes it). One place for what the
 * owners of listening sockets (the TPM control proxy, the gdb multiplexer, the virtual
 * SENTER's UART, --qmp) did each on their own. The owner keeps struct listener as long as
 * the socket is in the loop; it removes and closes the socket itself (ev_del, close).
 */
#ifndef HOST_LISTENER_H
#define HOST_LISTENER_H

typedef int (*listener_take_fn)(void *ctx, int fd);

struct listener {
    listener_take_fn take;
    void *ctx;
};

/* Puts lfd into the event loop (POLLIN): each connection goes to take(ctx, fd). */
void listener_add(struct listener *l, int lfd, listener_take_fn take, void *ctx);

#endif
