/* SPDX-License-Identifier: MIT */
#include "json.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_DEPTH_MAX 32

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}


/* p at '"'. Decodes into out (if non-NULL). Returns the char after the closing quote. */
static const char *str(const char *p, char *out, size_t outsz)
{
    size_t n = 0;

    if (*p++ != '"')
        return NULL;
    for (;;) {
        char c = *p++;

        if (!c || (unsigned char)c < 0x20)
            return NULL;
        if (c == '"')
            break;
        if (c == '\\') {
            c = *p++;
            switch (c) {
            case '"': case '\\': case '/': break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                int v = 0;

                for (int i = 0; i < 4; i++) {
                    int h = hex_digit(*p++);

                    if (h < 0)
                        return NULL;
                    v = v * 16 + h;
                }
                c = v < 0x80 ? (char)v : '?';
                break;
            }
            default:
                return NULL;
            }
        }
        if (out && n + 1 < outsz)
            out[n++] = c;
    }
    if (out && outsz)
        out[n] = 0;
    return p;
}

static const char *value(const char *p, int depth);

static const char *container(const char *p, int depth)
{
    char close = *p == '{' ? '}' : ']';
    bool obj = *p == '{';

    if (depth > JSON_DEPTH_MAX)
        return NULL;
    p = ws(p + 1);
    if (*p == close)
        return p + 1;
    for (;;) {
        if (obj) {
            p = str(ws(p), NULL, 0);
            if (!p)
                return NULL;
            p = ws(p);
            if (*p++ != ':')
                return NULL;
        }
        p = value(ws(p), depth + 1);
        if (!p)
            return NULL;
        p = ws(p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == close)
            return p + 1;
        return NULL;
    }
}

static const char *value(const char *p, int depth)
{
    p = ws(p);
    switch (*p) {
    case '{':
    case '[':
        return container(p, depth);
    case '"':
        return str(p, NULL, 0);
    default:
        if (!strncmp(p, "true", 4))
            return p + 4;
        if (!strncmp(p, "false", 5))
            return p + 5;
        if (!strncmp(p, "null", 4))
            return p + 4;
        if (*p == '-' || (*p >= '0' && *p <= '9')) {
            char *end;

            strtod(p, &end);
            return end > p ? end : NULL;
        }
        return NULL;
    }
}

/* Finds member `key` (length klen) of the object at p; returns its value's start. */
static const char *member(const char *p, const char *key, size_t klen)
{
    p = ws(p);
    if (*p != '{')
        return NULL;
    p = ws(p + 1);
    if (*p == '}')
        return NULL;
    for (;;) {
        char name[128];
        const char *v;

        p = str(ws(p), name, sizeof(name));
        if (!p)
            return NULL;
        p = ws(p);
        if (*p++ != ':')
            return NULL;
        v = ws(p);
        if (strlen(name) == klen && !memcmp(name, key, klen))
            return v;
        p = value(v, 1);
        if (!p)
            return NULL;
        p = ws(p);
        if (*p++ != ',')
            return NULL;
    }
}

static const char *lookup(const char *js, const char *path)
{
    const char *p = js;

    while (p && *path) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);

        p = member(p, path, len);
        path += len + (dot ? 1 : 0);
    }
    return p;
}

bool json_get_str(const char *js, const char *path, char *out, size_t outsz)
{
    const char *v = lookup(js, path);

    return v && *v == '"' && str(v, out, outsz) != NULL;
}

bool json_has(const char *js, const char *path)
{
    return lookup(js, path) != NULL;
}

bool json_get_int(const char *js, const char *path, long long *out)
{
    const char *v = lookup(js, path);
    char *end;

    if (!v || !(*v == '-' || (*v >= '0' && *v <= '9')))
        return false;
    *out = strtoll(v, &end, 10);
    return end > v;
}

bool json_quote(const char *s, char *out, size_t outsz)
{
    size_t n = 0;

#define PUT(c) do { if (n + 1 >= outsz) return false; out[n++] = (c); } while (0)
    PUT('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\') {
            PUT('\\');
            PUT((char)c);
        } else if (c < 0x20) {
            char esc[8];

            snprintf(esc, sizeof(esc), "\\u%04x", c);
            for (int i = 0; esc[i]; i++)
                PUT(esc[i]);
        } else {
            PUT((char)c);
        }
    }
    PUT('"');
#undef PUT
    out[n] = 0;
    return true;
}
