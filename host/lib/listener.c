/* SPDX-License-Identifier: MIT */
#include "listener.h"
#include "ev.h"
#include "sock.h"

#include <poll.h>
#include <unistd.h>

static void on_accept(void *ctx, int lfd, short revents)
{
    struct listener *l = ctx;
    int fd = sock_accept(lfd);

    (void)revents;
    if (fd < 0)
        return;
    if (l->take(l->ctx, fd) != 0)
        close(fd);
}

void listener_add(struct listener *l, int lfd, listener_take_fn take, void *ctx)
{
    l->take = take;
    l->ctx = ctx;
    ev_add(lfd, POLLIN, on_accept, l);
}
