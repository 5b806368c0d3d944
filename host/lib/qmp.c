/* SPDX-License-Identifier: MIT */
#include "qmp.h"
#include "ev.h"
#include "json.h"
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

#define QMP_LINE_MAX (1u << 20)
#define QMP_CAPS_ID 1

static int send_line(struct qmp *q, const char *s)
{
    log_dbg("qmp> %.*s", (int)(strcspn(s, "\n")), s);
    return sock_write_all(q->fd, s, strlen(s), 5000);
}

static void handle_line(struct qmp *q, char *line)
{
    char ev[64];
    long long id;

    log_dbg("qmp< %s", line);
    if (json_has(line, "QMP")) {
        /* QEMU greets once; a peer that greets on and reads nothing would otherwise stall
         * the loop in send_line's timeout once per greeting */
        if (!q->greeted) {
            q->greeted = true;
            send_line(q, "{\"execute\":\"qmp_capabilities\",\"id\":1}\n");
        }
        return;
    }
    if (json_get_str(line, "event", ev, sizeof(ev))) {
        if (q->on_event)
            q->on_event(q->ctx, ev, line);
        return;
    }
    if (!json_get_int(line, "id", &id))
        return;
    if (id == QMP_CAPS_ID) {
        if (json_has(line, "return"))
            q->ready = true;
        else
            log_err("QMP: qmp_capabilities failed: %s", line);
        return;
    }
    if (q->wait_id && id == q->wait_id) {
        q->wait_done = true;
        free(q->wait_reply);
        q->wait_reply = xstrdup(line);
    }
}

/* One read and the whole lines it completes; returns false when nothing more is there now */
static bool read_some(struct qmp *q, int fd)
{
    char tmp[65536];
    ssize_t n;

    do
        n = read(fd, tmp, sizeof(tmp));
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EAGAIN)
        return false;
    if (n <= 0) {
        q->eof = true;
        ev_del(fd);
        log_dbg("QMP connection closed");
        return false;
    }
    if (q->len + (size_t)n + 1 > q->cap) {
        q->cap = (q->len + (size_t)n + 1) * 2;
        q->buf = xrealloc(q->buf, q->cap);
    }
    memcpy(q->buf + q->len, tmp, (size_t)n);
    q->len += (size_t)n;
    for (;;) {
        char *nl = memchr(q->buf, '\n', q->len);
        size_t ll;

        if (!nl) {
            if (q->len > QMP_LINE_MAX) {
                log_err("QMP: line too long, dropped");
                q->len = 0;
            }
            break;
        }
        *nl = 0;
        ll = (size_t)(nl - q->buf);
        if (ll && q->buf[ll - 1] == '\r')
            q->buf[ll - 1] = 0;
        handle_line(q, q->buf);
        memmove(q->buf, nl + 1, q->len - ll - 1);
        q->len -= ll + 1;
    }
    return true;
}

static void on_readable(void *ctx, int fd, short revents)
{
    (void)revents;
    read_some(ctx, fd);
}

void qmp_drain(struct qmp *q)
{
    if (q->fd < 0 || q->eof || fd_set_nonblock(q->fd) != 0)
        return;
    while (read_some(q, q->fd))
        ;
}

void qmp_attach(struct qmp *q, int fd, qmp_event_fn fn, void *ctx)
{
    memset(q, 0, sizeof(*q));
    q->fd = fd;
    q->next_id = QMP_CAPS_ID + 1;
    q->on_event = fn;
    q->ctx = ctx;
    ev_add(fd, POLLIN, on_readable, q);
}

int qmp_call(struct qmp *q, const char *cmd, const char *args_json, char **reply, char *err,
             size_t errsz, int timeout_ms)
{
    int64_t end = now_ms() + timeout_ms;
    char *line;
    int rc = -1;

    *reply = NULL;
    snprintf(err, errsz, "no answer");
    if (q->fd < 0 || q->eof || !q->ready) {
        snprintf(err, errsz, "QMP not connected");
        return -1;
    }
    if (q->wait_id) {
        snprintf(err, errsz, "QMP command already in progress");
        return -1;
    }
    q->wait_id = q->next_id++;
    q->wait_done = false;
    if (args_json)
        line = xasprintf("{\"execute\":\"%s\",\"arguments\":%s,\"id\":%lld}\n", cmd, args_json,
                         q->wait_id);
    else
        line = xasprintf("{\"execute\":\"%s\",\"id\":%lld}\n", cmd, q->wait_id);
    log_dbg("qmp> %.*s", (int)strcspn(line, "\n"), line);
    if (send_line(q, line) != 0) {
        snprintf(err, errsz, "cannot send to QMP");
        goto out;
    }
    while (!q->wait_done && !q->eof && !sig_terminating()) {
        int64_t left = end - now_ms();

        if (left <= 0) {
            snprintf(err, errsz, "QMP %s timed out", cmd);
            goto out;
        }
        ev_run_once(left > 100 ? 100 : (int)left);
    }
    if (!q->wait_done) {
        snprintf(err, errsz, q->eof ? "QMP connection lost" : "interrupted");
        goto out;
    }
    if (json_has(q->wait_reply, "return")) {
        *reply = q->wait_reply;
        q->wait_reply = NULL;
        rc = 0;
    } else {
        char desc[256];

        if (!json_get_str(q->wait_reply, "error.desc", desc, sizeof(desc)))
            snprintf(desc, sizeof(desc), "unknown error");
        snprintf(err, errsz, "QMP %s: %s", cmd, desc);
    }
out:
    free(line);
    free(q->wait_reply);
    q->wait_reply = NULL;
    q->wait_id = 0;
    return rc;
}

int qmp_exec(struct qmp *q, const char *cmd, const char *args_json, char *err, size_t errsz,
             int timeout_ms)
{
    char *reply;
    int rc = qmp_call(q, cmd, args_json, &reply, err, errsz, timeout_ms);

    free(reply);
    return rc;
}

int qmp_hmp(struct qmp *q, const char *cmdline, char **out, char *err, size_t errsz,
            int timeout_ms)
{
    char args[512], quoted[400], *reply;
    size_t n;

    *out = NULL;
    if (!json_quote(cmdline, quoted, sizeof(quoted))) {
        snprintf(err, errsz, "HMP command too long");
        return -1;
    }
    snprintf(args, sizeof(args), "{\"command-line\":%s}", quoted);
    if (qmp_call(q, "human-monitor-command", args, &reply, err, errsz, timeout_ms) != 0)
        return -1;
    n = strlen(reply) + 1;      /* the decoded string is never longer than its JSON */
    *out = xmalloc(n);
    if (!json_get_str(reply, "return", *out, n)) {
        snprintf(err, errsz, "HMP %s: no output string", cmdline);
        free(*out);
        *out = NULL;
        free(reply);
        return -1;
    }
    free(reply);
    return 0;
}

int qmp_status(struct qmp *q, char *status, size_t statussz, char *err, size_t errsz,
               int timeout_ms)
{
    char *reply;
    int rc = 0;

    if (qmp_call(q, "query-status", NULL, &reply, err, errsz, timeout_ms) != 0)
        return -1;
    if (!json_get_str(reply, "return.status", status, statussz)) {
        snprintf(err, errsz, "query-status: no status");
        rc = -1;
    }
    free(reply);
    return rc;
}

void qmp_detach(struct qmp *q)
{
    if (q->fd >= 0) {
        ev_del(q->fd);
        close(q->fd);
    }
    q->fd = -1;
    free(q->buf);
    q->buf = NULL;
    free(q->wait_reply);
    q->wait_reply = NULL;
}
