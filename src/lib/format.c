/* SPDX-License-Identifier: MIT */
#include <stdbool.h>
#include <stdint.h>

#include "lib/format.h"
#include "lib/string.h"

struct out {
    char *buf;
    size_t size;
    size_t len;
};

static void put(struct out *o, char c)
{
    if (o->len + 1 < o->size)
        o->buf[o->len] = c;
    o->len++;
}

static void pad(struct out *o, char c, int n)
{
    while (n-- > 0)
        put(o, c);
}

/* Digits of v in base 10 or 16, least significant first; 64-bit division only by constants. */
static int digits(char *tmp, unsigned long long v, bool hex, bool upper)
{
    const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    int n = 0;
    do {
        if (hex) {
            tmp[n++] = set[v & 0xf];
            v >>= 4;
        } else {
            tmp[n++] = set[v % 10u];
            v /= 10u;
        }
    } while (v);
    return n;
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct out o = { buf, size, 0 };

    while (*fmt) {
        if (*fmt != '%') {
            put(&o, *fmt++);
            continue;
        }
        const char *start = fmt++;
        bool left = false, zero = false;
        for (;; fmt++) {
            if (*fmt == '-')
                left = true;
            else if (*fmt == '0')
                zero = true;
            else
                break;
        }
        int width = 0, prec = -1;
        if (*fmt == '*') {
            width = va_arg(ap, int);
            if (width < 0) {
                left = true;
                width = -width;
            }
            fmt++;
        } else {
            while (*fmt >= '0' && *fmt <= '9')
                width = width * 10 + (*fmt++ - '0');
        }
        if (*fmt == '.') {
            fmt++;
            prec = 0;
            if (*fmt == '*') {
                prec = va_arg(ap, int);
                fmt++;
            } else {
                while (*fmt >= '0' && *fmt <= '9')
                    prec = prec * 10 + (*fmt++ - '0');
            }
        }
        int lng = 0; /* 0 int, 1 long, 2 long long, 3 size_t, -1 short, -2 char */
        for (;; fmt++) {
            if (*fmt == 'l')
                lng = lng == 1 ? 2 : 1;
            else if (*fmt == 'z')
                lng = 3;
            else if (*fmt == 'h')
                lng = lng == -1 ? -2 : -1;
            else
                break;
        }
        char conv = *fmt;
        if (!conv)
            break;
        fmt++;

        if (conv == '%') {
            put(&o, '%');
            continue;
        }
        if (conv == 'c') {
            if (!left)
                pad(&o, ' ', width - 1);
            put(&o, (char)va_arg(ap, int));
            if (left)
                pad(&o, ' ', width - 1);
            continue;
        }
        if (conv == 's') {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            int n = (int)strnlen(s, prec >= 0 ? (size_t)prec : (size_t)-1);
            if (!left)
                pad(&o, ' ', width - n);
            for (int i = 0; i < n; i++)
                put(&o, s[i]);
            if (left)
                pad(&o, ' ', width - n);
            continue;
        }

        unsigned long long v;
        bool neg = false, hex = false, upper = false;
        switch (conv) {
        case 'd':
        case 'i': {
            long long sv;
            if (lng == 2)
                sv = va_arg(ap, long long);
            else if (lng == 1)
                sv = va_arg(ap, long);
            else if (lng == 3)
                sv = va_arg(ap, ptrdiff_t);  /* the signed size_t: %zd of -1 is -1 on i686 too */
            else
                sv = va_arg(ap, int);
            if (lng == -1)
                sv = (short)sv;
            else if (lng == -2)
                sv = (signed char)sv;
            neg = sv < 0;
            v = neg ? 0ull - (unsigned long long)sv : (unsigned long long)sv;
            break;
        }
        case 'p':
            v = (uintptr_t)va_arg(ap, void *);
            hex = true;
            break;
        case 'u':
        case 'x':
        case 'X':
            if (lng == 2)
                v = va_arg(ap, unsigned long long);
            else if (lng == 1)
                v = va_arg(ap, unsigned long);
            else if (lng == 3)
                v = va_arg(ap, size_t);
            else
                v = va_arg(ap, unsigned int);
            if (lng == -1)
                v = (unsigned short)v;
            else if (lng == -2)
                v = (unsigned char)v;
            hex = conv != 'u';
            upper = conv == 'X';
            break;
        default:
            /* not ours: print it as written */
            while (start < fmt)
                put(&o, *start++);
            continue;
        }
        /* sign or 0x, zeros up to the precision, digits; the width counts all of them */
        const char *prefix = conv == 'p' ? "0x" : neg ? "-" : "";
        int plen = (int)strlen(prefix);
        char tmp[24];
        int n = prec == 0 && v == 0 && conv != 'p' ? 0 : digits(tmp, v, hex, upper);
        int zeros = prec > n ? prec - n : 0;
        int len = plen + zeros + n;
        if (prec >= 0)
            zero = false;            /* C11 7.21.6.1: with a precision, '0' is ignored */
        if (!left && !zero)
            pad(&o, ' ', width - len);
        for (int i = 0; i < plen; i++)
            put(&o, prefix[i]);
        if (!left && zero)
            pad(&o, '0', width - len);
        pad(&o, '0', zeros);
        while (n)
            put(&o, tmp[--n]);
        if (left)
            pad(&o, ' ', width - len);
    }
    if (size)
        buf[o.len < size ? o.len : size - 1] = '\0';
    return (int)o.len;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = fmt_vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
