/* SPDX-License-Identifier: MIT */
/*
 * Where a Linux kernel and its initrd go, and the zero page that tells the kernel about them.
 * The plan never places anything over vtboot, its logs, a module or non-RAM.
 */
#ifndef LINUX_LOADER_H
#define LINUX_LOADER_H

#include <stdint.h>

#include "abi/bootparam.h"
#include "linux/bzimage.h"
#include "mem/e820.h"
#include "mem/place.h"

#define LINUX_MAX_MOVES 16u

/* A movable busy range that must leave the way of a kernel that cannot be relocated. */
struct module_move {
    unsigned busy_index;
    uint32_t to;
};

struct linux_plan {
    uint32_t kernel_load;            /* where the protected-mode part is copied; the entry */
    uint32_t kernel_mem;             /* start of the init_size bytes the kernel decompresses into */
    uint32_t initrd_addr;
    uint32_t initrd_size;
    unsigned nr_moves;               /* done first, in order; destinations overlap nothing */
    struct module_move moves[LINUX_MAX_MOVES];
};

/*
 * Plans the kernel (and, if initrd_size, the initrd now at initrd_at) into `map`, avoiding
 * `busy` (which must include the modules' current locations). The last nr_movable entries of
 * busy are modules: a non-relocatable kernel's fixed ranges may overlap those only, and the
 * plan moves them away (as tboot's move_modules does). -1 with a reason in err.
 */
int linux_plan(const struct bzimage *bz, const struct e820_map *map, const struct mem_range *busy,
               unsigned nbusy, unsigned nr_movable, uint32_t initrd_at, uint32_t initrd_size,
               struct linux_plan *plan, char *err, unsigned errlen);

struct linux_boot_args {
    uint32_t cmdline_addr;
    uint64_t tboot_addr;             /* 0: not tboot-enabled */
    uint64_t acpi_rsdp_addr;         /* 0: the kernel finds it itself */
};

/* Builds the zero page; -1 if the memory map does not fit the zero page. */
int linux_build_boot_params(struct boot_params *bp, const struct bzimage *bz,
                            const struct linux_plan *plan, const struct e820_map *map,
                            const struct linux_boot_args *args);

#endif
