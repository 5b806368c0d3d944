/* SPDX-License-Identifier: MIT */
/*
 * A small printf-style formatter for the pre-kernel, also used on the host so tests see the same
 * output. Conversions: %% %c %s %d %i %u %x %X %p, length modifiers hh h l ll z, flags '-' '0',
 * field width and precision (also '*'). Unknown conversions are printed literally.
 */
#ifndef LIB_FORMAT_H
#define LIB_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/* Like vsnprintf: returns the length the full output would have; always terminates if size > 0. */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
