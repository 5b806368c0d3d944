/* SPDX-License-Identifier: MIT */
/* `vtboot-pcr audit-mle` (audit.c). */
#ifndef VTBOOT_PCR_AUDIT_H
#define VTBOOT_PCR_AUDIT_H

#include <stdio.h>

void audit_usage(FILE *f);
/* argv[1] is "audit-mle"; the exit status. */
int audit_main(int argc, char **argv);

#endif
