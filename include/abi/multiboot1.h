/* SPDX-License-Identifier: MIT */
/* Multiboot Specification 0.6.96: the OS image header and the boot information a loader passes. */
#ifndef ABI_MULTIBOOT1_H
#define ABI_MULTIBOOT1_H


#define MB1_HEADER_MAGIC 0x1badb002
#define MB1_BOOTLOADER_MAGIC 0x2badb002
#define MB1_HEADER_SEARCH 8192          /* header must lie in the first 8 KiB, 4-aligned */

/* header flags */
#define MB1_HF_PAGE_ALIGN (1 << 0)      /* modules page aligned */
#define MB1_HF_MEMORY_INFO (1 << 1)     /* mem_* and mmap_* wanted */

/* info flags */
#define MB1_INFO_MEMORY (1 << 0)
#define MB1_INFO_BOOTDEV (1 << 1)
#define MB1_INFO_CMDLINE (1 << 2)
#define MB1_INFO_MODS (1 << 3)
#define MB1_INFO_AOUT_SYMS (1 << 4)
#define MB1_INFO_ELF_SHDR (1 << 5)
#define MB1_INFO_MEM_MAP (1 << 6)
#define MB1_INFO_LOADER_NAME (1 << 9)

#ifndef __ASSEMBLY__
#include <stdint.h>
#include <stddef.h>

struct mb1_header {
    uint32_t magic;
    uint32_t flags;
    uint32_t checksum;
} __attribute__((packed));

struct mb1_info {
    uint32_t flags;
    uint32_t mem_lower;
    uint32_t mem_upper;
    uint32_t boot_device;
    uint32_t cmdline;
    uint32_t mods_count;
    uint32_t mods_addr;
    uint32_t syms[4];
    uint32_t mmap_length;
    uint32_t mmap_addr;
    uint32_t drives_length;
    uint32_t drives_addr;
    uint32_t config_table;
    uint32_t boot_loader_name;
    uint32_t apm_table;
} __attribute__((packed));

struct mb1_module {
    uint32_t mod_start;
    uint32_t mod_end;        /* exclusive */
    uint32_t string;
    uint32_t reserved;
} __attribute__((packed));

/* mmap entries: `size` does not count itself; the next entry starts size + 4 bytes later. */
struct mb1_mmap_entry {
    uint32_t size;
    uint64_t addr;
    uint64_t len;
    uint32_t type;
} __attribute__((packed));

_Static_assert(sizeof(struct mb1_info) == 72, "mb1 info");
_Static_assert(offsetof(struct mb1_info, mmap_length) == 44, "mmap_length");
_Static_assert(offsetof(struct mb1_info, boot_loader_name) == 64, "boot_loader_name");
_Static_assert(sizeof(struct mb1_module) == 16, "mb1 module");
_Static_assert(sizeof(struct mb1_mmap_entry) == 24, "mb1 mmap entry");

#endif /* __ASSEMBLY__ */

#endif
