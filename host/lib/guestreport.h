/* SPDX-License-Identifier: MIT */
/*
 * The guest's report lines in a serial log: "VTBOOT-GUEST: <key>=<value>" (guest/init's say).
 * The kernel prints on the same console whenever it likes, also between two characters of a
 * line the guest is still sending (a hex value of some KiB takes a while under TCG):
 * "VTBOOT-GUEST: k=ab[    1.619772] tsc: Refined TSC ...\ncd\n". Such records, each a whole
 * line of its own from the "[" on, are taken out and the value joined again, as
 * tests/qemu/vtb.py's untangle_console does for the tests.
 */
#ifndef HOST_GUESTREPORT_H
#define HOST_GUESTREPORT_H

#include <stddef.h>

/* The value of the last report line with this key, kernel records taken out and trailing CRs
 * and spaces trimmed, NUL-terminated (malloc'd, the caller frees); NULL if there is none. */
char *guest_report_value(const char *serial, size_t len, const char *key);

#endif
