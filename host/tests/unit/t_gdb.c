/* SPDX-License-Identifier: MIT */
/* The gdb remote protocol: stream units, decoding, framing, the synchronous client against a
 * scripted peer (a socket pair), and the multiplexer's tracking of the user's state. */
#include "unit.h"
#include "gdbmux.h"
#include "gdbrsp.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void unit_of(const char *s, enum rsp_kind kind, size_t len, const char *what)
{
    struct rsp_unit u;

    rsp_next((const uint8_t *)s, strlen(s), &u);
    CHECK(u.kind == kind && u.len == len, "%s: kind %d len %zu", what, u.kind, u.len);
}

static void on_async(void *ctx, const char *p, const uint8_t *raw, size_t len)
{
    (void)raw;
    (void)len;
    if (!strncmp(p, "T02", 3))
        (*(int *)ctx)++;
}

void test_gdbrsp(void)
{
    struct rsp_unit u;
    char out[64], frame[64];
    const char *pk = "$m100,4#5erest";

    unit_of("+$OK#9a", RSP_ACK, 1, "ack");
    unit_of("-", RSP_NAK, 1, "nak");
    unit_of("\x03$", RSP_INTR, 1, "^C");
    unit_of("x$OK#9a", RSP_JUNK, 1, "junk");
    unit_of("", RSP_INCOMPLETE, 0, "nothing");
    unit_of("$OK", RSP_INCOMPLETE, 0, "no #");
    unit_of("$OK#9", RSP_INCOMPLETE, 0, "half a checksum");
    unit_of("$OK#9a", RSP_PACKET, 6, "OK");
    unit_of("$#00", RSP_PACKET, 4, "empty packet");
    rsp_next((const uint8_t *)pk, strlen(pk), &u);
    CHECK(u.kind == RSP_PACKET && u.len == 10 && u.body == 1 && u.blen == 6 && u.csum_ok,
          "m packet: %d %zu %zu %d", u.kind, u.len, u.blen, u.csum_ok);
    rsp_next((const uint8_t *)"$OK#9b", 6, &u);
    CHECK(u.kind == RSP_PACKET && !u.csum_ok, "bad checksum");
    rsp_next((const uint8_t *)"$OK#9A", 6, &u);
    CHECK(u.kind == RSP_PACKET && u.csum_ok, "upper-case checksum");
    rsp_next((const uint8_t *)"$OK#zz", 6, &u);
    CHECK(u.kind == RSP_PACKET && !u.csum_ok, "no hex checksum");
    /* a '$' that never ends is passed on byte by byte once RSP_PACKET_MAX is exceeded */
    {
        size_t n = RSP_PACKET_MAX + 2;
        uint8_t *b = malloc(n);

        memset(b, 'a', n);
        b[0] = '$';
        rsp_next(b, n - 1, &u);
        CHECK(u.kind == RSP_INCOMPLETE, "long: still waiting");
        rsp_next(b, n, &u);
        CHECK(u.kind == RSP_JUNK && u.len == 1, "long: given up");
        free(b);
    }
    /* escapes and run lengths */
    CHECK(rsp_decode((const uint8_t *)"a}]b", 4, out, sizeof(out)) == 3 && !strcmp(out, "a}b"),
          "escape: %s", out);
    CHECK(rsp_decode((const uint8_t *)"0* ", 3, out, sizeof(out)) == 4 && !strcmp(out, "0000"),
          "rle: %s", out);
    CHECK(rsp_decode((const uint8_t *)"x*\"y", 4, out, sizeof(out)) == 7 && !strcmp(out, "xxxxxxy"),
          "rle 5: %s", out);
    CHECK(rsp_decode((const uint8_t *)"abcdef", 6, out, 4) == 6 && !strcmp(out, "abc"), "cut");
    /* framing */
    CHECK(rsp_frame("OK", frame, sizeof(frame)) == 6 && !strcmp(frame, "$OK#9a"), "%s", frame);
    CHECK(rsp_frame("", frame, sizeof(frame)) == 4 && !strcmp(frame, "$#00"), "%s", frame);
    CHECK(rsp_frame("P11=02000000", frame, 16) == 0, "does not fit");
    CHECK(rsp_frame("P11=02000000", frame, 17) == 16, "fits");
    /* stop replies */
    CHECK(rsp_is_stop("T02thread:01;") && rsp_is_stop("S05") && rsp_is_stop("W00") &&
          rsp_is_stop("X0f"), "stops");
    CHECK(!rsp_is_stop("OK") && !rsp_is_stop("") && !rsp_is_stop("T") && !rsp_is_stop("Tx1") &&
          !rsp_is_stop("E22") && !rsp_is_stop("m<"), "not stops");

    /* the client, against bytes a peer wrote beforehand */
    {
        int sv[2];
        struct rsp_conn c;
        char reply[64], err[128], got[256];
        ssize_t n;
        int asyncs = 0;

        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
        fd_set_nonblock(sv[0]);
        memset(&c, 0, sizeof(c));
        c.fd = sv[0];
        c.ctx = &asyncs;
        c.on_async = on_async;
        /* ack, an unsolicited stop reply, the answer */
        write_full(sv[1], "+$T02thread:01;#04$OK#9a", 24);
        CHECK(rsp_command(&c, "Hg1", reply, sizeof(reply), 1000, err, sizeof(err)) == 0 &&
              !strcmp(reply, "OK") && asyncs == 1, "Hg1: %s %s %d", reply, err, asyncs);
        n = read(sv[1], got, sizeof(got) - 1);
        got[n > 0 ? n : 0] = 0;
        CHECK(!strcmp(got, "$Hg1#e0++"), "sent '%s'", got);
        /* a NAK makes it resend; a bad answer checksum gets a '-' and the resent one a '+' */
        write_full(sv[1], "-+$02000000#83$02000000#82", 26);
        CHECK(rsp_command(&c, "p11", reply, sizeof(reply), 1000, err, sizeof(err)) == 0 &&
              !strcmp(reply, "02000000"), "p11: %s %s", reply, err);
        n = read(sv[1], got, sizeof(got) - 1);
        got[n > 0 ? n : 0] = 0;
        CHECK(!strcmp(got, "$p11#d2$p11#d2-+"), "sent '%s'", got);
        /* no-ack mode: nothing but packets */
        c.noack = true;
        write_full(sv[1], "$OK#9a", 6);
        CHECK(rsp_command(&c, "P11=02000000", reply, sizeof(reply), 1000, err, sizeof(err)) == 0 &&
              !strcmp(reply, "OK"), "noack");
        n = read(sv[1], got, sizeof(got) - 1);
        got[n > 0 ? n : 0] = 0;
        CHECK(!strcmp(got, "$P11=02000000#71"), "sent '%s'", got);
        /* no answer: a timeout; a closed peer: an error */
        CHECK(rsp_command(&c, "g", reply, sizeof(reply), 100, err, sizeof(err)) == -1 &&
              strstr(err, "no answer"), "timeout: %s", err);
        close(sv[1]);
        CHECK(rsp_command(&c, "g", reply, sizeof(reply), 1000, err, sizeof(err)) == -1, "eof");
        close(sv[0]);
        free(c.buf);
    }
}

