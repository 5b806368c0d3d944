/* SPDX-License-Identifier: MIT */
/*
 * What a multiboot loader reads from the kernel it loads, and the few boot-information pieces
 * vtboot adds when it loads one (Xen) itself, beyond abi/multiboot1.h and abi/multiboot2.h:
 * Multiboot Specification 0.6.96 §3.1 (the multiboot1 header flags) and Multiboot2
 * Specification 2.0 §3.1 (header tags) and §3.6 (the load base address tag).
 */
#ifndef ABI_MULTIBOOT_KERNEL_H
#define ABI_MULTIBOOT_KERNEL_H

/* multiboot1 header flags: bits 0-15 are requirements, 16-31 optional features */
#define MB1_HF_VIDEO_MODE (1u << 2)     /* the video mode table is wanted */
#define MB1_HF_AOUT_KLUDGE (1u << 16)   /* load by the header's address fields, not the ELF */
#define MB1_HF_REQUIRED_MASK 0xffffu

/* multiboot2 header tag types (MB2_HTAG_END, _INFO_REQUEST, _MODULE_ALIGN in multiboot2.h) */
#define MB2_HTAG_ADDRESS 2
#define MB2_HTAG_ENTRY_ADDRESS 3
#define MB2_HTAG_CONSOLE_FLAGS 4
#define MB2_HTAG_FRAMEBUFFER 5
#define MB2_HTAG_EFI_BS 7
#define MB2_HTAG_ENTRY_ADDRESS_EFI32 8
#define MB2_HTAG_ENTRY_ADDRESS_EFI64 9
#define MB2_HTAG_RELOCATABLE 10

#define MB2_HEADER_ALIGN 8

/* multiboot2 information tag: the physical address the image was loaded at */
#define MB2_TAG_LOAD_BASE_ADDR 21

#ifndef __ASSEMBLY__
#include <stddef.h>
#include <stdint.h>

/* the multiboot1 header's address fields (flag 16) and video fields (flag 2) follow the
 * three words of struct mb1_header */
struct mb1_header_full {
    uint32_t magic;
    uint32_t flags;
    uint32_t checksum;
    uint32_t header_addr;
    uint32_t load_addr;
    uint32_t load_end_addr;
    uint32_t bss_end_addr;
    uint32_t entry_addr;
    uint32_t mode_type;
    uint32_t width;
    uint32_t height;
    uint32_t depth;
} __attribute__((packed));

struct mb2_header_tag_entry {    /* MB2_HTAG_ENTRY_ADDRESS */
    uint16_t type;
    uint16_t flags;
    uint32_t size;
    uint32_t entry_addr;
} __attribute__((packed));

struct mb2_tag_load_base_addr {
    uint32_t type;
    uint32_t size;
    uint32_t load_base_addr;
} __attribute__((packed));

_Static_assert(sizeof(struct mb1_header_full) == 48, "mb1 header with address and video fields");
_Static_assert(offsetof(struct mb1_header_full, entry_addr) == 28, "mb1 entry_addr");
_Static_assert(sizeof(struct mb2_header_tag_entry) == 12, "mb2 entry address header tag");
_Static_assert(sizeof(struct mb2_tag_load_base_addr) == 12, "mb2 load base address tag");

#endif /* __ASSEMBLY__ */

#endif
