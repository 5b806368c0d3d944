/* SPDX-License-Identifier: MIT */
/*
 * The x86 Linux boot protocol (Documentation/x86/boot.rst, zero-page.rst, Linux 6.1):
 * the bzImage setup header at file offset 0x1f1 and the zero page (struct boot_params)
 * that a 32-bit boot protocol loader hands the kernel in %esi.
 */
#ifndef ABI_BOOTPARAM_H
#define ABI_BOOTPARAM_H

#include <stdint.h>
#include <stddef.h>

#define SETUP_HEADER_OFFSET 0x1f1u
#define SETUP_HDRS_MAGIC 0x53726448u        /* "HdrS" */
#define SETUP_BOOT_FLAG 0xaa55u
#define SETUP_SECTS_DEFAULT 4u              /* setup_sects == 0 means 4 */
#define SETUP_SECTOR_SIZE 512u

/* loadflags */
#define BP_LOADED_HIGH (1u << 0)
#define BP_KASLR_FLAG (1u << 1)
#define BP_KEEP_SEGMENTS (1u << 6)
#define BP_CAN_USE_HEAP (1u << 7)

/* xloadflags */
#define BP_XLF_KERNEL_64 (1u << 0)
#define BP_XLF_CAN_BE_LOADED_ABOVE_4G (1u << 1)

#define BP_TYPE_OF_LOADER_UNDEFINED 0xffu   /* "no assigned id" */
#define BP_VID_MODE_NORMAL 0xffffu

struct setup_header {
    uint8_t setup_sects;
    uint16_t root_flags;
    uint32_t syssize;
    uint16_t ram_size;
    uint16_t vid_mode;
    uint16_t root_dev;
    uint16_t boot_flag;
    uint16_t jump;
    uint32_t header;
    uint16_t version;
    uint32_t realmode_swtch;
    uint16_t start_sys_seg;
    uint16_t kernel_version;
    uint8_t type_of_loader;
    uint8_t loadflags;
    uint16_t setup_move_size;
    uint32_t code32_start;
    uint32_t ramdisk_image;
    uint32_t ramdisk_size;
    uint32_t bootsect_kludge;
    uint16_t heap_end_ptr;
    uint8_t ext_loader_ver;
    uint8_t ext_loader_type;
    uint32_t cmd_line_ptr;
    uint32_t initrd_addr_max;
    uint32_t kernel_alignment;
    uint8_t relocatable_kernel;
    uint8_t min_alignment;
    uint16_t xloadflags;
    uint32_t cmdline_size;
    uint32_t hardware_subarch;
    uint64_t hardware_subarch_data;
    uint32_t payload_offset;
    uint32_t payload_length;
    uint64_t setup_data;
    uint64_t pref_address;
    uint32_t init_size;
    uint32_t handover_offset;
    uint32_t kernel_info_offset;
} __attribute__((packed));

#define BP_E820_MAX_ENTRIES 128u

struct boot_e820_entry {
    uint64_t addr;
    uint64_t size;
    uint32_t type;
} __attribute__((packed));

/* The subset of struct screen_info a text-mode loader fills (Linux include/uapi/linux/screen_info.h). */
struct bp_screen_info {
    uint8_t orig_x;
    uint8_t orig_y;
    uint16_t ext_mem_k;
    uint16_t orig_video_page;
    uint8_t orig_video_mode;
    uint8_t orig_video_cols;
    uint8_t flags;
    uint8_t unused2;
    uint16_t orig_video_ega_bx;
    uint16_t unused3;
    uint8_t orig_video_lines;
    uint8_t orig_video_is_vga;
    uint16_t orig_video_points;
    uint8_t rest[0x40 - 0x12];
} __attribute__((packed));

struct boot_params {
    struct bp_screen_info screen_info;       /* 0x000 */
    uint8_t apm_bios_info[0x14];             /* 0x040 */
    uint8_t pad2[4];                         /* 0x054 */
    uint64_t tboot_addr;                     /* 0x058 */
    uint8_t ist_info[0x10];                  /* 0x060 */
    uint64_t acpi_rsdp_addr;                 /* 0x070 */
    uint8_t pad3[8];                         /* 0x078 */
    uint8_t hd_info[0x20];                   /* 0x080 */
    uint8_t sys_desc_table[0x10];            /* 0x0a0 */
    uint8_t olpc_ofw_header[0x10];           /* 0x0b0 */
    uint32_t ext_ramdisk_image;              /* 0x0c0 */
    uint32_t ext_ramdisk_size;               /* 0x0c4 */
    uint32_t ext_cmd_line_ptr;               /* 0x0c8 */
    uint8_t pad4[0x1e8 - 0x0cc];             /* 0x0cc: cc_blob, edid, efi_info, alt_mem_k, scratch */
    uint8_t e820_entries;                    /* 0x1e8 */
    uint8_t eddbuf_entries;                  /* 0x1e9 */
    uint8_t edd_mbr_sig_buf_entries;         /* 0x1ea */
    uint8_t kbd_status;                      /* 0x1eb */
    uint8_t secure_boot;                     /* 0x1ec */
    uint8_t pad5[2];                         /* 0x1ed */
    uint8_t sentinel;                        /* 0x1ef */
    uint8_t pad6[1];                         /* 0x1f0 */
    struct setup_header hdr;                 /* 0x1f1 */
    uint8_t pad7[0x2d0 - 0x1f1 - sizeof(struct setup_header)]; /* incl. edd_mbr_sig_buffer */
    struct boot_e820_entry e820_table[BP_E820_MAX_ENTRIES];      /* 0x2d0 */
    uint8_t pad8[0x1000 - 0xcd0];            /* 0xcd0: eddbuf and padding */
} __attribute__((packed));

