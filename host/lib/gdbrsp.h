/* SPDX-License-Identifier: MIT */
/*
 * The GDB remote serial protocol, as far as the launcher speaks it with QEMU's gdbstub:
 * splitting a byte stream into units (packets "$payload#cs", acks '+'/'-', the interrupt byte
 * 0x03, anything else byte by byte), packet payload decoding ('}' escapes, '*' run lengths),
 * framing, and a small synchronous client on a connected socket.
 */
#ifndef HOST_GDBRSP_H
#define HOST_GDBRSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A '$' with no '#' within this many bytes is passed on as a stray byte. */
#define RSP_PACKET_MAX 65536

enum rsp_kind {
    RSP_INCOMPLETE,             /* need more bytes */
    RSP_ACK,                    /* '+' */
    RSP_NAK,                    /* '-' */
    RSP_INTR,                   /* 0x03 (^C) */
    RSP_PACKET,                 /* "$...#xx" */
    RSP_JUNK,                   /* one other byte */
};

struct rsp_unit {
    enum rsp_kind kind;
    size_t len;                 /* bytes of the stream it takes */
    size_t body, blen;          /* RSP_PACKET: payload at buf + body, blen bytes (raw) */
    bool csum_ok;               /* RSP_PACKET: the checksum matches */
};

/* The unit at the start of buf[0, len). */
void rsp_next(const uint8_t *buf, size_t len, struct rsp_unit *u);
/* Decodes a raw payload (escapes, run lengths) into out, NUL-terminated (cut at outsz - 1).
 * Returns the decoded length (before any cut). */
size_t rsp_decode(const uint8_t *in, size_t n, char *out, size_t outsz);
/* "$" payload "#" checksum into out (payload: printable, nothing to escape). Returns the
 * length, or 0 if it does not fit. */
size_t rsp_frame(const char *payload, char *out, size_t outsz);
/* A stop reply: 'T' or 'S' and a signal (two hex digits), or 'W'/'X' (exited). */
bool rsp_is_stop(const char *payload);

/* What arrived on a connection while the client waited for its own answer. */
typedef void (*rsp_async_fn)(void *ctx, const char *payload, const uint8_t *raw, size_t rawlen);

struct rsp_conn {
    int fd;                     /* non-blocking, connected */
    uint8_t *buf;               /* bytes read and not consumed yet */
    size_t len, cap;
    bool noack;                 /* QStartNoAckMode is in force: no '+'/'-' either way */
    bool eof;
    rsp_async_fn on_async;      /* stop replies while a command waits (NULL: dropped) */
    void *ctx;
};

/* Reads what the socket has (waiting up to timeout_ms for something, 0: not at all).
 * Returns the number of bytes read (0: none yet), -1 on EOF or error. */
int rsp_fill(struct rsp_conn *c, int timeout_ms);
/* Drops the first n buffered bytes. */
void rsp_consume(struct rsp_conn *c, size_t n);
/* Sends one packet, waits for QEMU's '+' (resending on '-', 3 times) unless noack, then for
 * its answer (checksum checked and acknowledged; stop replies that arrive first go to
 * on_async). Returns 0 with the decoded answer in reply, or -1 with a reason. */
int rsp_command(struct rsp_conn *c, const char *payload, char *reply, size_t replysz,
                int timeout_ms, char *err, size_t errsz);

#endif
