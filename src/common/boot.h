/* SPDX-License-Identifier: MIT */
/*
 * vtboot's boot flow (common/boot.c), shared by both halves: the MLE runs it after a launch, the
 * pre-launch code when there is none. And what it decided, for the paths that run after
 * Linux (shutdown, S3).
 */
#ifndef COMMON_BOOT_H
#define COMMON_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"
#include "boot/options.h"
#include "mem/e820.h"

/* Logging with the default options, lines kept in a memory log formatted in `staging` until
 * the boot flow moves it to tboot's address. */
void boot_log_init(void *staging, size_t size);
/* The options of `cmdline` (vtboot's own), applied to logging; bad values are reported. */
void boot_log_options(const char *cmdline);
void boot_banner(const char *half);

/* The loader's information at `info` for the loader's `magic`, parsed and validated; halts on
 * anything malformed. */
const struct boot_info *boot_read_loader(uint32_t magic, uint32_t info);
/* Halts on modules that cannot be used at all (boot/modules.h, modules_check): the pre-launch
 * half asks so before any launch, and the MLE asks again (the pre-launch half is not measured). */
void boot_refuse_bad_modules(void);

/* Reads the loader's information again, places and checks everything (the kernel, its
 * modules, memory) and writes the shared page; halts on anything it cannot use. Between it and
 * boot_start the half measures: the MLE (mle/launch.h launch_measure), or without a launch
 * the policy decides (prelaunch/nolaunch.h nolaunch_decide). */
const struct boot_info *boot_prepare(uint32_t magic, uint32_t info);
/* Loads Linux or the multiboot kernel as planned and jumps. */
__attribute__((noreturn)) void boot_start(void);

const struct vtboot_options *boot_options(void);
const char *boot_cmdline(void);              /* vtboot's own, as measured with the MLE */
const struct e820_map *linux_e820_map(void); /* the map Linux was given */

/* The console and log levels of `o` (serial port, memory log on or off). */
void apply_log_options(const struct vtboot_options *o);

#endif
