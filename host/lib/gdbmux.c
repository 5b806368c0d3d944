/* SPDX-License-Identifier: MIT */
#include "gdbmux.h"
#include "ev.h"
#include "log.h"
#include "sig.h"
#include "sock.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GDB_TIMEOUT_MS 10000
#define WRITE_TIMEOUT_MS 5000

/* ---- tracking ---- */

void gdbtrack_init(struct gdbtrack *t)
{
    memset(t, 0, sizeof(*t));
    t->st = GT_IDLE;
    snprintf(t->gsel, sizeof(t->gsel), "1");    /* QEMU starts with the first CPU */
}

static bool starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

void gdbtrack_user(struct gdbtrack *t, const char *p)
{
    if (p[0] == 'c' || p[0] == 'C' || p[0] == 's' || p[0] == 'S') {
        t->st = GT_RUNNING;
        return;
    }
    if (starts(p, "vCont;")) {
        /* an action that resumes: c, C, s, S (QEMU 7.2 answers anything else with "") */
        for (const char *a = p + 5; a && *a; a = strchr(a + 1, ';'))
            if (a[1] == 'c' || a[1] == 'C' || a[1] == 's' || a[1] == 'S') {
                t->st = GT_RUNNING;
                return;
            }
    }
    if (p[0] == 'k') {
        t->st = GT_IDLE;        /* no answer: QEMU exits */
        return;
    }
    t->st = GT_OUTSTANDING;
    snprintf(t->pending, sizeof(t->pending), "%s", p);
}

void gdbtrack_qemu(struct gdbtrack *t, const char *p)
{
    if (rsp_is_stop(p)) {
        /* a stop selects the stopped CPU for 'g' (gdb_set_stop_cpu) */
        const char *th = strstr(p, "thread:");

        if (th) {
            size_t n = strcspn(th + 7, ";");

            if (n && n < sizeof(t->gsel))
                snprintf(t->gsel, sizeof(t->gsel), "%.*s", (int)n, th + 7);
        }
        t->st = GT_IDLE;
        return;
    }
    if (t->st != GT_OUTSTANDING)
        return;                 /* nothing asked: console output or a late answer */
    if (starts(t->pending, "qRcmd,") && p[0] == 'O' && strcmp(p, "OK"))
        return;                 /* monitor output; the answer ("OK" or Exx) follows */
    if (!strcmp(p, "OK")) {
        if (!strcmp(t->pending, "QStartNoAckMode"))
            t->noack = true;
        else if (starts(t->pending, "Hg"))
            snprintf(t->gsel, sizeof(t->gsel), "%.*s", (int)(sizeof(t->gsel) - 1),
                     t->pending + 2);
        else if (t->pending[0] == 'D')
            t->detached = true;
    }
    t->st = GT_IDLE;
}

/* ---- the connections ---- */

static void on_user(void *ctx, int fd, short revents);
static void on_qemu(void *ctx, int fd, short revents);

static void close_qemu(struct gdbmux *m)
{
    if (m->q.fd >= 0) {
        ev_del(m->q.fd);
        close(m->q.fd);
    }
    m->q.fd = -1;
    m->q.len = 0;
    m->q.eof = false;
    m->own = false;
}

static void accept_again(struct gdbmux *m)
{
    if (m->ulfd >= 0 && m->ufd < 0 && !m->hold)
        ev_set_events(m->ulfd, POLLIN);
}

static void close_user(struct gdbmux *m, const char *why)
{
    if (m->ufd < 0)
        return;
    log_dbg("gdb: the debugger's connection ends (%s)", why);
    ev_del(m->ufd);
    close(m->ufd);
    m->ufd = -1;
    if (m->hold) {
        m->user_gone = true;    /* its held bytes still go to QEMU at the release */
        return;
    }
    m->ulen = 0;
    close_qemu(m);
    accept_again(m);
}

/* the user's complete units to QEMU */
static void forward_user(struct gdbmux *m)
{
    char dec[64];
    struct rsp_unit u;

    for (;;) {
        rsp_next(m->ubuf, m->ulen, &u);
        if (u.kind == RSP_INCOMPLETE)
            break;
        if (u.kind == RSP_PACKET && u.csum_ok) {
            rsp_decode(m->ubuf + u.body, u.blen, dec, sizeof(dec));
            gdbtrack_user(&m->trk, dec);
        }
        if (m->q.fd < 0 || sock_write_all(m->q.fd, m->ubuf, u.len, WRITE_TIMEOUT_MS) != 0) {
            m->ulen = 0;
            close_user(m, "cannot write to QEMU's gdbstub");
            return;
        }
        memmove(m->ubuf, m->ubuf + u.len, m->ulen - u.len);
        m->ulen -= u.len;
    }
}

