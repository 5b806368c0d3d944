/* SPDX-License-Identifier: MIT */
/* The guest's report lines with the kernel's records cut into them (host/lib/guestreport.c):
 * serial logs as QEMU's console delivers them, CRs included. */
#include "unit.h"
#include "guestreport.h"

#include <stdlib.h>
#include <string.h>

static void want(const char *serial, const char *key, const char *value, const char *what)
{
    char *got = guest_report_value(serial, strlen(serial), key);

    if (!value)
        CHECK(!got, "%s: found \"%s\"", what, got);
    else
        CHECK(got && !strcmp(got, value), "%s: \"%s\"", what, got ? got : "(none)");
    free(got);
}

void test_guestreport(void)
{
    want("VTBOOT-GUEST: a=0011\r\nVTBOOT-GUEST: b=22\r\n", "a", "0011", "plain");
    want("VTBOOT-GUEST: a=\r\n", "a", "", "empty");
    want("VTBOOT-GUEST: a=1\nVTBOOT-GUEST: a=2  \r\n", "a", "2", "the last one, trimmed");
    want("VTBOOT-GUEST: ab=1\nVTBOOT-GUEST: a =2\nVTBOOT-GUEST: a", "a", NULL, "other keys");
    want(" VTBOOT-GUEST: a=1\nvtboot-guest: a=1\n", "a", NULL, "not at a line's start");
    want("VTBOOT-GUEST: a=1", "a", "1", "no newline at the end");
    /* the attestation test's failure of 2026-12-06 (the TSC's refined calibration, printed while
     * the evidence's hex went out) */
    want("VTBOOT-GUEST: attest-evidence=0a0b[    1.619772] tsc: Refined TSC clocksource "
         "calibration: 2694.860 MHz\r\n0c0d\r\nVTBOOT-GUEST: end\r\n", "attest-evidence",
         "0a0b0c0d", "one record cut in");
    want("VTBOOT-GUEST: k=ab[    1.619772] tsc: Refined\r\n[    1.633320] clocksource: "
         "Switched to clocksource tsc\r\n[   12.000001] x\r\ncd[  100.000000] y\r\nef\r\n", "k",
         "abcdef", "records on lines of their own, and a second cut");
    want("VTBOOT-GUEST: k=[    1.000000] r\r\nab\r\n", "k", "ab", "a record right after '='");
    want("VTBOOT-GUEST: k=ab[    1.000000] r\r\n", "k", "ab", "a record on the last line");
    /* not records: kept as the value has them */
    want("VTBOOT-GUEST: k=a[1.0] [ 1.00000] [x.000000] [    1.0000001] b\n", "k",
         "a[1.0] [ 1.00000] [x.000000] [    1.0000001] b", "almost records");
    want("VTBOOT-GUEST: k=a[1.000000]\nb\n", "k", "a[1.000000]", "no space after ']'");
}
