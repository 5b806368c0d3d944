/* SPDX-License-Identifier: MIT */
#include "serial.h"
#include "ev.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RELAY_PIPE_SIZE (1 << 20)

static void put(struct relay *r, const char *buf, size_t n)
{
    if (r->out_fd >= 0 && write_full(r->out_fd, buf, n) != 0) {
        log_perr("writing the guest console to stdout (stopped)");
        r->out_fd = -1;
    }
    if (r->log_fd >= 0 && write_full(r->log_fd, buf, n) != 0) {
        log_perr("writing the serial log (stopped)");
        r->log_fd = -1;
    }
}

/* false once nothing is waiting */
static bool pump(struct relay *r)
{
    char buf[16384];
    ssize_t n = read(r->from_guest, buf, sizeof(buf));

    if (n < 0 && errno == EINTR)
        return true;
    if (n <= 0)
        return false;
    put(r, buf, (size_t)n);
    return true;
}

static void on_data(void *ctx, int fd, short revents)
{
    (void)fd;
    (void)revents;
    pump(ctx);
}

static void on_stdin(void *ctx, int fd, short revents)
{
    struct relay *r = ctx;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof(buf));
    ssize_t off = 0;

    (void)revents;
    if (n <= 0) {
        ev_del(fd);
        return;
    }
    /* the guest reads slowly: wait for room rather than drop keystrokes */
    while (off < n) {
        ssize_t w = write(r->to_guest, buf + off, (size_t)(n - off));

        if (w > 0) {
            off += w;
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            struct pollfd p = { r->to_guest, POLLOUT, 0 };

            poll(&p, 1, 100);
        } else {
            break;
        }
    }
}

/*
 * Both ends are opened read-write, as QEMU opens its own: neither open waits for the other
 * side, and neither side sees a hang-up while the other is not there yet.
 */
static int open_fifo(const char *base, const char *suffix)
{
    char *path = xasprintf("%s%s", base, suffix);
    int fd = -1;

    if (mkfifo(path, 0600) != 0)
        log_perr("mkfifo %s", path);
    else if ((fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0)
        log_perr("open %s", path);
    free(path);
    return fd;
}

int relay_init(struct relay *r, const char *base, int out_fd, int log_fd, bool from_stdin)
{
    memset(r, 0, sizeof(*r));
    r->out_fd = out_fd;
    r->log_fd = log_fd;
    r->from_stdin = from_stdin;
    r->from_guest = open_fifo(base, ".out");
    r->to_guest = open_fifo(base, ".in");
    if (r->from_guest < 0 || r->to_guest < 0) {
        relay_close(r);
        return -1;
    }
    if (fcntl(r->from_guest, F_SETPIPE_SZ, RELAY_PIPE_SIZE) < 0)
        log_perr("growing the COM1 pipe to %d bytes (the guest may lose console output)",
                 RELAY_PIPE_SIZE);
    ev_add(r->from_guest, POLLIN, on_data, r);
    if (from_stdin)
        ev_add(0, POLLIN, on_stdin, r);
    return 0;
}

void relay_drain(struct relay *r)
{
    if (r->from_guest >= 0)
        while (pump(r))
            ;
}

void relay_close(struct relay *r)
{
    if (r->from_guest >= 0) {
        ev_del(r->from_guest);
        close(r->from_guest);
    }
    if (r->to_guest >= 0)
        close(r->to_guest);
    if (r->from_stdin)
        ev_del(0);
    r->from_guest = r->to_guest = -1;
}
