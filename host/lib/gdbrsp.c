/* SPDX-License-Identifier: MIT */
#include "gdbrsp.h"
#include "log.h"
#include "sock.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


void rsp_next(const uint8_t *buf, size_t len, struct rsp_unit *u)
{
    const uint8_t *h;
    size_t scan;
    unsigned sum = 0;

    memset(u, 0, sizeof(*u));
    if (!len)
        return;
    switch (buf[0]) {
    case '+':
        u->kind = RSP_ACK;
        u->len = 1;
        return;
    case '-':
        u->kind = RSP_NAK;
        u->len = 1;
        return;
    case 0x03:
        u->kind = RSP_INTR;
        u->len = 1;
        return;
    case '$':
        break;
    default:
        u->kind = RSP_JUNK;
        u->len = 1;
        return;
    }
    scan = len - 1 < RSP_PACKET_MAX ? len - 1 : RSP_PACKET_MAX;
    h = memchr(buf + 1, '#', scan);
    if (!h) {
        if (len - 1 > RSP_PACKET_MAX) {
            u->kind = RSP_JUNK;         /* no end in sight: pass the '$' on as it is */
            u->len = 1;
        }
        return;
    }
    if ((size_t)(h - buf) + 3 > len)
        return;                         /* the checksum has not arrived */
    u->kind = RSP_PACKET;
    u->body = 1;
    u->blen = (size_t)(h - buf) - 1;
    u->len = u->blen + 4;
    for (size_t i = 0; i < u->blen; i++)
        sum += buf[1 + i];
    u->csum_ok = hex_digit(h[1]) >= 0 && hex_digit(h[2]) >= 0 &&
                 (unsigned)(hex_digit(h[1]) << 4 | hex_digit(h[2])) == (sum & 0xff);
}

size_t rsp_decode(const uint8_t *in, size_t n, char *out, size_t outsz)
{
    size_t o = 0;
    char last = 0;

    for (size_t i = 0; i < n; i++) {
        char c = (char)in[i];
        size_t rep = 1;

        if (c == '}' && i + 1 < n) {
            c = (char)(in[++i] ^ 0x20);
        } else if (c == '*' && i + 1 < n && o > 0) {
            rep = (size_t)(in[++i] - 29);   /* count char - 29 repeats of the last byte */
            if (in[i] < 32)
                rep = 0;
            c = last;
        }
        for (size_t k = 0; k < rep; k++, o++)
            if (o + 1 < outsz)
                out[o] = c;
        last = c;
    }
    if (outsz)
        out[o < outsz ? o : outsz - 1] = 0;
    return o;
}

size_t rsp_frame(const char *payload, char *out, size_t outsz)
{
    size_t n = strlen(payload);
    unsigned sum = 0;

    if (n + 5 > outsz)
        return 0;
    for (size_t i = 0; i < n; i++)
        sum += (uint8_t)payload[i];
    out[0] = '$';
    memcpy(out + 1, payload, n);
    snprintf(out + 1 + n, 4, "#%02x", sum & 0xff);
    return n + 4;
}

bool rsp_is_stop(const char *p)
{
    if (p[0] == 'T' || p[0] == 'S' || p[0] == 'W' || p[0] == 'X')
        return hex_digit((uint8_t)p[1]) >= 0 && hex_digit((uint8_t)p[2]) >= 0;
    return false;
}

int rsp_fill(struct rsp_conn *c, int timeout_ms)
{
    struct pollfd p = { c->fd, POLLIN, 0 };
    ssize_t n;

    if (c->eof)
        return -1;
    if (timeout_ms > 0 && poll(&p, 1, timeout_ms) == 0)
        return 0;
    if (c->len + 65536 > c->cap) {
        c->cap = c->len + 65536;
        c->buf = xrealloc(c->buf, c->cap);
    }
    n = read(c->fd, c->buf + c->len, c->cap - c->len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0) {
        c->eof = true;
        return -1;
    }
    c->len += (size_t)n;
    return (int)n;
}

void rsp_consume(struct rsp_conn *c, size_t n)
{
    memmove(c->buf, c->buf + n, c->len - n);
    c->len -= n;
}

/* the next complete unit, reading as needed; -1 on EOF or at the deadline */
static int next_unit(struct rsp_conn *c, int64_t end, struct rsp_unit *u, char *err, size_t errsz)
{
    for (;;) {
        int64_t left;

        rsp_next(c->buf, c->len, u);
        if (u->kind != RSP_INCOMPLETE)
            return 0;
        left = end - now_ms();
        if (left <= 0) {
            snprintf(err, errsz, "gdbstub: no answer in time");
            return -1;
        }
        if (rsp_fill(c, (int)left) < 0) {
            snprintf(err, errsz, "gdbstub: connection closed");
            return -1;
        }
    }
}

/* a packet that is not our answer (a stop reply): acknowledge and pass on */
static void async_packet(struct rsp_conn *c, const struct rsp_unit *u, const char *payload)
{
    if (!c->noack)
        sock_write_all(c->fd, "+", 1, 1000);
    if (c->on_async)
        c->on_async(c->ctx, payload, c->buf, u->len);
}

int rsp_command(struct rsp_conn *c, const char *payload, char *reply, size_t replysz,
                int timeout_ms, char *err, size_t errsz)
{
    char frame[512];
    size_t flen = rsp_frame(payload, frame, sizeof(frame));
    int64_t end = now_ms() + timeout_ms;
    struct rsp_unit u;
    char *dec = xmalloc(RSP_PACKET_MAX + 1);
    int rc = -1, tries = 0;

    if (!flen) {
        snprintf(err, errsz, "gdbstub: packet too long");
        goto out;
    }
    log_dbg("gdb> %s", payload);
resend:
    if (++tries > 3) {
        snprintf(err, errsz, "gdbstub: '%s' refused 3 times", payload);
        goto out;
    }
    if (sock_write_all(c->fd, frame, flen, timeout_ms) != 0) {
        snprintf(err, errsz, "gdbstub: cannot send");
        goto out;
    }
    while (!c->noack) {
        if (next_unit(c, end, &u, err, errsz) != 0)
            goto out;
        if (u.kind == RSP_ACK) {
            rsp_consume(c, u.len);
            break;
        }
        if (u.kind == RSP_NAK) {
            rsp_consume(c, u.len);
            goto resend;
        }
        if (u.kind == RSP_PACKET && u.csum_ok) {
            rsp_decode(c->buf + u.body, u.blen, dec, RSP_PACKET_MAX + 1);
            async_packet(c, &u, dec);
        }
        rsp_consume(c, u.len);
    }
    for (;;) {
        if (next_unit(c, end, &u, err, errsz) != 0)
            goto out;
        if (u.kind != RSP_PACKET) {
            rsp_consume(c, u.len);
            continue;
        }
        if (!u.csum_ok) {
            rsp_consume(c, u.len);
            if (!c->noack)
                sock_write_all(c->fd, "-", 1, 1000);
            continue;
        }
        rsp_decode(c->buf + u.body, u.blen, dec, RSP_PACKET_MAX + 1);
        if (rsp_is_stop(dec)) {
            async_packet(c, &u, dec);
            rsp_consume(c, u.len);
            continue;
        }
        rsp_consume(c, u.len);
        if (!c->noack && sock_write_all(c->fd, "+", 1, 1000) != 0) {
            snprintf(err, errsz, "gdbstub: cannot send");
            goto out;
        }
        log_dbg("gdb< %.200s", dec);
        snprintf(reply, replysz, "%s", dec);
        rc = 0;
        goto out;
    }
out:
    free(dec);
    return rc;
}
