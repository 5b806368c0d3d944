/* SPDX-License-Identifier: MIT */
/*
 * QEMU has one gdbstub, and the launcher needs it for the virtual SENTER (register writes on
 * the launching CPU), while a user may debug the guest through `--gdb PATH`. So QEMU's stub
 * listens on a socket only the launcher connects to, and the launcher serves PATH itself:
 *
 * - A user connecting to PATH makes us connect to QEMU's stub (QEMU then behaves as if the
 *   user had connected: a running VM stops); from then on every byte goes through as it is,
 *   whole protocol units at a time (a packet, an ack, ^C), in both directions. The user
 *   closing closes our connection (QEMU keeps the run state, as it would). One user at a
 *   time: further connections wait in the listen backlog, as with QEMU's own socket.
 * - A launch (gdbmux_hold .. gdbmux_release) keeps the user's bytes back after the user's
 *   last packet is answered (a 'c'/'s'/'C'/'S'/vCont;c|s wants no answer: the user then waits
 *   for a stop reply, which may come much later), swallows the stop reply "T02" that QEMU
 *   sends when the launcher's own QMP stop stops the VM (gdbmux_swallow_stops), runs the
 *   launcher's packets on the same connection (gdbmux_begin/cmd/end; '+' acks unless the user
 *   negotiated QStartNoAckMode, which QEMU 7.2 does not offer), selects the user's last
 *   general-register thread again (Hg; QEMU sets it on every stop too) and then lets the
 *   user's bytes go.
 * - Without a user, gdbmux_begin opens a connection of its own (the VM is already stopped, so
 *   connecting stops nothing and no stop reply comes), and gdbmux_end closes it without 'D':
 *   the run state stays as it is, the caller resumes the VM with QMP cont.
 */
#ifndef HOST_GDBMUX_H
#define HOST_GDBMUX_H

#include "gdbrsp.h"
#include "listener.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- the user's protocol state, from the packets that went through (pure) ---- */

enum gdbtrack_state {
    GT_IDLE,                    /* nothing outstanding, the VM is stopped as far as gdb knows */
    GT_OUTSTANDING,             /* a packet is waiting for its answer */
    GT_RUNNING,                 /* continued or stepping: waiting for a stop reply */
};

struct gdbtrack {
    enum gdbtrack_state st;
    char pending[32];           /* the outstanding packet's start */
    bool noack;                 /* QStartNoAckMode answered OK */
    bool detached;              /* 'D' answered OK: QEMU detached the process */
    char gsel[24];              /* the thread 'g'/'G'/'p'/'P' act on, as an Hg argument */
};

void gdbtrack_init(struct gdbtrack *t);
/* a packet from the user (decoded payload), as it goes to QEMU */
void gdbtrack_user(struct gdbtrack *t, const char *payload);
/* a packet from QEMU, as it goes to the user */
void gdbtrack_qemu(struct gdbtrack *t, const char *payload);

/* ---- the multiplexer (event loop, sockets) ---- */

struct gdbmux {
    char *qpath;                /* QEMU's stub socket */
    int ulfd;                   /* --gdb PATH, listening (-1: no user socket) */
    struct listener ulisten;    /* on ulfd */
    int ufd;                    /* the user's connection (-1: none) */
    struct rsp_conn q;          /* our connection to QEMU's stub (q.fd -1: none) */
    uint8_t *ubuf;              /* bytes from the user not forwarded yet */
    size_t ulen, ucap;
    struct gdbtrack trk;
    bool hold;                  /* a launch: the user's bytes wait */
    bool swallow;               /* drop "T02" stop replies (our QMP stop's) */
    bool own;                   /* q is a connection of our own (no user) */
    bool user_gone;             /* the user closed during a hold */
    bool in_session;
    unsigned stops_passed;      /* stop replies that went to the user */
    unsigned swallowed;         /* stop replies we dropped */
};

/* qemu_sock: the socket QEMU's -gdb chardev listens on; user_lfd: --gdb PATH's listening
 * socket (owned by the caller, -1: none). */
void gdbmux_init(struct gdbmux *m, const char *qemu_sock, int user_lfd);
void gdbmux_close(struct gdbmux *m);

/* Keeps the user's bytes back from now on and waits (event loop) until the user has no packet
 * outstanding. -1 after timeout_ms (the caller then calls gdbmux_release). */
int gdbmux_hold(struct gdbmux *m, int timeout_ms, char *err, size_t errsz);
/* Drops QEMU's "T02" stop replies until gdbmux_release. */
void gdbmux_swallow_stops(struct gdbmux *m);
/* A connection for our packets (the user's, or one of our own); QEMU's register packets are
 * enabled (qXfer:features:read of target.xml sets QEMU's gdb_has_xml, without which 'p'/'P'
 * answer empty). */
int gdbmux_begin(struct gdbmux *m, char *err, size_t errsz);
int gdbmux_cmd(struct gdbmux *m, const char *payload, char *reply, size_t replysz, char *err,
               size_t errsz);
/* Ends our packets: the user's thread selection back, or our connection closed. */
void gdbmux_end(struct gdbmux *m);
/* Ends the hold: held bytes go to QEMU, the user's socket accepts again. */
void gdbmux_release(struct gdbmux *m);

#endif
