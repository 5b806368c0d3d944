/* SPDX-License-Identifier: MIT */
/*
 * Starting a multiboot kernel (Xen) instead of Linux, as tboot's loader does when module 0 is
 * an ELF image: the image's segments loaded at their physical addresses, the other modules
 * handed on with their strings, the kernel's command line with " tboot=0x<shared page>", and
 * vtboot's region marked unusable in the memory map the kernel gets. The boot flow
 * (common/boot.c) calls boot_mb_plan before the half measures (everything is validated and
 * placed by then) and boot_mb_start after.
 */
#ifndef COMMON_BOOT_MB_H
#define COMMON_BOOT_MB_H

#include <stdbool.h>

#include "boot/bootinfo.h"
#include "mem/e820.h"
#include "mem/place.h"

/*
 * False if module 0 is a Linux bzImage (or there is no module): boot.c boots Linux. True if it
 * is a multiboot ELF kernel, now validated and planned: modules moved where they had to go,
 * vtboot's region unusable in *final_map, the boot information built. Anything else (module
 * 0 of no known kind, a malformed ELF, a segment over vtboot, a module or non-RAM) halts with
 * the reason: fatal under every policy, as tboot's failed launch_kernel is.
 */
bool boot_mb_plan(struct boot_info *bi, struct e820_map *final_map, const struct mem_range *own,
                  unsigned nown);

/* Loads the segments and jumps, in the state multiboot requires. */
__attribute__((noreturn)) void boot_mb_start(const struct boot_info *bi);

#endif
