/* SPDX-License-Identifier: MIT */
/*
 * The memory log in tboot's tboot_log_t format. Text is appended uncompressed (zip_count 0);
 * when the buffer is full, later text is dropped and the last line says so, so the beginning of
 * the boot (banner, measurements, verdicts) is always kept.
 */
#ifndef LOG_MEMLOG_H
#define LOG_MEMLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/tboot_log.h"

/* Formats a fresh log in the `size` bytes at mem (size >= sizeof(struct tboot_log) + 64). */
struct tboot_log *memlog_init(void *mem, size_t size);

/* Appends text; returns the number of bytes stored. */
size_t memlog_append(struct tboot_log *log, const char *text, size_t len);

/* True if log is a tboot log vtboot can append to (UUID, sizes within a 0x8000 log). */
bool memlog_valid(const struct tboot_log *log);

/* Moves the log to `size` bytes at `to`, where its capacity becomes what fits; NULL if its
 * present capacity does not fit there. */
struct tboot_log *memlog_move(const struct tboot_log *from, void *to, size_t size);

#endif
