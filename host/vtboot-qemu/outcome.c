/* SPDX-License-Identifier: MIT */
#include "outcome.h"
#include "json.h"
#include "log.h"
#include "opts.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void vset(struct fate *f, enum outcome o, bool force, const char *fmt, va_list ap)
{
    if (f->outcome != OUT_NONE && !force)
        return;
    f->outcome = o;
    f->decided_at = now_ms();
    vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
}

void fate_set(struct fate *f, enum outcome o, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vset(f, o, false, fmt, ap);
    va_end(ap);
}

static void force(struct fate *f, enum outcome o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void force(struct fate *f, enum outcome o, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vset(f, o, true, fmt, ap);
    va_end(ap);
}

void fate_on_event(void *ctx, const char *event, const char *json)
{
    struct fate *f = ctx;
    char reason[64];

    if (!strcmp(event, "GUEST_PANICKED")) {
        /* a panic outranks the SHUTDOWN (reason guest-panic) that follows it */
        if (f->outcome != OUT_CRASH)
            force(f, OUT_CRASH, "GUEST_PANICKED");
        return;
    }
    if (strcmp(event, "SHUTDOWN"))
        return;
    if (!json_get_str(json, "data.reason", reason, sizeof(reason)))
        snprintf(reason, sizeof(reason), "unknown");
    if (!strcmp(reason, "guest-shutdown"))
        fate_set(f, OUT_POWEROFF, "SHUTDOWN %s", reason);
    else if (!strcmp(reason, "guest-reset") || !strcmp(reason, "subsystem-reset"))
        fate_set(f, OUT_RESET, "SHUTDOWN %s", reason);
    else
        /* guest-panic, host-signal, host-error, host-qmp-quit, ...: not the guest's doing */
        fate_set(f, OUT_CRASH, "SHUTDOWN %s", reason);
}

int fate_report(const struct fate *f, double s)
{
    switch (f->outcome) {
    case OUT_POWEROFF:
        log_msg("guest powered off (%s, %.1f s)", f->detail, s);
        return EXIT_POWEROFF;
    case OUT_RESET:
        log_msg("guest reset (%s, %.1f s)", f->detail, s);
        return EXIT_RESET;
    case OUT_TIMEOUT:
        log_msg("guest timed out (%s)", f->detail);
        return EXIT_TIMEOUT;
    case OUT_CRASH:
        log_msg("guest crashed (%s, %.1f s)", f->detail, s);
        return EXIT_CRASH;
    case OUT_SIGNAL:
        log_msg("interrupted (%s); QEMU stopped", f->detail);
        return 128 + f->signo;
    case OUT_SETUP:
    case OUT_NONE:
    default:
        log_err("%s", f->outcome == OUT_NONE ? "no outcome" : f->detail);
        return EXIT_SETUP;
    }
}
