/* SPDX-License-Identifier: MIT */
#include "serial.h"
#include "ev.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RELAY_PIPE_SIZE (1 << 20)
#define RELAY_DRAIN_MS 500      /* for stdout to take the last output after QEMU exited */

/*
 * Writes what it can of buf[*off..len) without waiting. Returns -1 on an error, else 0 (*off
 * moved on). A descriptor we could not make non-blocking (a socket, say) is written only when
 * poll says it has room, and at most PIPE_BUF bytes at once: a pipe takes that much without
 * waiting then.
 */
static int write_some(int fd, const char *buf, size_t len, size_t *off)
{
    struct pollfd p = { fd, POLLOUT, 0 };
    size_t n = len - *off;
    ssize_t w;

    if (n == 0 || poll(&p, 1, 0) != 1)
        return 0;
    if (p.revents & (POLLERR | POLLNVAL))
        return -1;
    if (!(p.revents & POLLOUT))
        return p.revents & POLLHUP ? -1 : 0;
    w = write(fd, buf + *off, n < PIPE_BUF ? n : PIPE_BUF);
    if (w < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    *off += (size_t)w;
    return 0;
}

/* the guest's output only comes in while stdout has taken what it got (back-pressure) */
static void arm_out(struct relay *r)
{
    bool behind = r->out_fd >= 0 && r->out_off < r->out_len;

    if (r->from_guest >= 0)
        ev_set_events(r->from_guest, behind ? 0 : POLLIN);
    if (r->out_fd >= 0)
        ev_set_events(r->out_fd, behind ? POLLOUT : 0);
}

static void flush_out(struct relay *r)
{
    while (r->out_fd >= 0 && r->out_off < r->out_len) {
        size_t before = r->out_off;

        if (write_some(r->out_fd, r->out, r->out_len, &r->out_off) != 0) {
            log_perr("writing the guest console to stdout (stopped)");
            ev_del(r->out_fd);
            if (r->own_out)
                close(r->out_fd);
            r->out_fd = -1;
            r->out_off = r->out_len = 0;
        } else if (r->out_off == before) {
            break;
        }
    }
    if (r->out_off == r->out_len)
        r->out_off = r->out_len = 0;
}

/* false once nothing is waiting (or stdout has not taken the last piece yet) */
static bool pump(struct relay *r)
{
    ssize_t n;

    if (r->out_len)
        return false;
    n = read(r->from_guest, r->out, sizeof(r->out));
    if (n < 0 && errno == EINTR)
        return true;
    if (n <= 0)
        return false;
    /* a regular file (--serial-log) takes everything at once */
    if (r->log_fd >= 0 && write_full(r->log_fd, r->out, (size_t)n) != 0) {
        log_perr("writing the serial log (stopped)");
        r->log_fd = -1;
    }
    if (r->out_fd >= 0) {
        r->out_len = (size_t)n;
        flush_out(r);
    }
    return true;
}

static void on_data(void *ctx, int fd, short revents)
{
    struct relay *r = ctx;

    (void)fd;
    (void)revents;
    pump(r);
    arm_out(r);
}

static void on_out(void *ctx, int fd, short revents)
{
    struct relay *r = ctx;

    (void)fd;
    (void)revents;
    flush_out(r);
    arm_out(r);
}

/* stdin only comes in while the guest's FIFO has taken what it got: no keystroke is dropped
 * and a guest that does not read costs nothing but its own input */
static void arm_in(struct relay *r)
{
    bool behind = r->in_off < r->in_len;

    ev_set_events(0, behind ? 0 : POLLIN);
    ev_set_events(r->to_guest, behind ? POLLOUT : 0);
}

static void flush_in(struct relay *r)
{
    ssize_t w = write(r->to_guest, r->in + r->in_off, r->in_len - r->in_off);

    if (w > 0)
        r->in_off += (size_t)w;
    else if (w < 0 && errno != EAGAIN && errno != EINTR)
        r->in_off = r->in_len;          /* the FIFO is ours: cannot happen, but never spin */
    if (r->in_off == r->in_len)
        r->in_off = r->in_len = 0;
}

static void on_stdin(void *ctx, int fd, short revents)
{
    struct relay *r = ctx;
    ssize_t n = read(fd, r->in, sizeof(r->in));

    (void)revents;
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        ev_del(fd);
        return;
    }
    r->in_len = (size_t)n;
    r->in_off = 0;
    flush_in(r);
    arm_in(r);
}

static void on_to_guest(void *ctx, int fd, short revents)
{
    struct relay *r = ctx;

    (void)fd;
    (void)revents;
    flush_in(r);
    arm_in(r);
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

/*
 * A pipe or terminal as out_fd is opened again, non-blocking: O_NONBLOCK on out_fd itself would
 * change the open file that our caller (a shell, say) shares. A regular file never makes us
 * wait and must keep its offset; anything else is used as it is (write_some).
 */
static void open_out(struct relay *r, int out_fd)
{
    struct stat st;
    char path[64];
    int fd;

    r->out_fd = out_fd;
    if (out_fd < 0 || fstat(out_fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
        return;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", out_fd);
    fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return;
    r->out_fd = fd;
    r->own_out = true;
}

int relay_init(struct relay *r, const char *base, int out_fd, int log_fd, bool from_stdin)
{
    memset(r, 0, sizeof(*r));
    r->log_fd = log_fd;
    r->from_stdin = from_stdin;
    r->to_guest = -1;
    open_out(r, out_fd);
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
    if (r->out_fd >= 0)
        ev_add(r->out_fd, 0, on_out, r);
    if (from_stdin) {
        ev_add(0, POLLIN, on_stdin, r);
        ev_add(r->to_guest, 0, on_to_guest, r);
    }
    return 0;
}

void relay_drain(struct relay *r)
{
    int64_t end = now_ms() + RELAY_DRAIN_MS;

    while (r->from_guest >= 0) {
        struct pollfd p = { r->out_fd, POLLOUT, 0 };

        if (pump(r))
            continue;
        if (!r->out_len)
            break;
        if (now_ms() >= end) {
            log_msg("warning: stdout does not take the guest's last console output: dropped");
            r->out_off = r->out_len = 0;
            ev_del(r->out_fd);
            if (r->own_out)
                close(r->out_fd);
            r->out_fd = -1;
            continue;
        }
        poll(&p, 1, 100);
        flush_out(r);
    }
}

void relay_close(struct relay *r)
{
    if (r->from_guest >= 0) {
        ev_del(r->from_guest);
        close(r->from_guest);
    }
    if (r->to_guest >= 0) {
        ev_del(r->to_guest);
        close(r->to_guest);
    }
    if (r->out_fd >= 0)
        ev_del(r->out_fd);
    if (r->own_out && r->out_fd >= 0)
        close(r->out_fd);
    if (r->from_stdin)
        ev_del(0);
    r->from_guest = r->to_guest = r->out_fd = -1;
    r->own_out = false;
}
