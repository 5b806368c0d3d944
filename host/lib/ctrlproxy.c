/* SPDX-License-Identifier: MIT */
#include "ctrlproxy.h"
#include "ev.h"
#include "log.h"
#include "sig.h"
#include "sock.h"
#include "tpmctrl.h"
#include "util.h"

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

static void set_broken(struct ctrlproxy *p, const char *why)
{
    if (!p->broken)
        log_dbg("TPM control proxy: %s", why);
    p->broken = true;
    if (p->qfd >= 0)
        ev_del(p->qfd);
    if (p->sfd >= 0)
        ev_del(p->sfd);
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
    cmd = tpmctrl_be32(p->qbuf);
    log_dbg("TPM ctrl: QEMU %s (%zu bytes%s)", tpmctrl_cmd_name(cmd), len,
            p->nfds ? ", with a descriptor" : "");
    if (send_all(p->sfd, p->qbuf, len, p->fds, p->nfds) != 0) {
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

static void on_accept(void *ctx, int lfd, short revents)
{
    struct ctrlproxy *p = ctx;
    int fd = sock_accept(lfd);

    (void)revents;
    if (fd < 0)
        return;
    if (p->qfd >= 0) {
        close(fd);
        return;
    }
    p->qfd = fd;
    ev_add(fd, POLLIN, on_qemu, p);
}

void ctrlproxy_init(struct ctrlproxy *p, int lfd, int sfd)
{
    memset(p, 0, sizeof(*p));
    p->lfd = lfd;
    p->qfd = -1;
    p->sfd = sfd;
    fd_set_nonblock(sfd);
    ev_add(lfd, POLLIN, on_accept, p);
    ev_add(sfd, POLLIN, on_swtpm, p);
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
    tpmctrl_put32(msg, cmd);
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
    *result = tpmctrl_be32(p->ours);
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
}
