/* SPDX-License-Identifier: MIT */
#include "guestreport.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define PREFIX "VTBOOT-GUEST: "

/* The length of the kernel record's head "[ *\d+\.\d{6}\] " at s (n bytes), else 0. */
static size_t record_head(const char *s, size_t n)
{
    size_t i = 1, digits;

    if (n < 1 || s[0] != '[')
        return 0;
    while (i < n && s[i] == ' ')
        i++;
    for (digits = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        digits++;
    if (!digits || i >= n || s[i] != '.')
        return 0;
    for (i++, digits = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        digits++;
    if (digits != 6 || i + 1 >= n || s[i] != ']' || s[i + 1] != ' ')
        return 0;
    return i + 2;
}

/* where the first kernel record starts in s (n bytes), n if none */
static size_t first_record(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '[' && record_head(s + i, n - i))
            return i;
    return n;
}

/* The line at *pos (without its '\n' and a trailing '\r'); *pos moves past it. */
static const char *next_line(const char *serial, size_t len, size_t *pos, size_t *n)
{
    const char *p = serial + *pos;
    size_t k = 0;

    while (*pos + k < len && p[k] != '\n')
        k++;
    *pos += k + (*pos + k < len);
    if (k && p[k - 1] == '\r')
        k--;
    *n = k;
    return p;
}

char *guest_report_value(const char *serial, size_t len, const char *key)
{
    size_t plen = strlen(PREFIX), klen = strlen(key), pos = 0;
    char *found = NULL;

    while (pos < len) {
        size_t n, vn = 0;
        const char *l = next_line(serial, len, &pos, &n);

        if (n < plen + klen + 1 || memcmp(l, PREFIX, plen) || memcmp(l + plen, key, klen) ||
            l[plen + klen] != '=')
            continue;
        free(found);
        found = xmalloc(len + 1);          /* the value is never longer than the log */
        const char *seg = l + plen + klen + 1;
        size_t sn = n - (plen + klen + 1);
        for (;;) {
            size_t cut = first_record(seg, sn);

            memcpy(found + vn, seg, cut);
            vn += cut;
            if (cut == sn || pos >= len)
                break;
            /* the record ends its line; more may follow, each a line, then the value goes on
             * (a record on the log's last line is taken for the value's end) */
            seg = next_line(serial, len, &pos, &sn);
            while (pos < len && record_head(seg, sn))
                seg = next_line(serial, len, &pos, &sn);
        }
        while (vn && (found[vn - 1] == '\r' || found[vn - 1] == ' '))
            vn--;
        found[vn] = 0;
    }
    return found;
}