void test_gdbtrack(void)
{
    struct gdbtrack t;

    gdbtrack_init(&t);
    CHECK(t.st == GT_IDLE && !strcmp(t.gsel, "1") && !t.noack && !t.detached, "init");
    /* an ordinary command and its answer */
    gdbtrack_user(&t, "qSupported:xmlRegisters=i386");
    CHECK(t.st == GT_OUTSTANDING, "outstanding");
    gdbtrack_qemu(&t, "PacketSize=1000;qXfer:features:read+");
    CHECK(t.st == GT_IDLE, "answered");
    /* continue / step: running until a stop reply, which selects the stopped CPU */
    static const char *const go[] = { "c", "C05", "s", "S05", "vCont;c", "vCont;s:2;c", "vCont;C05:1" };
    for (size_t i = 0; i < sizeof(go) / sizeof(go[0]); i++) {
        gdbtrack_init(&t);
        gdbtrack_user(&t, go[i]);
        CHECK(t.st == GT_RUNNING, "%s runs", go[i]);
        gdbtrack_qemu(&t, "OK");        /* an answer nobody asked for does not end it */
        CHECK(t.st == GT_RUNNING, "%s: OK ignored", go[i]);
        gdbtrack_qemu(&t, "T05thread:02;");
        CHECK(t.st == GT_IDLE && !strcmp(t.gsel, "02"), "%s: stopped on 02 (%s)", go[i], t.gsel);
    }
    gdbtrack_user(&t, "vCont?");
    CHECK(t.st == GT_OUTSTANDING, "vCont? wants an answer");
    gdbtrack_qemu(&t, "vCont;c;C;s;S");
    CHECK(t.st == GT_IDLE, "vCont? answered");
    gdbtrack_user(&t, "vCont;t");
    CHECK(t.st == GT_OUTSTANDING, "vCont;t is answered (QEMU: empty)");
    gdbtrack_qemu(&t, "");
    CHECK(t.st == GT_IDLE, "empty answer");
    /* '?' is answered with a stop reply */
    gdbtrack_user(&t, "?");
    gdbtrack_qemu(&t, "T02thread:p01.03;");
    CHECK(t.st == GT_IDLE && !strcmp(t.gsel, "p01.03"), "? -> %s", t.gsel);
    /* monitor commands: output packets, then the answer */
    gdbtrack_user(&t, "qRcmd,696e666f20737461747573");
    gdbtrack_qemu(&t, "O564d207374617475733a207061757365640a");
    CHECK(t.st == GT_OUTSTANDING, "monitor output");
    gdbtrack_qemu(&t, "OK");
    CHECK(t.st == GT_IDLE, "monitor done");
    /* an 'O' answer to anything else is the answer */
    gdbtrack_user(&t, "m100,1");
    gdbtrack_qemu(&t, "O1");
    CHECK(t.st == GT_IDLE, "not monitor");
    /* thread selection */
    gdbtrack_user(&t, "Hg2");
    gdbtrack_qemu(&t, "OK");
    CHECK(!strcmp(t.gsel, "2"), "Hg2 -> %s", t.gsel);
    gdbtrack_user(&t, "Hg9");
    gdbtrack_qemu(&t, "E22");
    CHECK(!strcmp(t.gsel, "2"), "Hg9 refused -> %s", t.gsel);
    gdbtrack_user(&t, "Hc3");
    gdbtrack_qemu(&t, "OK");
    CHECK(!strcmp(t.gsel, "2"), "Hc does not change g");
    gdbtrack_user(&t, "Hgp1.4");
    gdbtrack_qemu(&t, "OK");
    CHECK(!strcmp(t.gsel, "p1.4"), "multiprocess id -> %s", t.gsel);
    gdbtrack_qemu(&t, "T02thread:01;");
    CHECK(!strcmp(t.gsel, "01"), "an unsolicited stop selects too");
    gdbtrack_qemu(&t, "T05");
    CHECK(!strcmp(t.gsel, "01"), "a stop without a thread keeps it");
    /* QStartNoAckMode: QEMU 7.2 answers "" (unsupported) */
    gdbtrack_user(&t, "QStartNoAckMode");
    gdbtrack_qemu(&t, "");
    CHECK(!t.noack, "no no-ack mode");
    gdbtrack_user(&t, "QStartNoAckMode");
    gdbtrack_qemu(&t, "OK");
    CHECK(t.noack, "no-ack mode");
    /* detach */
    gdbtrack_user(&t, "D");
    CHECK(t.st == GT_OUTSTANDING && !t.detached, "D asked");
    gdbtrack_qemu(&t, "OK");
    CHECK(t.detached && t.st == GT_IDLE, "detached");
    gdbtrack_init(&t);
    gdbtrack_user(&t, "D;1");
    gdbtrack_qemu(&t, "E22");
    CHECK(!t.detached, "D refused");
    /* kill: no answer */
    gdbtrack_user(&t, "k");
    CHECK(t.st == GT_IDLE, "k");
    /* a packet sent while the VM runs is swallowed by QEMU, which stops and says T02 */
    gdbtrack_user(&t, "c");
    gdbtrack_user(&t, "m100,4");
    CHECK(t.st == GT_OUTSTANDING, "m while running");
    gdbtrack_qemu(&t, "T02thread:01;");
    CHECK(t.st == GT_IDLE, "the stop ends it");
}
