/* SPDX-License-Identifier: MIT */
/*
 * What getsec.c (the dispatcher, the IDT, the probes) shares with the files of its other cases
 * (getsec_chipset.c).
 */
#ifndef GUEST_GETSEC_H
#define GUEST_GETSEC_H

#include "abi/multiboot1.h"

/* the loader's multiboot information, as getsec_main got it */
extern const struct mb1_info *getsec_mbi;

/* starts a report line: "GETSEC: <case>: <what>" (the running case's name) */
void line(const char *what);

/* getsec_chipset.c: the TXT chipset's cases */
void chipset_txtregs(void);
void chipset_biosdata(void);
void chipset_biosdata_reset(void);
void chipset_e820(void);

#endif
