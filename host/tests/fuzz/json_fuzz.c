/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the JSON look-up the launcher reads QMP with (host/lib/json.c) and the QMP
 * line reader itself (host/lib/qmp.c: QEMU's bytes through a socket pair, split into lines,
 * each handled as QEMU's greeting, an event or an answer). Input: byte 0 selects the mode,
 * then a path line ("data.reason"), then the text.
 *   mode bit 0 clear: the text is one JSON document for json_get_str/json_get_int/json_has
 *     under the path; invariants: a string or integer found means the member exists; the
 *     string fits its buffer whatever its size; json_quote of any text, wrapped in an object,
 *     reads back as exactly that text.
 *   mode bit 0 set: the text is what QEMU sends on QMP, written in pieces (bytes 1..n of the
 *     mode give the piece sizes) while the event loop runs; every event seen must be a string
 *     member "event" of a line of the input, the client sends at most one qmp_capabilities
 *     whatever it is greeted with, and nothing may crash or leak. The peer reads what the
 *     client sends, as QEMU does, and SIGPIPE is ignored, as the launcher does (sig.c).
 */
#include "ev.h"
#include "json.h"
#include "qmp.h"

#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fuzz_check.h"

static unsigned events;

/* what the client sent the peer so far (appended; at most one qmp_capabilities fits) */
static char sent[128];
static size_t sent_len;

static void peer_reads(int fd)
{
    char tmp[4096];
    ssize_t n;

    while ((n = read(fd, tmp, sizeof(tmp))) > 0) {
        check(sent_len + (size_t)n < sizeof(sent));
        memcpy(sent + sent_len, tmp, (size_t)n);
        sent_len += (size_t)n;
    }
}

static void on_event(void *ctx, const char *event, const char *json)
{
    char ev[64];

    (void)ctx;
    check(json_get_str(json, "event", ev, sizeof(ev)) && !strcmp(ev, event));
    events++;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    stderr = fopen("/dev/null", "w");   /* the QMP client's messages; sanitizers use fd 2 */
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], out[48], *text, *quoted, *wrapped, *back;
    const uint8_t *nl;
    size_t plen, tlen, qcap;
    long long iv;
    bool has, got_s, got_i;

    if (size < 2)
        return 0;
    nl = memchr(data + 1, '\n', size - 1);
    plen = nl ? (size_t)(nl - data - 1) : 0;
    if (plen >= sizeof(path))
        plen = sizeof(path) - 1;
    memcpy(path, data + 1, plen);
    path[plen] = 0;
    /* the raw bytes after the path (QMP mode: NULs and all), and as a C string (JSON mode) */
    const char *all = (const char *)data + 1 + (nl ? (size_t)(nl - data) : 0);
    size_t rawlen = size - (size_t)((const uint8_t *)all - data);
    text = strndup(all, rawlen);
    tlen = strlen(text);

    if (!(data[0] & 1)) {
        has = json_has(text, path);
        got_s = json_get_str(text, path, out, (size_t)(data[0] >> 1) % sizeof(out) + 1);
        got_i = json_get_int(text, path, &iv);
        check(!got_s || (has && strlen(out) < (size_t)(data[0] >> 1) % sizeof(out) + 1));
        check(!got_i || has);
        check(!(got_s && got_i));
        /* quote the text, wrap it, read it back */
        qcap = tlen * 6 + 3;
        quoted = malloc(qcap);
        check(json_quote(text, quoted, qcap));
        check(!json_quote(text, quoted, strlen(quoted)));     /* one byte short: refused */
        check(json_quote(text, quoted, qcap));
        wrapped = malloc(strlen(quoted) + 16);
        sprintf(wrapped, "{\"k\": %s}", quoted);
        back = malloc(tlen + 1);
        check(json_get_str(wrapped, "k", back, tlen + 1) && !strcmp(back, text));
        check(json_has(wrapped, "k") && !json_has(wrapped, "k.x"));
        free(back);
        free(wrapped);
        free(quoted);
    } else {
        struct qmp q;
        int sv[2];
        size_t off = 0, k = 0;

        check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
        events = 0;
        sent_len = 0;
        qmp_attach(&q, sv[0], on_event, NULL);
        while (off < rawlen) {
            size_t piece = plen ? (size_t)(uint8_t)path[k++ % plen] * 37 % 4096 + 1 : rawlen;

            if (piece > rawlen - off)
                piece = rawlen - off;
            check(write(sv[1], all + off, piece) == (ssize_t)piece);
            off += piece;
            while (ev_run_once(0) > 0)
                ;
            peer_reads(sv[1]);
        }
        sent[sent_len] = 0;
        check(!sent_len || !strcmp(sent, "{\"execute\":\"qmp_capabilities\",\"id\":1}\n"));
        close(sv[1]);
        /* the end of the stream is there to read: only a signal's EINTR returns 0 */
        while (!q.eof)
            check(ev_run_once(1000) >= 0);
        /* no more events than lines */
        {
            unsigned lines = 1;

            for (size_t i = 0; i < rawlen; i++)
                lines += all[i] == '\n';
            check(events <= lines);
        }
        qmp_detach(&q);
    }
    free(text);
    return 0;
}
