/* SPDX-License-Identifier: MIT */
/* printk's console as a test sees it: everything printed since the last console_capture_clear. */
#ifndef TESTS_CONSOLE_CAPTURE_H
#define TESTS_CONSOLE_CAPTURE_H

#include <stddef.h>

extern char console_text[8192];      /* NUL-terminated */
extern size_t console_len;

/* The sink, for printk_set_console. */
void console_capture(const char *s, size_t len);
/* Empties the capture and makes it printk's console. */
void console_capture_clear(void);

#endif
