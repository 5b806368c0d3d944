/* SPDX-License-Identifier: MIT */
/*
 * tboot's memory log (tboot 1.10 include/tboot.h, tboot_log_t; not packed, natural alignment),
 * found by txt-stat at the fixed physical address 0x60000 by its UUID. The text follows the
 * header; with zip_count == 0 the readable text is buf[0 .. curr_pos).
 */
#ifndef ABI_TBOOT_LOG_H
#define ABI_TBOOT_LOG_H

#include <stdint.h>
#include <stddef.h>

/* {C0192526-6B30-4db4-844C-A3E953B88174} */
#define TBOOT_LOG_UUID_BYTES \
    { 0x26, 0x25, 0x19, 0xc0, 0x30, 0x6b, 0xb4, 0x4d, \
      0x4c, 0x84, 0xa3, 0xe9, 0x53, 0xb8, 0x81, 0x74 }

#define TBOOT_LOG_ADDR 0x60000u       /* TBOOT_SERIAL_LOG_ADDR */
#define TBOOT_LOG_SIZE 0x8000u        /* TBOOT_SERIAL_LOG_SIZE */
#define TBOOT_LOG_ZIP_COUNT_MAX 10u

struct tboot_log {
    uint8_t uuid[16];
    uint16_t max_size;                /* bytes of buf */
    uint16_t curr_pos;                /* bytes of buf used */
    uint16_t zip_pos[TBOOT_LOG_ZIP_COUNT_MAX];
    uint16_t zip_size[TBOOT_LOG_ZIP_COUNT_MAX];
    uint8_t zip_count;
    char buf[];
};

_Static_assert(offsetof(struct tboot_log, max_size) == 16, "max_size");
_Static_assert(offsetof(struct tboot_log, curr_pos) == 18, "curr_pos");
_Static_assert(offsetof(struct tboot_log, zip_pos) == 20, "zip_pos");
_Static_assert(offsetof(struct tboot_log, zip_size) == 40, "zip_size");
_Static_assert(offsetof(struct tboot_log, zip_count) == 60, "zip_count");
_Static_assert(offsetof(struct tboot_log, buf) == 61, "buf");
_Static_assert(sizeof(struct tboot_log) == 62, "tboot_log_t size (trailing padding)");
/* tboot sets max_size = TBOOT_SERIAL_LOG_SIZE - sizeof(tboot_log_t) = 32706; txt-stat shows it. */
#define TBOOT_LOG_MAX_SIZE (TBOOT_LOG_SIZE - sizeof(struct tboot_log))

#endif
