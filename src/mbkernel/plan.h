/* SPDX-License-Identifier: MIT */
/*
 * Where a multiboot ELF kernel goes, and what must move out of its way, decided before
 * anything is copied: every segment in RAM and clear of vtboot's memory; every module that
 * lies where a segment goes, or that is not page-aligned (Xen refuses those; multiboot kernels
 * ask for aligned modules), moved to the highest free page-aligned RAM below 4 GiB, as the
 * Linux path moves modules out of a fixed kernel's way. Also the kernel's command line: its
 * module string with tboot's " tboot=0x<shared page>".
 */
#ifndef MBKERNEL_PLAN_H
#define MBKERNEL_PLAN_H

#include <stdint.h>

#include "boot/bootinfo.h"
#include "mbkernel/elf.h"
#include "mem/e820.h"
#include "mem/place.h"

#define MBK_CMDLINE_MAX 1024u        /* tboot's TBOOT_KERNEL_CMDLINE_SIZE, with the NUL */
#define MBK_PAGE 0x1000u

struct mbk_move {
    unsigned module;
    uint32_t to;
};

struct mbk_plan {
    uint32_t entry;                  /* physical, inside a segment's file bytes */
    unsigned nr_moves;               /* done first, in order; destinations overlap nothing */
    struct mbk_move moves[BOOT_MAX_MODULES];
};

/*
 * e: the parsed ELF (module 0); entry: where to jump (the ELF's, or a multiboot2 entry
 * address tag's); map: the loader's memory map; own: vtboot's ranges; mods: the modules'
 * current ranges (mods[0] is the ELF file itself, which may have to move too: segments are
 * copied from it after the moves). -1 with a reason in err.
 */
int mbk_plan(const struct elf_image *e, uint32_t entry, const struct e820_map *map,
             const struct mem_range *own, unsigned nown, const struct mem_range *mods,
             unsigned nmods, struct mbk_plan *p, char *err, unsigned errlen);

/* dst = modstr + " tboot=0x<shared page in lowercase hex>" (tboot 1.10's adjust_kernel_cmdline
 * format, "%s tboot=%p"); -1 with a reason if it does not fit in MBK_CMDLINE_MAX bytes. */
int mbk_cmdline(char *dst, const char *modstr, uint32_t shared_page, char *err, unsigned errlen);

#endif
