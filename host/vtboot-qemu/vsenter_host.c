/* SPDX-License-Identifier: MIT */
#include "vsenter_host.h"
#include "ev.h"
#include "json.h"
#include "log.h"
#include "sock.h"
#include "tpmctrl.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <openssl/evp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QMP_TIMEOUT_MS 30000
#define TPM_TIMEOUT_MS 10000

static void reply(struct vsenter_host *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void reply(struct vsenter_host *v, const char *fmt, ...)
{
    char buf[VSENTER_LINE_MAX + 64];
    va_list ap;
    int n;
    size_t off = 0;
    int64_t end = now_ms() + 5000;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof(buf) - 2)
        n = (int)sizeof(buf) - 2;
    buf[n++] = '\n';
    log_dbg("vsenter> %.*s", n - 1, buf);
    while (off < (size_t)n && v->fd >= 0) {
        ssize_t w = write(v->fd, buf + off, (size_t)n - off);

        if (w > 0) {
            off += (size_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR) && now_ms() < end) {
            struct pollfd p = { v->fd, POLLOUT, 0 };

            poll(&p, 1, 100);
        } else {
            log_msg("warning: virtual SENTER: cannot answer the guest");
            return;
        }
    }
}

static int sha256(const uint8_t *d, size_t n, uint8_t out[32])
{
    unsigned len = 0;

    return EVP_Digest(d, n, out, &len, EVP_sha256(), NULL) == 1 && len == 32 ? 0 : -1;
}

/* The locality-4 hash sequence over data, through the proxy. */
static int drtm_hash(struct vsenter_host *v, const uint8_t *data, size_t len, char *err,
                     size_t errsz)
{
    uint8_t chunk[4 + TPMCTRL_HASH_CHUNK];
    uint32_t res;
    int rc = -1;

    ctrlproxy_hold(&v->proxy);     /* no QEMU request in between */
    if (ctrlproxy_inject(&v->proxy, CMD_HASH_START, NULL, 0, &res, TPM_TIMEOUT_MS, err, errsz))
        goto out;
    if (res) {
        snprintf(err, errsz, "CMD_HASH_START failed (0x%x)", res);
        goto out;
    }
    for (size_t off = 0; off < len; off += TPMCTRL_HASH_CHUNK) {
        size_t n = len - off < TPMCTRL_HASH_CHUNK ? len - off : TPMCTRL_HASH_CHUNK;

        tpmctrl_put32(chunk, (uint32_t)n);
        memcpy(chunk + 4, data + off, n);
        if (ctrlproxy_inject(&v->proxy, CMD_HASH_DATA, chunk, 4 + n, &res, TPM_TIMEOUT_MS, err,
                             errsz))
            goto out;
        if (res) {
            snprintf(err, errsz, "CMD_HASH_DATA failed (0x%x)", res);
            goto out;
        }
    }
    if (ctrlproxy_inject(&v->proxy, CMD_HASH_END, NULL, 0, &res, TPM_TIMEOUT_MS, err, errsz))
        goto out;
    if (res) {
        snprintf(err, errsz, "CMD_HASH_END failed (0x%x)", res);
        goto out;
    }
    rc = 0;
out:
    ctrlproxy_release(&v->proxy);
    return rc;
}

