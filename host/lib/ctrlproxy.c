/* SPDX-License-Identifier: MIT */
#include "ctrlproxy.h"
#include "lib/bytes.h"
#include "ev.h"
#include "log.h"
#include "sig.h"
#include "sock.h"
#include "tpmctrl.h"
#include "tpmfault.h"
#include "util.h"

#include "abi/tpm2.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SEND_TIMEOUT_MS 5000

static void on_qemu(void *ctx, int fd, short revents);
static void on_swtpm(void *ctx, int fd, short revents);

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        ev_del(*fd);
        close(*fd);
        *fd = -1;
    }
}

/*
 * A side closed or misbehaved: both connections are closed, so that the other side sees the
 * end at once as it would without us (QEMU waits for its answers with blocking reads: a
 * connection we just stopped reading would hang it, e.g. in its CMD_SHUTDOWN at exit).
 */
static void set_broken(struct ctrlproxy *p, const char *why)
{
    if (!p->broken)
        log_dbg("TPM control proxy: %s", why);
    p->broken = true;
    close_fd(&p->qfd);
    close_fd(&p->sfd);
}

/* sendmsg all of buf (fds with the first part), waiting for room; -1 on error */
static int send_all(int fd, const uint8_t *buf, size_t len, const int *fds, int nfds)
{
    int64_t end = now_ms() + SEND_TIMEOUT_MS;
    size_t off = 0;

    while (off < len) {
        struct iovec iov = { (void *)(buf + off), len - off };
        union {
            char b[CMSG_SPACE(sizeof(int) * CTRLPROXY_MAX_FDS)];
            struct cmsghdr align;
        } ctl;
        struct msghdr m = { 0 };
        ssize_t n;

        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        if (nfds > 0) {
            struct cmsghdr *c;

            memset(&ctl, 0, sizeof(ctl));
            m.msg_control = ctl.b;
            m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
            c = CMSG_FIRSTHDR(&m);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
            memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
        }
        n = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            nfds = 0;           /* the descriptors went with the first byte */
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            struct pollfd pf = { fd, POLLOUT, 0 };

            if (now_ms() > end)
                return -1;
            poll(&pf, 1, 100);
            continue;
        }
        return -1;
    }
    return 0;
}

/* ---- the TPM data channel relay (fault injection) ---- */

static void relay_close(struct tpmrelay *r)
{
    close_fd(&r->qfd);
    close_fd(&r->sfd);
    free(r->toq);
    free(r->tos);
    r->toq = r->tos = NULL;
    r->toq_len = r->toq_off = r->tos_len = r->tos_off = 0;
    r->clen = r->rlen = r->dropping = 0;
    r->pending = false;
}

static void relay_end(struct tpmrelay *r, const char *why)
{
    log_dbg("TPM data relay: %s (%lu commands, %lu answered by faults, %lu malformed)", why,
            r->commands, r->injected, r->malformed);
    relay_close(r);
}

static void relay_update_events(struct tpmrelay *r)
{
    /* QEMU's side: read only between commands; swtpm's side: always (its EOF matters) */
    if (r->qfd >= 0)
        ev_set_events(r->qfd, (short)((r->pending || r->toq_len ? 0 : POLLIN) |
                                      (r->toq_len ? POLLOUT : 0)));
    if (r->sfd >= 0)
        ev_set_events(r->sfd, (short)(POLLIN | (r->tos_len ? POLLOUT : 0)));
}

/* Writes what it can of buf to fd now; the rest goes into (*q, *qlen) for POLLOUT. 0, or -1
 * if the connection is gone. */
static int relay_write(int fd, const uint8_t *buf, size_t len, uint8_t **q, size_t *qlen,
                       size_t *qoff)
{
    size_t off = 0;

    if (*qlen) {
        /* still writing an earlier piece (cannot happen with QEMU's one-at-a-time): append */
        *q = xrealloc(*q, *qlen + len);
        memcpy(*q + *qlen, buf, len);
        *qlen += len;
        return 0;
    }
    while (off < len) {
        ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);

        if (n > 0) {
            off += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            *q = xmalloc(len - off);
            memcpy(*q, buf + off, len - off);
            *qlen = len - off;
            *qoff = 0;
            return 0;
        } else {
            return -1;
        }
    }
    return 0;
}

