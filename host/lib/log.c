/* SPDX-License-Identifier: MIT */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *log_prog = "vtboot";
int log_verbose;

static void vout(const char *kind, const char *err, const char *fmt, va_list ap)
{
    char buf[2048];

    vsnprintf(buf, sizeof(buf), fmt, ap);
    if (err)
        fprintf(stderr, "%s: %s%s: %s\n", log_prog, kind, buf, err);
    else
        fprintf(stderr, "%s: %s%s\n", log_prog, kind, buf);
    fflush(stderr);
}

void log_msg(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vout("", NULL, fmt, ap);
    va_end(ap);
}

void log_dbg(const char *fmt, ...)
{
    va_list ap;

    if (!log_verbose)
        return;
    va_start(ap, fmt);
    vout("", NULL, fmt, ap);
    va_end(ap);
}

void log_err(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vout("error: ", NULL, fmt, ap);
    va_end(ap);
}

void log_perr(const char *fmt, ...)
{
    int e = errno;
    va_list ap;

    va_start(ap, fmt);
    vout("error: ", strerror(e), fmt, ap);
    va_end(ap);
}
