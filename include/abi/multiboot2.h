/* SPDX-License-Identifier: MIT */
/* Multiboot2 Specification 2.0: the OS image header and the tagged boot information. */
#ifndef ABI_MULTIBOOT2_H
#define ABI_MULTIBOOT2_H


#define MB2_HEADER_MAGIC 0xe85250d6
#define MB2_BOOTLOADER_MAGIC 0x36d76289
#define MB2_HEADER_SEARCH 32768         /* header must lie in the first 32 KiB, 8-aligned */
#define MB2_ARCH_I386 0
#define MB2_TAG_ALIGN 8

/* header tags */
#define MB2_HTAG_END 0
#define MB2_HTAG_INFO_REQUEST 1
#define MB2_HTAG_MODULE_ALIGN 6
#define MB2_HTAG_OPTIONAL 1             /* flags bit 0 */

/* info tags */
#define MB2_TAG_END 0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_LOADER_NAME 2
#define MB2_TAG_MODULE 3
#define MB2_TAG_BASIC_MEMINFO 4
#define MB2_TAG_BOOTDEV 5
#define MB2_TAG_MMAP 6
#define MB2_TAG_ACPI_OLD 14
#define MB2_TAG_ACPI_NEW 15
#define MB2_TAG_EFI64 12
#define MB2_TAG_EFI32 11
#define MB2_TAG_EFI_BS 18

#ifndef __ASSEMBLY__
#include <stdint.h>
#include <stddef.h>

struct mb2_header {
    uint32_t magic;
    uint32_t architecture;
    uint32_t header_length;
    uint32_t checksum;
} __attribute__((packed));

struct mb2_header_tag {
    uint16_t type;
    uint16_t flags;
    uint32_t size;
} __attribute__((packed));

struct mb2_info_header {
    uint32_t total_size;
    uint32_t reserved;
} __attribute__((packed));

struct mb2_tag {
    uint32_t type;
    uint32_t size;               /* includes this header, excludes padding to 8 */
} __attribute__((packed));

struct mb2_tag_string {          /* cmdline, loader name */
    struct mb2_tag tag;
    char string[];
} __attribute__((packed));

struct mb2_tag_module {
    struct mb2_tag tag;
    uint32_t mod_start;
    uint32_t mod_end;            /* exclusive */
    char string[];
} __attribute__((packed));

struct mb2_tag_basic_meminfo {
    struct mb2_tag tag;
    uint32_t mem_lower;
    uint32_t mem_upper;
} __attribute__((packed));

struct mb2_tag_mmap {
    struct mb2_tag tag;
    uint32_t entry_size;
    uint32_t entry_version;
} __attribute__((packed));

struct mb2_mmap_entry {
    uint64_t addr;
    uint64_t len;
    uint32_t type;
    uint32_t zero;
} __attribute__((packed));

_Static_assert(sizeof(struct mb2_header) == 16, "mb2 header");
_Static_assert(sizeof(struct mb2_tag) == 8, "mb2 tag");
_Static_assert(sizeof(struct mb2_tag_module) == 16, "mb2 module tag");
_Static_assert(sizeof(struct mb2_tag_mmap) == 16, "mb2 mmap tag");
_Static_assert(sizeof(struct mb2_mmap_entry) == 24, "mb2 mmap entry");

#endif /* __ASSEMBLY__ */

#endif
