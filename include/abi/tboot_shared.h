/* SPDX-License-Identifier: MIT */
/*
 * The tboot shared page: the contract between a tboot-compatible pre-kernel and Linux.
 * Layout as Linux 6.1 declares it (include/linux/tboot.h, struct tboot, packed) plus the
 * tboot v6 tail (flags, ap_wake_addr, ap_wake_trigger) that tboot 1.10 writes and Linux ignores.
 * Linux finds the page through boot_params.tboot_addr (zero page offset 0x058).
 */
#ifndef ABI_TBOOT_SHARED_H
#define ABI_TBOOT_SHARED_H

#include <stdint.h>
#include <stddef.h>

/* {663C8DFF-E8B3-4b82-AABF-19EA4D057A08}, stored as a little-endian GUID. */
#define TBOOT_SHARED_UUID_BYTES \
    { 0xff, 0x8d, 0x3c, 0x66, 0xb3, 0xe8, 0x82, 0x4b, \
      0xbf, 0xaa, 0x19, 0xea, 0x4d, 0x05, 0x7a, 0x08 }

#define TBOOT_SHARED_VERSION 6u      /* what tboot 1.10 writes; Linux 6.1 needs >= 5 */
#define TBOOT_MAX_MAC_REGIONS 32u
#define TBOOT_S3_KEY_SIZE 64u

/* shutdown_type values; Linux: "must have the values from 0-5 in this order". */
enum tboot_shutdown_type {
    TB_SHUTDOWN_REBOOT = 0,
    TB_SHUTDOWN_S5 = 1,
    TB_SHUTDOWN_S4 = 2,
    TB_SHUTDOWN_S3 = 3,
    TB_SHUTDOWN_HALT = 4,
    TB_SHUTDOWN_WFS = 5,
};

#define TB_FLAG_AP_WAKE_SUPPORT 0x1u
#define TB_AP_WAKE_TRIGGER_DEF 0xffffffffu

/* ACPI Generic Address Structure as the kernel copies it from the FADT. */
struct tboot_acpi_gas {
    uint8_t space_id;
    uint8_t bit_width;
    uint8_t bit_offset;
    uint8_t access_width;
    uint64_t address;
} __attribute__((packed));

struct tboot_acpi_sleep_info {
    struct tboot_acpi_gas pm1a_cnt_blk;
    struct tboot_acpi_gas pm1b_cnt_blk;
    struct tboot_acpi_gas pm1a_evt_blk;
    struct tboot_acpi_gas pm1b_evt_blk;
    uint16_t pm1a_cnt_val;
    uint16_t pm1b_cnt_val;
    uint64_t wakeup_vector;           /* phys address of FACS.firmware_waking_vector */
    uint32_t vector_width;
    uint64_t kernel_s3_resume_vector;
} __attribute__((packed));

struct tboot_mac_region {
    uint64_t start;
    uint32_t size;
} __attribute__((packed));

struct tboot_shared {
    uint8_t uuid[16];
    uint32_t version;
    uint32_t log_addr;
    uint32_t shutdown_entry;
    uint32_t shutdown_type;
    struct tboot_acpi_sleep_info acpi_sinfo;
    uint32_t tboot_base;
    uint32_t tboot_size;
    uint8_t num_mac_regions;
    struct tboot_mac_region mac_regions[TBOOT_MAX_MAC_REGIONS];
    uint8_t s3_key[TBOOT_S3_KEY_SIZE];
    uint8_t reserved_align[3];
    uint32_t num_in_wfs;
    /* v6; not declared by Linux 6.1 */
    uint32_t flags;
    uint64_t ap_wake_addr;
    uint32_t ap_wake_trigger;
} __attribute__((packed));

#define TBOOT_SHARED_LINUX61_SIZE 568u  /* sizeof(struct tboot) in Linux 6.1 */

_Static_assert(sizeof(struct tboot_acpi_gas) == 12, "GAS size");
_Static_assert(sizeof(struct tboot_acpi_sleep_info) == 72, "acpi_sinfo size");
_Static_assert(sizeof(struct tboot_mac_region) == 12, "mac region size");
_Static_assert(offsetof(struct tboot_acpi_sleep_info, pm1b_cnt_blk) == 12, "pm1b_cnt_blk");
_Static_assert(offsetof(struct tboot_acpi_sleep_info, pm1a_evt_blk) == 24, "pm1a_evt_blk");
_Static_assert(offsetof(struct tboot_acpi_sleep_info, pm1b_evt_blk) == 36, "pm1b_evt_blk");
_Static_assert(offsetof(struct tboot_acpi_sleep_info, pm1a_cnt_val) == 48, "pm1a_cnt_val");
_Static_assert(offsetof(struct tboot_acpi_sleep_info, pm1b_cnt_val) == 50, "pm1b_cnt_val");
_Static_assert(offsetof(struct tboot_acpi_sleep_info, wakeup_vector) == 52, "wakeup_vector");
_Static_assert(offsetof(struct tboot_acpi_sleep_info, vector_width) == 60, "vector_width");
_Static_assert(offsetof(struct tboot_acpi_sleep_info, kernel_s3_resume_vector) == 64, "resume vector");
_Static_assert(offsetof(struct tboot_shared, uuid) == 0x000, "uuid");
_Static_assert(offsetof(struct tboot_shared, version) == 0x010, "version");
_Static_assert(offsetof(struct tboot_shared, log_addr) == 0x014, "log_addr");
_Static_assert(offsetof(struct tboot_shared, shutdown_entry) == 0x018, "shutdown_entry");
_Static_assert(offsetof(struct tboot_shared, shutdown_type) == 0x01c, "shutdown_type");
_Static_assert(offsetof(struct tboot_shared, acpi_sinfo) == 0x020, "acpi_sinfo");
_Static_assert(offsetof(struct tboot_shared, tboot_base) == 0x068, "tboot_base");
_Static_assert(offsetof(struct tboot_shared, tboot_size) == 0x06c, "tboot_size");
_Static_assert(offsetof(struct tboot_shared, num_mac_regions) == 0x070, "num_mac_regions");
_Static_assert(offsetof(struct tboot_shared, mac_regions) == 0x071, "mac_regions");
_Static_assert(offsetof(struct tboot_shared, s3_key) == 0x1f1, "s3_key");
_Static_assert(offsetof(struct tboot_shared, reserved_align) == 0x231, "reserved_align");
_Static_assert(offsetof(struct tboot_shared, num_in_wfs) == 0x234, "num_in_wfs");
_Static_assert(offsetof(struct tboot_shared, flags) == TBOOT_SHARED_LINUX61_SIZE, "flags");
_Static_assert(offsetof(struct tboot_shared, ap_wake_addr) == 0x23c, "ap_wake_addr");
_Static_assert(offsetof(struct tboot_shared, ap_wake_trigger) == 0x244, "ap_wake_trigger");
_Static_assert(sizeof(struct tboot_shared) == 0x248, "struct tboot_shared size");

#endif
