/* SPDX-License-Identifier: MIT */
/*
 * The memory log in tboot's tboot_log_t format. Text is appended uncompressed (zip_count 0);
 * when the buffer is full, later text is dropped and the last line says so, so the beginning of
 * the boot (banner, measurements, verdicts) is always kept.
 *
 * The log's header lies in memory the kernel and anyone who writes RAM (while the machine runs
 * or sleeps) can change, so every function takes the size of the region the log was formatted
 * in and checks the header against it before it trusts a field.
 */
#ifndef LOG_MEMLOG_H
#define LOG_MEMLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/tboot_log.h"

/* Formats a fresh log in the `size` bytes at mem (size >= sizeof(struct tboot_log) + 64). */
struct tboot_log *memlog_init(void *mem, size_t size);

/* True if the log in its `size`-byte region is one vtboot can append to: the UUID, room for
 * the full note, max_size within the region, curr_pos within max_size, no compressed parts. */
bool memlog_valid(const struct tboot_log *log, size_t size);

/* Appends text to the log in its `size`-byte region; returns the number of bytes stored. A
 * header that is not valid is formatted again first (the log starts over and says why). */
size_t memlog_append(struct tboot_log *log, size_t size, const char *text, size_t len);

/* Moves the log from its `from_size`-byte region to `size` bytes at `to`, where its capacity
 * becomes what fits; NULL if its header is not valid or its capacity does not fit there. */
struct tboot_log *memlog_move(const struct tboot_log *from, size_t from_size, void *to,
                              size_t size);

#endif
