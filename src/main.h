/* SPDX-License-Identifier: MIT */
/* What the boot flow (main.c) decided, for the paths that run after Linux (shutdown, S3). */
#ifndef MAIN_H
#define MAIN_H

#include <stdint.h>

#include "boot/options.h"
#include "mem/e820.h"

const struct vtboot_options *boot_options(void);
const char *boot_cmdline(void);              /* vtboot's own, as the loader gave it */
uint64_t boot_rsdp(void);                    /* 0: found by searching */
const struct e820_map *linux_e820_map(void); /* the map Linux was given */

/* The console and log levels of `o` (serial port, memory log on or off). */
void apply_log_options(const struct vtboot_options *o);

#endif
