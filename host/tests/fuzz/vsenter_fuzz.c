/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: what the guest writes on the VSENTER UART, byte by byte as the launcher
 * reads it (vs_lines_feed), every completed line through the request parser (vs_parse) with
 * a lowmem from the first 8 bytes. Invariants, checked against an independent model of the
 * assembler: a line is everything since the last '\n' (a '\r' before the '\n' dropped), at
 * most VSENTER_LINE_MAX bytes, otherwise reported as over-long; a parsed request has exactly
 * the protocol's text form, its numbers read back from the line, and its header in lowmem; a
 * refusal names the request's id exactly when the id was read.
 */
#include "vsenter.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

/* "0x"/"0X" and 1 to 8 hex digits */
static const char *num(const char *p, unsigned long long *v)
{
    int n = 0;

    if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
        return NULL;
    p += 2;
    *v = 0;
    for (;; p++, n++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
                *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;

        if (d < 0)
            break;
        *v = *v << 4 | (unsigned)d;
    }
    return n >= 1 && n <= 8 ? p : NULL;
}

/* the protocol's request, read independently: "VSENTER " 1-4 digits equal to
 * VSENTER_PROTOCOL, " id=" number (*has_id once read), " mle_base=" number, " mle_hdr="
 * number, end */
static int model_parse(const char *s, unsigned long long *id, int *has_id, unsigned long long *b,
                       unsigned long long *h)
{
    unsigned proto = 0;
    int d = 0;

    *has_id = 0;
    if (strncmp(s, "VSENTER ", 8))
        return -1;
    for (s += 8; *s >= '0' && *s <= '9' && d < 4; s++, d++)
        proto = proto * 10 + (unsigned)(*s - '0');
    if (!d || proto != VSENTER_PROTOCOL || strncmp(s, " id=", 4) || !(s = num(s + 4, id)))
        return -1;
    *has_id = 1;
    if (strncmp(s, " mle_base=", 10) || !(s = num(s + 10, b)) || strncmp(s, " mle_hdr=", 9) ||
        !(s = num(s + 9, h)) || *s)
        return -1;
    return 0;
}

/* the refusal line, read independently: the protocol's head, the id when it was read, the
 * reason cut to fit, '\n' */
static void check_refusal(const struct vs_request *rq, const char *reason)
{
    char out[VSENTER_LINE_MAX + 64], want[VSENTER_LINE_MAX + 64];
    int n;

    vs_refusal(rq, reason, out, sizeof(out));
    if (rq->has_id)
        n = snprintf(want, sizeof(want), "VSENTER-ERR %d id=0x%08x %s", VSENTER_PROTOCOL, rq->id,
                     reason);
    else
        n = snprintf(want, sizeof(want), "VSENTER-ERR %d %s", VSENTER_PROTOCOL, reason);
    check(n > 0);
    if ((size_t)n > sizeof(want) - 2)
        n = (int)sizeof(want) - 2;
    want[n] = '\n';
    want[n + 1] = 0;
    check(!strcmp(out, want));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct vs_lines l;
    static char model[4096 + 2];
    size_t mlen = 0;
    uint64_t lowmem = 0;
    char err[160];

    if (size < 8)
        return 0;
    memcpy(&lowmem, data, 8);
    if (data[0] & 1)
        lowmem = vs_lowmem(data[1] & 1 ? "pc" : "q35", (uint64_t)data[2] << 24);
    memset(&l, 0, sizeof(l));
    for (size_t i = 8; i < size; i++) {
        char c = (char)data[i];
        int r = vs_lines_feed(&l, c);

        if (c != '\n') {
            check(r == 0);
            if (mlen < sizeof(model) - 1)
                model[mlen] = c;
            mlen++;
            continue;
        }
        /* over-long: the line with its '\n' past VSENTER_LINE_MAX bytes ('\r' included);
         * else the model's line is the bytes without a '\r' before the '\n' */
        if (mlen + 1 > VSENTER_LINE_MAX) {
            check(r == 2);
        } else {
            struct vs_request rq;
            unsigned long long id = 0, b = 0, h = 0;
            int mrc, has_id;

            check(r == 1);
            if (mlen && model[mlen - 1] == '\r')
                mlen--;
            check(strlen(l.buf) <= mlen && !memcmp(l.buf, model, strlen(l.buf)));
            /* a NUL in the line ends the C string early: only what is before it counts */
            check(memchr(model, 0, mlen) || strlen(l.buf) == mlen);
            err[0] = 0;
            mrc = model_parse(l.buf, &id, &has_id, &b, &h);
            if (vs_parse(l.buf, lowmem, &rq, err, sizeof(err)) == 0) {
                check(mrc == 0 && id == rq.id && b == rq.mle_base && h == rq.mle_hdr);
                check(h + 0x34 <= lowmem && h + 0x34 <= 1ull << 32);
            } else {
                check(err[0] != 0 && strlen(err) < sizeof(err));
                /* refused only for the format, or for where the header lies */
                check(mrc != 0 || h + 0x34 > lowmem || h + 0x34 > 1ull << 32);
            }
            check(rq.has_id == has_id && (!has_id || rq.id == id));
            check_refusal(&rq, err[0] ? err : l.buf);
        }
        vs_lines_next(&l);
        mlen = 0;
    }
    return 0;
}
