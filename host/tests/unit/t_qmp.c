/* SPDX-License-Identifier: MIT */
/* The QMP client against a peer on a socket pair: what it sends back to greetings, and the
 * events it hands on. */
#include "unit.h"
#include "ev.h"
#include "qmp.h"

#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char seen[4][32];
static unsigned nseen;

static void on_event(void *ctx, const char *event, const char *json)
{
    (void)ctx;
    (void)json;
    if (nseen < 4)
        snprintf(seen[nseen], sizeof(seen[nseen]), "%s", event);
    nseen++;
}

/* A peer greeting several times gets one qmp_capabilities: answering each greeting let a peer
 * that greets on and reads nothing hold the event loop 5 s per greeting. */
static void test_qmp_greets_once(void)
{
    static const char peer[] = "{\"QMP\": {\"version\": {}}}\n{\"QMP\": {}}\n"
                               "{\"event\": \"STOP\"}\n{\"QMP\": {}}\n";
    char got[256];
    ssize_t n;
    struct qmp q;
    int sv[2];

    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0, "socketpair");
    nseen = 0;
    qmp_attach(&q, sv[0], on_event, NULL);
    CHECK(write(sv[1], peer, strlen(peer)) == (ssize_t)strlen(peer), "peer write");
    while (ev_run_once(0) > 0)
        ;
    n = read(sv[1], got, sizeof(got) - 1);
    got[n > 0 ? n : 0] = 0;
    CHECK(!strcmp(got, "{\"execute\":\"qmp_capabilities\",\"id\":1}\n"),
          "one qmp_capabilities for three greetings: [%s]", got);
    CHECK(q.greeted && !q.ready, "greeted, not ready");
    CHECK(nseen == 1 && !strcmp(seen[0], "STOP"), "events: %u [%s]", nseen, seen[0]);
    CHECK(write(sv[1], "{\"return\": {}, \"id\": 1}\n", 24) == 24, "peer answer");
    while (ev_run_once(0) > 0)
        ;
    CHECK(q.ready, "ready after the answer");
    close(sv[1]);
    while (!q.eof && ev_run_once(1000) >= 0)
        ;
    CHECK(q.eof, "end of stream");
    qmp_detach(&q);
}

/* QEMU that exits right after its SHUTDOWN event: the launcher may see the process gone before
 * the event loop has read the event (CI, a control VM that powers off as the gdbstub lets it
 * run: "QEMU ended without a SHUTDOWN event"). qmp_drain() reads it, without the loop. */
static void test_qmp_drain_reads_what_an_exited_peer_wrote(void)
{
    static const char peer[] = "{\"QMP\": {}}\n{\"event\": \"STOP\"}\n"
                               "{\"event\": \"SHUTDOWN\", \"data\": {\"reason\": \"guest-shutdown\"}}\n";
    struct qmp q;
    int sv[2];

    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
    nseen = 0;
    qmp_attach(&q, sv[0], on_event, NULL);
    CHECK(write(sv[1], peer, strlen(peer)) == (ssize_t)strlen(peer), "peer write");
    close(sv[1]);
    qmp_drain(&q);
    CHECK(nseen == 2 && !strcmp(seen[0], "STOP") && !strcmp(seen[1], "SHUTDOWN"),
          "events after the drain: %u [%s] [%s]", nseen, seen[0], seen[1]);
    CHECK(q.eof, "the drain read to the end of the stream");
    qmp_drain(&q);
    CHECK(nseen == 2, "a second drain dispatches nothing: %u", nseen);
    qmp_detach(&q);
}

void test_qmp(void)
{
    test_qmp_greets_once();
    test_qmp_drain_reads_what_an_exited_peer_wrote();
}