/* a packet from QEMU: swallowed, or to the user (tracked) */
static void from_qemu(struct gdbmux *m, const char *payload, const uint8_t *raw, size_t len)
{
    if (m->swallow && !strncmp(payload, "T02", 3)) {
        m->swallowed++;
        log_dbg("gdb: swallowed QEMU's stop reply %s", payload);
        return;
    }
    if (rsp_is_stop(payload))
        m->stops_passed++;
    gdbtrack_qemu(&m->trk, payload);
    if (m->ufd >= 0 && sock_write_all(m->ufd, raw, len, WRITE_TIMEOUT_MS) != 0)
        close_user(m, "cannot write to the debugger");
}

/* callback for stop replies that arrive while our own packets run */
static void on_async(void *ctx, const char *payload, const uint8_t *raw, size_t len)
{
    from_qemu(ctx, payload, raw, len);
}

/* QEMU's complete units: ours to drop or to the user */
static void forward_qemu(struct gdbmux *m)
{
    char *dec = NULL;
    struct rsp_unit u;

    for (;;) {
        rsp_next(m->q.buf, m->q.len, &u);
        if (u.kind == RSP_INCOMPLETE)
            break;
        if (u.kind == RSP_PACKET && u.csum_ok) {
            if (!dec)
                dec = xmalloc(RSP_PACKET_MAX + 1);
            rsp_decode(m->q.buf + u.body, u.blen, dec, RSP_PACKET_MAX + 1);
            if (m->swallow && !strncmp(dec, "T02", 3) && !m->trk.noack)
                sock_write_all(m->q.fd, "+", 1, WRITE_TIMEOUT_MS);
            from_qemu(m, dec, m->q.buf, u.len);
        } else if (m->ufd >= 0 && sock_write_all(m->ufd, m->q.buf, u.len, WRITE_TIMEOUT_MS) != 0) {
            close_user(m, "cannot write to the debugger");
        }
        if (m->q.fd < 0)
            break;
        rsp_consume(&m->q, u.len);
    }
    free(dec);
}

static void on_qemu(void *ctx, int fd, short revents)
{
    struct gdbmux *m = ctx;

    (void)fd;
    (void)revents;
    if (m->in_session)
        return;
    if (rsp_fill(&m->q, 0) < 0) {
        log_dbg("gdb: QEMU closed the gdbstub connection");
        forward_qemu(m);
        close_qemu(m);
        if (m->ufd >= 0)
            close_user(m, "QEMU closed its end");
        return;
    }
    forward_qemu(m);
}

static void on_user(void *ctx, int fd, short revents)
{
    struct gdbmux *m = ctx;
    ssize_t n;

    (void)revents;
    if (m->ulen + 65536 > m->ucap) {
        m->ucap = m->ulen + 65536;
        m->ubuf = xrealloc(m->ubuf, m->ucap);
    }
    n = read(fd, m->ubuf + m->ulen, m->ucap - m->ulen);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        if (!m->hold)
            forward_user(m);    /* whole units sent before the close still count */
        close_user(m, "closed");
        return;
    }
    m->ulen += (size_t)n;
    if (!m->hold)
        forward_user(m);
}

static int connect_qemu(struct gdbmux *m)
{
    int fd = sock_connect(m->qpath);

    if (fd < 0)
        return -1;
    fd_set_nonblock(fd);
    m->q.fd = fd;
    m->q.len = 0;
    m->q.eof = false;
    return 0;
}

static int take_user(void *ctx, int fd)
{
    struct gdbmux *m = ctx;

    if (m->ufd >= 0 || m->hold || m->q.fd >= 0)
        return -1;              /* not expected: accepting is off then */
    if (connect_qemu(m) != 0) {
        log_msg("warning: --gdb: cannot connect to QEMU's gdbstub: %s", strerror(errno));
        return -1;
    }
    m->ufd = fd;
    m->ulen = 0;
    gdbtrack_init(&m->trk);
    ev_set_events(m->ulfd, 0);  /* one debugger at a time; the next waits in the backlog */
    ev_add(m->ufd, POLLIN, on_user, m);
    ev_add(m->q.fd, POLLIN, on_qemu, m);
    log_dbg("gdb: a debugger connected");
    return 0;
}

void gdbmux_init(struct gdbmux *m, const char *qemu_sock, int user_lfd)
{
    memset(m, 0, sizeof(*m));
    m->qpath = xstrdup(qemu_sock);
    m->ulfd = user_lfd;
    m->ufd = -1;
    m->q.fd = -1;
    m->q.on_async = on_async;
    m->q.ctx = m;
    gdbtrack_init(&m->trk);
    if (m->ulfd >= 0)
        listener_add(&m->ulisten, m->ulfd, take_user, m);
}