/* POLLOUT: more of a queued piece */
static int relay_flush(int fd, uint8_t **q, size_t *qlen, size_t *qoff)
{
    while (*qoff < *qlen) {
        ssize_t n = send(fd, *q + *qoff, *qlen - *qoff, MSG_NOSIGNAL | MSG_DONTWAIT);

        if (n > 0)
            *qoff += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else if (n < 0 && errno == EAGAIN)
            return 0;
        else
            return -1;
    }
    free(*q);
    *q = NULL;
    *qlen = *qoff = 0;
    return 0;
}

static const char *cc_label(uint32_t cc)
{
    const char *n = tpmfault_cc_name(cc);

    return n ? n : "command";
}

/* a whole command from QEMU (r->cmd, r->clen): answer it ourselves or pass it to swtpm */
static void relay_command(struct tpmrelay *r)
{
    uint32_t cc = 0, rc, nth;
    size_t len = r->clen;

    r->clen = 0;
    r->commands++;
    uint32_t handle;
    bool has_handle = tpmfault_first_handle(r->cmd, len, &handle);

    if (tpmfault_command(r->cmd, len, &cc) &&
        tpmfault_check(r->faults, cc, has_handle ? &handle : NULL, &rc, &nth)) {
        uint8_t ans[TPMFAULT_RESPONSE_SIZE];

        r->injected++;
        log_msg("TPM fault: %s (0x%x) #%u answered 0x%x", cc_label(cc), cc, nth, rc);
        tpmfault_response(ans, rc);
        if (relay_write(r->qfd, ans, sizeof(ans), &r->toq, &r->toq_len, &r->toq_off) != 0)
            relay_end(r, "cannot write to QEMU");
        return;
    }
    if (!cc) {
        r->malformed++;
        log_dbg("TPM data: a malformed command from QEMU (%zu bytes, tag 0x%02x%02x, size field "
                "%u): passed to swtpm as it is", len, r->cmd[0], r->cmd[1],
                load_be32(r->cmd + 2));
    }
    r->pending = true;
    r->pending_cc = cc;
    r->pending_len = len;
    r->rlen = 0;
    if (relay_write(r->sfd, r->cmd, len, &r->tos, &r->tos_len, &r->tos_off) != 0)
        relay_end(r, "cannot write to swtpm");
}

static void relay_on_qemu(void *ctx, int fd, short revents)
{
    struct tpmrelay *r = ctx;

    if ((revents & POLLOUT) && relay_flush(fd, &r->toq, &r->toq_len, &r->toq_off) != 0) {
        relay_end(r, "cannot write to QEMU");
        return;
    }
    if (!(revents & (POLLIN | POLLHUP | POLLERR)) || r->pending || r->toq_len) {
        relay_update_events(r);
        return;
    }
    /* read until the socket runs dry: that is one command (see ctrlproxy.h) */
    for (int i = 0; i < 64; i++) {
        uint8_t junk[4096];
        uint8_t *dst = r->dropping ? junk : r->cmd + r->clen;
        size_t room = r->dropping ? sizeof(junk) : sizeof(r->cmd) - r->clen;
        ssize_t n = recv(fd, dst, room, MSG_DONTWAIT);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) {
            relay_end(r, n == 0 ? "QEMU closed the TPM data channel" : "read error from QEMU");
            return;
        }
        if (r->dropping) {
            r->dropping += (size_t)n;
        } else {
            r->clen += (size_t)n;
            if (r->clen > TPMRELAY_CMD_MAX) {
                r->dropping = r->clen;
                r->clen = 0;
            }
        }
        if (i == 63) {
            /* a flood: come back on the next poll round, not in one go */
            relay_update_events(r);
            return;
        }
    }
    if (r->dropping) {
        uint8_t ans[TPMFAULT_RESPONSE_SIZE];

        r->malformed++;
        log_dbg("TPM data: %zu bytes at once from QEMU, more than a TPM command can have (%u): "
                "dropped, answered 0x142 (TPM_RC_COMMAND_SIZE)", r->dropping, TPMRELAY_CMD_MAX);
        r->dropping = 0;
        tpmfault_response(ans, 0x142);
        if (relay_write(fd, ans, sizeof(ans), &r->toq, &r->toq_len, &r->toq_off) != 0)
            relay_end(r, "cannot write to QEMU");
    } else if (r->clen >= TPM2_HEADER_SIZE) {
        relay_command(r);
    }
    if (r->qfd >= 0)
        relay_update_events(r);
}

