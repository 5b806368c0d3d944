/* SPDX-License-Identifier: MIT */
/*
 * QMP client over a connected socket, driven by the event loop. On QEMU's greeting it sends
 * qmp_capabilities by itself; `ready` becomes true when QEMU has answered it, which QEMU only
 * does from its main loop, i.e. once the machine was built and started.
 */
#ifndef HOST_QMP_H
#define HOST_QMP_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*qmp_event_fn)(void *ctx, const char *event, const char *json);

struct qmp {
    int fd;
    char *buf;
    size_t len, cap;
    bool greeted, ready, eof;
    long long next_id;
    long long wait_id;          /* id of the command qmp_exec() waits for, 0: none */
    bool wait_done;
    char *wait_reply;
    qmp_event_fn on_event;
    void *ctx;
};

void qmp_attach(struct qmp *q, int fd, qmp_event_fn fn, void *ctx);
/* Runs one command and waits for its answer (other events keep being dispatched).
 * args_json is the JSON object of arguments, or NULL. Returns 0 if QEMU returned success;
 * -1 otherwise, with a reason in err. */
int qmp_exec(struct qmp *q, const char *cmd, const char *args_json, char *err, size_t errsz,
             int timeout_ms);
/* Like qmp_exec(); on success *reply is QEMU's whole answer line (free() it). */
int qmp_call(struct qmp *q, const char *cmd, const char *args_json, char **reply, char *err,
             size_t errsz, int timeout_ms);
/* An HMP command line through human-monitor-command; on success *out is its output (decoded,
 * free() it). */
int qmp_hmp(struct qmp *q, const char *cmdline, char **out, char *err, size_t errsz,
            int timeout_ms);
/* query-status's "status" ("running", "paused", "debug", "suspended", ...) into status. */
int qmp_status(struct qmp *q, char *status, size_t statussz, char *err, size_t errsz,
               int timeout_ms);
/* Once QEMU is gone: what it wrote before it went (its SHUTDOWN among it), to the end of the
 * stream, dispatched as the event loop would have. */
void qmp_drain(struct qmp *q);
void qmp_detach(struct qmp *q);

#endif
