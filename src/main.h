/* SPDX-License-Identifier: MIT */
/*
 * vtboot's boot flow (main.c), shared by both halves: the MLE runs it after a launch, the
 * pre-launch code when there is none. And what it decided, for the paths that run after
 * Linux (shutdown, S3).
 */
#ifndef MAIN_H
#define MAIN_H

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

/* Reads the loader's information again, places and checks everything, builds the shared
 * page, measures (launched) or lets the policy decide (not), and starts Linux. */
__attribute__((noreturn)) void boot_linux(uint32_t magic, uint32_t info, bool launched);

const struct vtboot_options *boot_options(void);
const char *boot_cmdline(void);              /* vtboot's own, as measured with the MLE */
const struct e820_map *linux_e820_map(void); /* the map Linux was given */

/*
 * The SIMD state for the crypto paths (crypto/cpu.h rules 1-2, drivers/simd.h), on the CPU
 * that hashes: boot_simd_enable at the MLE's start (boot and S3 resume) and at shutdown_entry
 * (not on a CPU that parks), before the first hash; boot_simd_log says what was chosen, in one
 * line ("crypto: ..."); boot_simd_restore before every jump into a kernel (portable code,
 * vector registers zeroed, CR0/CR4/XCR0 as found). Without boot_simd_enable (the pre-launch
 * half) the portable code runs and nothing is changed.
 */
void boot_simd_enable(void);
void boot_simd_log(void);
void boot_simd_restore(void);

/* The console and log levels of `o` (serial port, memory log on or off). */
void apply_log_options(const struct vtboot_options *o);

#endif