/* swtpm's answer is complete: pass it on whole */
static void relay_answer(struct tpmrelay *r, size_t len)
{
    uint32_t rc = len >= 10 ? load_be32(r->rsp + 6) : 0;

    if (r->pending)
        log_dbg("TPM data: %s (0x%x), %zu bytes: answer 0x%x, %zu bytes",
                r->pending_cc ? cc_label(r->pending_cc) : "malformed", r->pending_cc,
                r->pending_len, rc, len);
    else
        log_dbg("TPM data: %zu bytes from swtpm nobody asked for: passed to QEMU", len);
    r->pending = false;
    if (relay_write(r->qfd, r->rsp, len, &r->toq, &r->toq_len, &r->toq_off) != 0) {
        relay_end(r, "cannot write to QEMU");
        return;
    }
    memmove(r->rsp, r->rsp + len, r->rlen - len);
    r->rlen -= len;
}

static void relay_on_swtpm(void *ctx, int fd, short revents)
{
    struct tpmrelay *r = ctx;
    ssize_t n;

    if ((revents & POLLOUT) && relay_flush(fd, &r->tos, &r->tos_len, &r->tos_off) != 0) {
        relay_end(r, "cannot write to swtpm");
        return;
    }
    if (!(revents & (POLLIN | POLLHUP | POLLERR))) {
        relay_update_events(r);
        return;
    }
    n = recv(fd, r->rsp + r->rlen, sizeof(r->rsp) - r->rlen, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        relay_end(r, n == 0 ? "swtpm closed the TPM data channel" : "read error from swtpm");
        return;
    }
    r->rlen += (size_t)n;
    while (r->rlen && r->qfd >= 0) {
        size_t size;

        if (r->rlen < TPM2_HEADER_SIZE && r->pending)
            break;              /* the header is still coming */
        size = r->rlen >= TPM2_HEADER_SIZE ? load_be32(r->rsp + 2) : 0;
        if (!r->pending || size < TPM2_HEADER_SIZE || size > sizeof(r->rsp)) {
            /* nobody asked, or no size we can frame by: pass on what is there */
            if (r->pending)
                log_dbg("TPM data: an answer from swtpm with size field %zu: passed on as it is",
                        size);
            relay_answer(r, r->rlen);
            break;
        }
        if (r->rlen < size)
            break;
        relay_answer(r, size);
    }
    if (r->qfd >= 0)
        relay_update_events(r);
}

