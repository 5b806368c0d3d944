/* SPDX-License-Identifier: MIT */
#include "serial.h"
#include "ev.h"
#include "log.h"
#include "sock.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

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

/* returns false at EOF/error */
static bool pump(struct relay *r)
{
    char buf[16384];
    ssize_t n = read(r->fd, buf, sizeof(buf));

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return true;
    if (n <= 0) {
        r->eof = true;
        ev_del(r->fd);
        if (r->from_stdin)
            ev_del(0);
        return false;
    }
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

    (void)revents;
    if (n <= 0) {
        ev_del(fd);
        return;
    }
    if (r->fd >= 0 && !r->eof) {
        /* the socket is non-blocking; the guest UART is slow, so wait for room */
        ssize_t off = 0;

        while (off < n) {
            ssize_t w = write(r->fd, buf + off, (size_t)(n - off));

            if (w > 0) {
                off += w;
            } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
                struct pollfd p = { r->fd, POLLOUT, 0 };

                poll(&p, 1, 100);
            } else {
                break;
            }
        }
    }
}

static void on_accept(void *ctx, int lfd, short revents)
{
    struct relay *r = ctx;
    int fd = sock_accept(lfd);

    (void)revents;
    if (fd < 0)
        return;
    if (r->fd >= 0) {
        close(fd);
        return;
    }
    r->fd = fd;
    ev_add(fd, POLLIN, on_data, r);
    if (r->from_stdin)
        ev_add(0, POLLIN, on_stdin, r);
}

int relay_init(struct relay *r, const char *sockpath, int out_fd, int log_fd, bool from_stdin)
{
    memset(r, 0, sizeof(*r));
    r->fd = -1;
    r->out_fd = out_fd;
    r->log_fd = log_fd;
    r->from_stdin = from_stdin;
    r->lfd = sock_listen(sockpath);
    if (r->lfd < 0)
        return -1;
    ev_add(r->lfd, POLLIN, on_accept, r);
    return 0;
}

void relay_drain(struct relay *r)
{
    if (r->fd < 0) {
        /* QEMU may have connected and exited before we ever accepted */
        on_accept(r, r->lfd, POLLIN);
        if (r->fd < 0)
            return;
    }
    while (!r->eof) {
        struct pollfd p = { r->fd, POLLIN, 0 };

        if (poll(&p, 1, 500) <= 0)
            break;
        if (!pump(r))
            break;
    }
}

void relay_close(struct relay *r)
{
    if (r->fd >= 0) {
        ev_del(r->fd);
        close(r->fd);
        r->fd = -1;
    }
    if (r->from_stdin)
        ev_del(0);
    if (r->lfd >= 0) {
        ev_del(r->lfd);
        close(r->lfd);
        r->lfd = -1;
    }
}
