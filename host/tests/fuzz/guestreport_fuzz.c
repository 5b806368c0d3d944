/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the guest's report lines with kernel records cut into them
 * (host/lib/guestreport.c). Input byte 0 picks the mode. Even: the rest is a serial log as it
 * came; the value found, if any, holds no line end, is no longer than the log, and the same
 * call finds it again. Odd: the rest builds a log the oracle knows the answer to: a hex value
 * (from the bytes' low nibbles) cut at points the bytes choose, each cut followed by one to
 * three kernel records (each a line, CRLF or LF), among report lines of other keys and of the
 * key's earlier value; the value found is the hex value whole.
 */
#include "guestreport.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(char *log, size_t *n, const char *s)
{
    size_t k = strlen(s);

    memcpy(log + *n, s, k);
    *n += k;
}

static void raw(const uint8_t *data, size_t size)
{
    char *log = malloc(size ? size : 1);    /* exactly size bytes: ASan sees a read past them */
    char *v, *again;

    memcpy(log, data, size);
    v = guest_report_value(log, size, "k");
    again = guest_report_value(log, size, "k");
    check(!v == !again);
    if (v) {
        check(strlen(v) <= size && !strchr(v, '\n') && !strcmp(v, again));
    }
    free(v);
    free(again);
    free(log);
}

static void built(const uint8_t *data, size_t size)
{
    static const char *const records[] = {
        "[    1.619772] tsc: Refined TSC clocksource calibration: 2694.860 MHz",
        "[ 1234.000000] ",
        "[0.000001] random: crng init done",
    };
    size_t cap = 128 + size * 3 * 80, n = 0, vn = 0;
    char *log = malloc(cap), *value = malloc(size + 1), *got;

    put(log, &n, "VTBOOT-GUEST: k=ff\r\nVTBOOT-GUEST: kk=1\nVTBOOT-GUEST: k=");
    for (size_t i = 0; i < size; i++) {
        uint8_t b = data[i];

        value[vn++] = "0123456789abcdef"[b & 0xf];
        log[n++] = value[vn - 1];
        if (b & 0x80) {                         /* a cut after this digit */
            for (unsigned r = 0; r <= (b >> 5 & 1) + (b >> 4 & 1); r++) {
                put(log, &n, records[(b >> 4 & 3) % 3]);
                put(log, &n, b & 0x40 ? "\r\n" : "\n");
            }
        }
    }
    value[vn] = 0;
    put(log, &n, "\r\nVTBOOT-GUEST: x=1\r\n");
    check(n <= cap);
    got = guest_report_value(log, n, "k");
    check(got && !strcmp(got, value));
    free(got);
    free(value);
    free(log);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] & 1)
        built(data + 1, size - 1);
    else
        raw(data + 1, size - 1);
    return 0;
}