_Static_assert(sizeof(struct setup_header) == 0x7b, "setup_header size (Linux 6.1)");
_Static_assert(offsetof(struct setup_header, header) == 0x202 - SETUP_HEADER_OFFSET, "HdrS");
_Static_assert(offsetof(struct setup_header, version) == 0x206 - SETUP_HEADER_OFFSET, "version");
_Static_assert(offsetof(struct setup_header, type_of_loader) == 0x210 - SETUP_HEADER_OFFSET, "loader");
_Static_assert(offsetof(struct setup_header, loadflags) == 0x211 - SETUP_HEADER_OFFSET, "loadflags");
_Static_assert(offsetof(struct setup_header, code32_start) == 0x214 - SETUP_HEADER_OFFSET, "code32");
_Static_assert(offsetof(struct setup_header, ramdisk_image) == 0x218 - SETUP_HEADER_OFFSET, "ramdisk");
_Static_assert(offsetof(struct setup_header, cmd_line_ptr) == 0x228 - SETUP_HEADER_OFFSET, "cmdline");
_Static_assert(offsetof(struct setup_header, initrd_addr_max) == 0x22c - SETUP_HEADER_OFFSET, "max");
_Static_assert(offsetof(struct setup_header, kernel_alignment) == 0x230 - SETUP_HEADER_OFFSET, "align");
_Static_assert(offsetof(struct setup_header, relocatable_kernel) == 0x234 - SETUP_HEADER_OFFSET, "reloc");
_Static_assert(offsetof(struct setup_header, xloadflags) == 0x236 - SETUP_HEADER_OFFSET, "xlf");
_Static_assert(offsetof(struct setup_header, cmdline_size) == 0x238 - SETUP_HEADER_OFFSET, "cmdsz");
_Static_assert(offsetof(struct setup_header, setup_data) == 0x250 - SETUP_HEADER_OFFSET, "setup_data");
_Static_assert(offsetof(struct setup_header, pref_address) == 0x258 - SETUP_HEADER_OFFSET, "pref");
_Static_assert(offsetof(struct setup_header, init_size) == 0x260 - SETUP_HEADER_OFFSET, "init_size");
_Static_assert(offsetof(struct setup_header, kernel_info_offset) == 0x268 - SETUP_HEADER_OFFSET, "kinfo");
_Static_assert(sizeof(struct bp_screen_info) == 0x40, "screen_info");
_Static_assert(offsetof(struct bp_screen_info, orig_video_mode) == 0x06, "video mode");
_Static_assert(offsetof(struct bp_screen_info, orig_video_lines) == 0x0e, "video lines");
_Static_assert(offsetof(struct bp_screen_info, orig_video_points) == 0x10, "video points");
_Static_assert(offsetof(struct boot_params, tboot_addr) == 0x058, "tboot_addr");
_Static_assert(offsetof(struct boot_params, acpi_rsdp_addr) == 0x070, "acpi_rsdp_addr");
_Static_assert(offsetof(struct boot_params, ext_ramdisk_image) == 0x0c0, "ext_ramdisk_image");
_Static_assert(offsetof(struct boot_params, ext_cmd_line_ptr) == 0x0c8, "ext_cmd_line_ptr");
_Static_assert(offsetof(struct boot_params, e820_entries) == 0x1e8, "e820_entries");
_Static_assert(offsetof(struct boot_params, sentinel) == 0x1ef, "sentinel");
_Static_assert(offsetof(struct boot_params, hdr) == SETUP_HEADER_OFFSET, "hdr");
_Static_assert(offsetof(struct boot_params, e820_table) == 0x2d0, "e820_table");
_Static_assert(sizeof(struct boot_params) == 0x1000, "boot_params is one page");

#endif
