/* SPDX-License-Identifier: MIT */
/*
 * What vtboot keeps of the loader's boot information, in its own memory: the loader's
 * structures may lie where the kernel will go, so everything is copied out and validated
 * once, up front. Both multiboot1 and multiboot2 are reduced to this.
 */
#ifndef BOOT_BOOTINFO_H
#define BOOT_BOOTINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/e820.h"

#define BOOT_MAX_MODULES 16u
#define BOOT_CMDLINE_MAX 1024u       /* vtboot's own command line */
#define BOOT_MODSTR_MAX 4096u        /* one module string (a kernel command line) */
#define BOOT_STRPOOL_SIZE 16384u
#define BOOT_LOADER_NAME_MAX 64u
#define BOOT_RSDP_MAX 36u            /* ACPI 2.0 RSDP */

enum boot_protocol {
    BOOT_MULTIBOOT1 = 1,
    BOOT_MULTIBOOT2 = 2,
};

struct boot_module {
    uint32_t start;
    uint32_t end;                    /* exclusive */
    const char *string;              /* in boot_info.strpool, verbatim as the loader gave it */
};

struct boot_info {
    enum boot_protocol protocol;
    uint32_t info_addr;              /* the loader's structure, for overlap checks */
    uint32_t info_size;
    char cmdline[BOOT_CMDLINE_MAX];
    char loader_name[BOOT_LOADER_NAME_MAX];
    unsigned nr_modules;
    struct boot_module modules[BOOT_MAX_MODULES];
    struct e820_map mmap;            /* as the loader reported it, sanitised */
    unsigned mmap_loader_nr;         /* entries the loader gave */
    bool mmap_was_sanitised;         /* they were unsorted or overlapping */
    bool have_meminfo;
    uint32_t mem_lower_kb;
    uint32_t mem_upper_kb;
    unsigned rsdp_len;               /* 0: the loader gave no RSDP copy */
    uint8_t rsdp[BOOT_RSDP_MAX];
    unsigned strpool_used;
    char strpool[BOOT_STRPOOL_SIZE];
};

/*
 * Parses the loader's information for `magic` (the EAX value at entry) at physical address
 * `addr`. Returns 0, or -1 with a one-line reason in err.
 */
int bootinfo_parse(uint32_t magic, uint32_t addr, struct boot_info *bi, char *err, unsigned errlen);

#endif
