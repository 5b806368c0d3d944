/* SPDX-License-Identifier: MIT */
#include "ev.h"
#include "log.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>

#define EV_MAX 32

struct ev_ent {
    int fd;             /* -1: free */
    short events;
    ev_fn fn;
    void *ctx;
    unsigned gen;       /* changes when the slot is reused */
};

static struct ev_ent ents[EV_MAX];
static int nents;
static unsigned next_gen = 1;

static struct ev_ent *find(int fd)
{
    for (int i = 0; i < nents; i++)
        if (ents[i].fd == fd)
            return &ents[i];
    return NULL;
}

void ev_add(int fd, short events, ev_fn fn, void *ctx)
{
    struct ev_ent *e = find(fd);

    if (!e) {
        for (int i = 0; i < nents && !e; i++)
            if (ents[i].fd < 0)
                e = &ents[i];
        if (!e) {
            if (nents == EV_MAX) {
                log_err("event loop: too many descriptors");
                abort();
            }
            e = &ents[nents++];
        }
    }
    e->fd = fd;
    e->events = events;
    e->fn = fn;
    e->ctx = ctx;
    e->gen = next_gen++;
}

void ev_set_events(int fd, short events)
{
    struct ev_ent *e = find(fd);

    if (e)
        e->events = events;
}

void ev_del(int fd)
{
    struct ev_ent *e = find(fd);

    if (e)
        e->fd = -1;
}

int ev_run_once(int timeout_ms)
{
    struct pollfd pfd[EV_MAX];
    unsigned gen[EV_MAX];
    int slot[EV_MAX];
    int n = 0, ran = 0, r;

    for (int i = 0; i < nents; i++) {
        if (ents[i].fd < 0 || !ents[i].events)
            continue;
        pfd[n].fd = ents[i].fd;
        pfd[n].events = ents[i].events;
        pfd[n].revents = 0;
        gen[n] = ents[i].gen;
        slot[n] = i;
        n++;
    }
    r = poll(pfd, (nfds_t)n, timeout_ms);
    if (r < 0)
        return errno == EINTR ? 0 : -1;
    for (int k = 0; k < n && r > 0; k++) {
        struct ev_ent *e = &ents[slot[k]];

        if (!pfd[k].revents)
            continue;
        r--;
        /* skip entries removed, replaced or disabled by an earlier callback */
        if (e->fd != pfd[k].fd || e->gen != gen[k] || !e->events)
            continue;
        e->fn(e->ctx, e->fd, pfd[k].revents);
        ran++;
    }
    return ran;
}