void gdbmux_close(struct gdbmux *m)
{
    m->hold = false;
    if (m->ufd >= 0) {
        ev_del(m->ufd);
        close(m->ufd);
        m->ufd = -1;
    }
    close_qemu(m);
    if (m->ulfd >= 0)
        ev_del(m->ulfd);
    m->ulfd = -1;
    free(m->ubuf);
    free(m->q.buf);
    free(m->qpath);
    m->ubuf = NULL;
    m->q.buf = NULL;
    m->qpath = NULL;
}

int gdbmux_hold(struct gdbmux *m, int timeout_ms, char *err, size_t errsz)
{
    int64_t end = now_ms() + timeout_ms;

    m->hold = true;
    m->user_gone = false;
    if (m->ulfd >= 0)
        ev_set_events(m->ulfd, 0);
    while (m->ufd >= 0 && m->trk.st == GT_OUTSTANDING && !sig_terminating()) {
        int64_t left = end - now_ms();

        if (left <= 0) {
            snprintf(err, errsz, "the debugger's packet '%.20s' is not answered",
                     m->trk.pending);
            return -1;
        }
        ev_run_once(left > 50 ? 50 : (int)left);
    }
    return 0;
}

void gdbmux_swallow_stops(struct gdbmux *m)
{
    m->swallow = true;
}

int gdbmux_begin(struct gdbmux *m, char *err, size_t errsz)
{
    char reply[64];

    if (m->q.fd >= 0 && m->ufd >= 0 && m->trk.detached) {
        /* QEMU detached the user's process: its session is over */
        close_user(m, "it detached");
        m->user_gone = false;
        m->ulen = 0;
        close_qemu(m);
    }
    if (m->q.fd >= 0) {
        /* the user's connection: what QEMU sent so far is the user's (or our T02) */
        while (rsp_fill(&m->q, 0) > 0)
            ;
        forward_qemu(m);
        if (m->q.eof) {
            close_qemu(m);
            close_user(m, "QEMU closed its end");
        }
    }
    if (m->q.fd < 0) {
        if (connect_qemu(m) != 0) {
            snprintf(err, errsz, "cannot connect to QEMU's gdbstub: %s", strerror(errno));
            return -1;
        }
        m->own = true;
    }
    m->q.noack = m->own ? false : m->trk.noack;
    m->in_session = true;
    if (rsp_command(&m->q, "qXfer:features:read:target.xml:0,1", reply, sizeof(reply),
                    GDB_TIMEOUT_MS, err, errsz) != 0)
        return -1;
    if (reply[0] != 'm' && reply[0] != 'l') {
        snprintf(err, errsz, "gdbstub: qXfer:features:read answered '%s'", reply);
        return -1;
    }
    return 0;
}

int gdbmux_cmd(struct gdbmux *m, const char *payload, char *reply, size_t replysz, char *err,
               size_t errsz)
{
    if (m->q.fd < 0 || !m->in_session) {
        snprintf(err, errsz, "gdbstub: not connected");
        return -1;
    }
    return rsp_command(&m->q, payload, reply, replysz, GDB_TIMEOUT_MS, err, errsz);
}

void gdbmux_end(struct gdbmux *m)
{
    char cmd[40], reply[64], err[128];

    if (!m->in_session)
        return;
    if (m->own) {
        close_qemu(m);
    } else if (m->q.fd >= 0) {
        snprintf(cmd, sizeof(cmd), "Hg%s", m->trk.gsel);
        if (rsp_command(&m->q, cmd, reply, sizeof(reply), GDB_TIMEOUT_MS, err, sizeof(err)) != 0
            || strcmp(reply, "OK"))
            log_msg("warning: gdb: cannot select thread %s for the debugger again: %s",
                    m->trk.gsel, reply[0] ? reply : err);
    }
    m->in_session = false;
}

void gdbmux_release(struct gdbmux *m)
{
    m->in_session = false;
    m->hold = false;
    m->swallow = false;
    if (m->ulen && (m->ufd >= 0 || m->user_gone))
        forward_user(m);
    if (m->user_gone) {
        m->user_gone = false;
        m->ulen = 0;
        close_qemu(m);
    }
    if (m->q.fd >= 0 && m->ufd >= 0) {
        /* what QEMU sent meanwhile */
        while (rsp_fill(&m->q, 0) > 0)
            ;
        forward_qemu(m);
    }
    accept_again(m);
}
