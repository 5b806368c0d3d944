/* SPDX-License-Identifier: MIT */
/*
 * A minimal poll(2) event loop: one per process, fds registered with a callback. ev_run_once()
 * may be called from inside a callback (a nested loop that waits for some condition); a
 * component that must not be re-entered turns its own events off (ev_set_events(fd, 0))
 * for that time.
 */
#ifndef HOST_EV_H
#define HOST_EV_H

#include <stdbool.h>

typedef void (*ev_fn)(void *ctx, int fd, short revents);

void ev_add(int fd, short events, ev_fn fn, void *ctx);
void ev_set_events(int fd, short events);
void ev_del(int fd);
/* Polls once (timeout_ms < 0: forever) and runs the callbacks of ready fds.
 * Returns the number of callbacks run, or -1 if poll failed (not EINTR). */
int ev_run_once(int timeout_ms);

#endif