/* One valid request: stop, read, hash, extend, cont. Returns 0 with the digest. */
static int launch(struct vsenter_host *v, const struct vs_request *rq, uint8_t digest[32],
                  char *err, size_t errsz)
{
    char qerr[256], fname[512], args[700];
    uint8_t *mle = NULL;
    size_t len = 0;
    int rc = -1;

    if (qmp_exec(v->qmp, "stop", NULL, qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0) {
        snprintf(err, errsz, "cannot pause the guest");
        log_msg("warning: virtual SENTER: %s", qerr);
        return -1;
    }
    unlink(v->dumpfile);
    if (!json_quote(v->dumpfile, fname, sizeof(fname)))
        goto cont;
    snprintf(args, sizeof(args), "{\"val\":%u,\"size\":%u,\"filename\":%s}", rq->mle_base,
             rq->mle_size, fname);
    if (qmp_exec(v->qmp, "pmemsave", args, qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0) {
        snprintf(err, errsz, "cannot read guest memory");
        log_msg("warning: virtual SENTER: %s", qerr);
        goto cont;
    }
    mle = file_read_all(v->dumpfile, &len, (size_t)VSENTER_MLE_MAX + 1);
    unlink(v->dumpfile);
    if (!mle || len != rq->mle_size) {
        snprintf(err, errsz, "cannot read guest memory");
        goto cont;
    }
    if (sha256(mle, len, digest) != 0) {
        snprintf(err, errsz, "hash failed");
        goto cont;
    }
    if (drtm_hash(v, mle, len, err, errsz) != 0)
        goto cont;
    rc = 0;
cont:
    free(mle);
    /* the guest always runs again */
    if (qmp_exec(v->qmp, "cont", NULL, qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0) {
        log_msg("warning: virtual SENTER: cannot resume the guest: %s", qerr);
        if (rc == 0)
            snprintf(err, errsz, "cannot resume the guest");
        rc = -1;
    }
    return rc;
}

static void handle_line(struct vsenter_host *v, const char *line)
{
    struct vs_request rq;
    char err[160], hex[65];
    uint8_t digest[32];
    int64_t t0 = now_ms();

    log_dbg("vsenter< %s", line);
    if (vs_parse(line, v->lowmem, &rq, err, sizeof(err)) != 0) {
        log_msg("virtual SENTER: refused: %s", err);
        reply(v, VSENTER_ERR_PREFIX "%d %s", VSENTER_PROTOCOL, err);
        return;
    }
    if (!v->have_tpm) {
        log_msg("virtual SENTER: refused: no TPM");
        reply(v, VSENTER_ERR_PREFIX "%d no TPM", VSENTER_PROTOCOL);
        return;
    }
    if (launch(v, &rq, digest, err, sizeof(err)) != 0) {
        log_msg("virtual SENTER: mle 0x%08x+0x%08x failed: %s", rq.mle_base, rq.mle_size, err);
        reply(v, VSENTER_ERR_PREFIX "%d %s", VSENTER_PROTOCOL, err);
        return;
    }
    hex_encode(digest, 32, hex);
    v->launches++;
    log_msg("virtual SENTER: mle 0x%08x+0x%08x sha256=%s", rq.mle_base, rq.mle_size, hex);
    log_dbg("virtual SENTER took %lld ms", (long long)(now_ms() - t0));
    reply(v, VSENTER_OK_PREFIX "%d sha256=%s", VSENTER_PROTOCOL, hex);
}

static void on_data(void *ctx, int fd, short revents)
{
    struct vsenter_host *v = ctx;
    char buf[4096];
    ssize_t n;

    (void)revents;
    if (v->busy)
        return;
    n = read(fd, buf, sizeof(buf));
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        ev_del(fd);
        return;
    }
    /* no re-entry while a request runs the event loop */
    v->busy = true;
    ev_set_events(fd, 0);
    for (ssize_t i = 0; i < n && v->fd >= 0; i++) {
        int r = vs_lines_feed(&v->lines, buf[i]);

        if (r == 1)
            handle_line(v, v->lines.buf);
        else if (r == 2) {
            log_msg("virtual SENTER: refused: line too long");
            reply(v, VSENTER_ERR_PREFIX "%d line too long", VSENTER_PROTOCOL);
        }
        if (r)
            vs_lines_next(&v->lines);
    }
    v->busy = false;
    ev_set_events(fd, POLLIN);
}

static void on_accept(void *ctx, int lfd, short revents)
{
    struct vsenter_host *v = ctx;
    int fd = sock_accept(lfd);

    (void)revents;
    if (fd < 0)
        return;
    if (v->fd >= 0) {
        close(fd);
        return;
    }
    v->fd = fd;
    ev_add(fd, POLLIN, on_data, v);
}

int vsenter_host_init(struct vsenter_host *v, const char *sock, const char *tmpdir,
                      struct qmp *qmp, int tpm_lfd, int swtpm_fd, uint64_t ram,
                      const char *machine)
{
    memset(v, 0, sizeof(*v));
    v->fd = -1;
    v->qmp = qmp;
    v->lowmem = vs_lowmem(machine, ram);
    v->dumpfile = xasprintf("%s/mle.bin", tmpdir);
    v->proxy.lfd = v->proxy.qfd = v->proxy.sfd = -1;
    v->lfd = sock_listen(sock);
    if (v->lfd < 0)
        return -1;
    ev_add(v->lfd, POLLIN, on_accept, v);
    if (tpm_lfd >= 0 && swtpm_fd >= 0) {
        ctrlproxy_init(&v->proxy, tpm_lfd, swtpm_fd);
        v->have_tpm = true;
    }
    return 0;
}

void vsenter_host_close(struct vsenter_host *v)
{
    if (v->fd >= 0) {
        ev_del(v->fd);
        close(v->fd);
        v->fd = -1;
    }
    if (v->lfd >= 0) {
        ev_del(v->lfd);
        close(v->lfd);
        v->lfd = -1;
    }
    if (v->have_tpm)
        ctrlproxy_close(&v->proxy);
    v->have_tpm = false;
    free(v->dumpfile);
    v->dumpfile = NULL;
}
