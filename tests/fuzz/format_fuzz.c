/* SPDX-License-Identifier: MIT */
/*
 * fmt_vsnprintf against glibc's vsnprintf.
 *   byte 0 < 0xf0: a format from a fixed table (the documented subset) with arguments and the
 *                  buffer size taken from the input; text and return value must be glibc's.
 *   byte 0 >= 0xf0: the rest is a format string of our own choosing (no '*', widths of at
 *                  most 3 digits, at most 6 conversions) with string-pointer arguments: only
 *                  memory safety and termination are checked.
 */
#include <stdarg.h>

#include "fuzz_common.h"

#include "lib/format.h"

typedef int (*fmt_fn)(char *, size_t, const char *, ...);

enum sig { I, U, L, UL, LL, ULL, Z, S, P, C, WI, PS, WPS, WPI, IUS };

static const struct { const char *fmt; enum sig sig; } table[] = {
    { "%d", I }, { "%i", I }, { "[%5d]", I }, { "[%-7i]", I }, { "[%012d]", I }, { "%.3d", I },
    { "[%8.4d]", I }, { "[%-8.0d]", I }, { "%hd", I }, { "%hhd", I }, { "[%08.3i]", I },
    { "%u", U }, { "%x", U }, { "%X", U }, { "%08x", U }, { "[%.0x]", U }, { "%hx", U },
    { "%hhu", U }, { "[%-10X]", U }, { "[%10.6u]", U }, { "%c", C }, { "[%5c]", C },
    { "[%-3c]", C }, { "%ld", L }, { "%li", L }, { "[%20ld]", L }, { "%lu", UL }, { "%lx", UL },
    { "%016lX", UL }, { "%lld", LL }, { "[%-22lld]", LL }, { "[%.20lli]", LL },
    { "%llu", ULL }, { "%llx", ULL }, { "%016llx", ULL }, { "[%.18llX]", ULL }, { "%zu", Z },
    { "%zx", Z }, { "%zd", Z }, { "%s", S }, { "[%10s]", S }, { "[%-10s]", S }, { "%.5s", S },
    { "[%7.2s]", S }, { "%p", P }, { "[%20p]", P }, { "[%-20p]", P }, { "[%*d]", WI },
    { "[%*x]", WI }, { "[%-*u]", WI }, { "[%0*d]", WI }, { "[%.*s]", PS }, { "[%*.*s]", WPS },
    { "[%*.*d]", WPI }, { "[%-*.*x]", WPI }, { "[%0*.*d]", WPI },
    { "vtboot: %d/%u: '%s'\n", IUS }, { "%x%%%d%s", IUS },
};
#define NTABLE (sizeof(table) / sizeof(table[0]))

static const char *const strs[] = { "", "a", "vtboot", "memory log full", "0123456789abcdef",
    "a rather long string that is longer than most of the buffers this fuzzer uses, by far" };

struct in {
    const uint8_t *p;
    size_t n;
};

static uint64_t take(struct in *in, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        v |= (uint64_t)(in->n ? *in->p : 0) << (8 * i);
        if (in->n) {
            in->p++;
            in->n--;
        }
    }
    return v;
}

static int call(fmt_fn f, char *buf, size_t size, const char *fmt, enum sig sig,
                const uint64_t *v, const char *s)
{
    int w = (int8_t)v[1], pr = (int8_t)v[2];
    switch (sig) {
    case I: return f(buf, size, fmt, (int)v[0]);
    case U: return f(buf, size, fmt, (unsigned)v[0]);
    case C: return f(buf, size, fmt, (int)v[0]);
    case L: return f(buf, size, fmt, (long)v[0]);
    case UL: return f(buf, size, fmt, (unsigned long)v[0]);
    case LL: return f(buf, size, fmt, (long long)v[0]);
    case ULL: return f(buf, size, fmt, (unsigned long long)v[0]);
    case Z: return f(buf, size, fmt, (size_t)v[0]);
    case S: return f(buf, size, fmt, s);
    case P: return f(buf, size, fmt, (void *)(uintptr_t)(v[0] | 1));
    case WI: return f(buf, size, fmt, w, (int)v[0]);
    case PS: return f(buf, size, fmt, pr, s);
    case WPS: return f(buf, size, fmt, w, pr, s);
    case WPI: return f(buf, size, fmt, w, pr, (int)v[0]);
    case IUS: return f(buf, size, fmt, (int)v[0], (unsigned)v[1], s);
    }
    return 0;
}

static void own_format(const uint8_t *data, size_t size)
{
    if (size > 200)
        return;
    char fmt[201];
    memcpy(fmt, data, size);
    fmt[size] = '\0';
    unsigned convs = 0, digits = 0;
    for (size_t i = 0; i < size; i++) {
        if (fmt[i] == '*')
            return;
        digits = fmt[i] >= '0' && fmt[i] <= '9' ? digits + 1 : 0;
        if (digits > 3)
            return;
        convs += fmt[i] == '%';
    }
    if (convs > 6)
        return;
    static const char str[] = "str";
    const char *a = str;
    size_t bsize = size ? data[0] % 64 : 0;
    char *buf = malloc(bsize ? bsize : 1);
    int n = fmt_snprintf(buf, bsize, fmt, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
                         a, a);
    FUZZ_ASSERT(n >= 0, "negative length");
    /* terminated right after the output (which may itself contain a NUL from %c) */
    if (bsize)
        FUZZ_ASSERT(buf[(size_t)n < bsize ? (size_t)n : bsize - 1] == '\0', "termination");
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    if (data[0] >= 0xf0) {
        own_format(data + 1, size - 1);
        return 0;
    }
    struct in in = { data + 2, size - 2 };
    unsigned idx = data[0] % NTABLE;
    size_t bsize = data[1];
    uint64_t v[3] = { take(&in, 8), take(&in, 1), take(&in, 1) };
    char sbuf[65];
    const char *s;
    unsigned sel = (unsigned)take(&in, 1);
    if (sel < 0x80) {
        s = strs[sel % (sizeof(strs) / sizeof(strs[0]))];
    } else {
        size_t k = in.n < 64 ? in.n : 64;
        memcpy(sbuf, in.p, k);
        sbuf[k] = '\0';
        s = sbuf;
    }
    char want[300], got[300];
    memset(want, 0x7e, sizeof(want));
    memset(got, 0x7e, sizeof(got));
    int nw = call(snprintf, want, bsize, table[idx].fmt, table[idx].sig, v, s);
    int ng = call(fmt_snprintf, got, bsize, table[idx].fmt, table[idx].sig, v, s);
    FUZZ_ASSERT(nw == ng && memcmp(want, got, sizeof(want)) == 0,
                "format \"%s\" size %zu: glibc \"%.*s\" (%d), ours \"%.*s\" (%d)",
                table[idx].fmt, bsize, (int)(bsize ? bsize : 0), want, nw,
                (int)(bsize ? bsize : 0), got, ng);
    return 0;
}
