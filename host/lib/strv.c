/* SPDX-License-Identifier: MIT */
#include "strv.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void push(struct strv *s, char *owned)
{
    if (s->n + 2 > s->cap) {
        s->cap = s->cap ? s->cap * 2 : 32;
        s->v = xrealloc(s->v, (size_t)s->cap * sizeof(*s->v));
    }
    s->v[s->n++] = owned;
    s->v[s->n] = NULL;
}

void strv_add(struct strv *s, const char *arg)
{
    push(s, xstrdup(arg));
}

void strv_addf(struct strv *s, const char *fmt, ...)
{
    va_list ap;
    char *p;

    va_start(ap, fmt);
    if (vasprintf(&p, fmt, ap) < 0)
        p = xstrdup("");
    va_end(ap);
    push(s, p);
}

void strv_free(struct strv *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}