/* QEMU's CMD_SET_DATAFD (with its data socket qemu_fd): swtpm gets our socket pair's end */
static int relay_start(struct ctrlproxy *p, const uint8_t *req, size_t len, int qemu_fd)
{
    struct tpmrelay *r = &p->relay;
    int sv[2];

    if (sock_pair(sv) != 0) {
        log_perr("TPM data relay: socketpair");
        return -1;
    }
    if (send_all(p->sfd, req, len, &sv[1], 1) != 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    close(sv[1]);
    relay_close(r);             /* a second CMD_SET_DATAFD replaces the first */
    r->qfd = qemu_fd;
    r->sfd = sv[0];
    r->faults = p->faults;
    fd_set_nonblock(r->qfd);
    fd_set_nonblock(r->sfd);
    ev_add(r->qfd, POLLIN, relay_on_qemu, r);
    ev_add(r->sfd, POLLIN, relay_on_swtpm, r);
    log_dbg("TPM data channel relayed through us (fault injection)");
    return 0;
}

/* Forwards the first complete QEMU request, if we may. */
static void pump_requests(struct ctrlproxy *p)
{
    size_t len;
    uint32_t cmd;

    if (p->broken || p->holds || p->qemu_pending || p->ours_pending)
        return;
    len = tpmctrl_request_len(p->qbuf, p->qlen);
    if (!len || len > p->qlen)
        return;
    cmd = load_be32(p->qbuf);
    log_dbg("TPM ctrl: QEMU %s (%zu bytes%s)", tpmctrl_cmd_name(cmd), len,
            p->nfds ? ", with a descriptor" : "");
    if (cmd == CMD_SET_DATAFD && p->faults && p->nfds == 1) {
        if (relay_start(p, p->qbuf, len, p->fds[0]) != 0) {
            set_broken(p, "cannot write to swtpm");
            return;
        }
        p->nfds = 0;            /* QEMU's data socket is the relay's now */
    } else if (send_all(p->sfd, p->qbuf, len, p->fds, p->nfds) != 0) {
        set_broken(p, "cannot write to swtpm");
        return;
    }
    for (int i = 0; i < p->nfds; i++)
        close(p->fds[i]);
    p->nfds = 0;
    memmove(p->qbuf, p->qbuf + len, p->qlen - len);
    p->qlen -= len;
    p->qemu_pending = true;
    p->qemu_cmd = cmd;
    p->rhave = 0;
    p->forwarded++;
}

static void on_qemu(void *ctx, int fd, short revents)
{
    struct ctrlproxy *p = ctx;
    uint8_t buf[65536];
    union {
        char b[CMSG_SPACE(sizeof(int) * CTRLPROXY_MAX_FDS)];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = { buf, sizeof(buf) };
    struct msghdr m = { 0 };
    ssize_t n;

    (void)revents;
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl.b;
    m.msg_controllen = sizeof(ctl.b);
    n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); n >= 0 && c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            int *in = (int *)CMSG_DATA(c);

            for (int i = 0; i < k; i++) {
                if (p->nfds < CTRLPROXY_MAX_FDS)
                    p->fds[p->nfds++] = in[i];
                else
                    close(in[i]);
            }
        }
    }
    if (m.msg_flags & MSG_CTRUNC)
        log_msg("warning: TPM control proxy: descriptors from QEMU truncated");
    if (n <= 0) {
        set_broken(p, n == 0 ? "QEMU closed the control channel" : "read error from QEMU");
        return;
    }
    if (p->qlen + (size_t)n > p->qcap) {
        p->qcap = (p->qlen + (size_t)n) * 2;
        p->qbuf = xrealloc(p->qbuf, p->qcap);
    }
    memcpy(p->qbuf + p->qlen, buf, (size_t)n);
    p->qlen += (size_t)n;
    pump_requests(p);
}

static void on_swtpm(void *ctx, int fd, short revents)
{
    struct ctrlproxy *p = ctx;
    uint8_t buf[65536];
    ssize_t n;
    size_t off = 0;

    (void)revents;
    n = read(fd, buf, sizeof(buf));
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        set_broken(p, n == 0 ? "swtpm closed the control channel" : "read error from swtpm");
        return;
    }
    while (off < (size_t)n) {
        if (p->ours_pending) {
            size_t k = (size_t)n - off;

            if (k > p->ours_need - p->ours_have)
                k = p->ours_need - p->ours_have;
            memcpy(p->ours + p->ours_have, buf + off, k);
            p->ours_have += k;
            off += k;
            if (p->ours_have == p->ours_need)
                p->ours_pending = false;
            continue;
        }
        if (!p->qemu_pending) {
            /* nobody asked: pass it on and hope QEMU knows */
            log_msg("warning: TPM control proxy: %zu unexpected bytes from swtpm", (size_t)n - off);
            if (send_all(p->qfd, buf + off, (size_t)n - off, NULL, 0) != 0)
                set_broken(p, "cannot write to QEMU");
            return;
        }
        /* QEMU's answer: forward it, counting it out (its header tells its length) */
        {
            size_t avail = (size_t)n - off, take, need, known;

            if (p->rhave < sizeof(p->rhdr)) {
                size_t c = sizeof(p->rhdr) - p->rhave;

                memcpy(p->rhdr + p->rhave, buf + off, avail < c ? avail : c);
            }
            known = p->rhave + avail < sizeof(p->rhdr) ? p->rhave + avail : sizeof(p->rhdr);
            need = tpmctrl_response_len(p->qemu_cmd, p->rhdr, known);
            take = need ? (need > p->rhave ? need - p->rhave : 0) : avail;
            if (take > avail)
                take = avail;
            if (take && send_all(p->qfd, buf + off, take, NULL, 0) != 0) {
                set_broken(p, "cannot write to QEMU");
                return;
            }
            p->rhave += take;
            off += take;
            if (need && p->rhave >= need) {
                p->qemu_pending = false;
                pump_requests(p);
            }
        }
    }
}

/* QEMU connects once */
static int take_qemu(void *ctx, int fd)
{
    struct ctrlproxy *p = ctx;

    if (p->qfd >= 0 || p->broken)
        return -1;
    p->qfd = fd;
    ev_add(fd, POLLIN, on_qemu, p);
    return 0;
}

void ctrlproxy_init(struct ctrlproxy *p, int lfd, int sfd)
{
    memset(p, 0, sizeof(*p));
    p->lfd = lfd;
    p->qfd = -1;
    p->sfd = sfd;
    p->relay.qfd = p->relay.sfd = -1;
    fd_set_nonblock(sfd);
    listener_add(&p->listener, lfd, take_qemu, p);
    ev_add(sfd, POLLIN, on_swtpm, p);
}

void ctrlproxy_set_faults(struct ctrlproxy *p, struct tpmfault_set *faults)
{
    p->faults = faults && faults->n ? faults : NULL;
}

void ctrlproxy_hold(struct ctrlproxy *p)
{
    p->holds++;
}

void ctrlproxy_release(struct ctrlproxy *p)
{
    if (p->holds > 0)
        p->holds--;
    pump_requests(p);
}

static int wait_for(struct ctrlproxy *p, bool *cond_false, int64_t end)
{
    while (*cond_false && !p->broken && !sig_terminating()) {
        int64_t left = end - now_ms();

        if (left <= 0)
            return -1;
        ev_run_once(left > 100 ? 100 : (int)left);
    }
    return *cond_false ? -1 : 0;
}

int ctrlproxy_inject(struct ctrlproxy *p, uint32_t cmd, const void *body, size_t len,
                     uint32_t *result, int timeout_ms, char *err, size_t errsz)
{
    int64_t end = now_ms() + timeout_ms;
    uint8_t *msg;

    if (p->broken || p->sfd < 0) {
        snprintf(err, errsz, "TPM control channel down");
        return -1;
    }
    ctrlproxy_hold(p);
    /* let QEMU's request in flight finish first */
    if (wait_for(p, &p->qemu_pending, end) != 0) {
        snprintf(err, errsz, p->broken ? "TPM control channel down" :
                 "TPM control channel busy (QEMU's %s unanswered)", tpmctrl_cmd_name(p->qemu_cmd));
        ctrlproxy_release(p);
        return -1;
    }
    msg = xmalloc(4 + len);
    store_be32(msg, cmd);
    if (len)
        memcpy(msg + 4, body, len);
    p->ours_pending = true;
    p->ours_have = 0;
    p->ours_need = 4;
    if (send_all(p->sfd, msg, 4 + len, NULL, 0) != 0) {
        free(msg);
        p->ours_pending = false;
        set_broken(p, "cannot write to swtpm");
        snprintf(err, errsz, "cannot write to swtpm");
        ctrlproxy_release(p);
        return -1;
    }
    free(msg);
    if (wait_for(p, &p->ours_pending, end) != 0) {
        /* the channel is out of step now: no more use */
        set_broken(p, "no answer to an injected command");
        snprintf(err, errsz, "swtpm did not answer %s", tpmctrl_cmd_name(cmd));
        ctrlproxy_release(p);
        return -1;
    }
    *result = load_be32(p->ours);
    if (cmd != CMD_HASH_DATA || *result)
        log_dbg("TPM ctrl: injected %s (%zu bytes): result 0x%x", tpmctrl_cmd_name(cmd), 4 + len,
                *result);
    ctrlproxy_release(p);
    return 0;
}

void ctrlproxy_close(struct ctrlproxy *p)
{
    int *fds[] = { &p->lfd, &p->qfd, &p->sfd };

    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
        if (*fds[i] >= 0) {
            ev_del(*fds[i]);
            close(*fds[i]);
            *fds[i] = -1;
        }
    }
    for (int i = 0; i < p->nfds; i++)
        close(p->fds[i]);
    p->nfds = 0;
    free(p->qbuf);
    p->qbuf = NULL;
    if (p->relay.qfd >= 0 || p->relay.sfd >= 0)
        relay_end(&p->relay, "closed");
    relay_close(&p->relay);
}
