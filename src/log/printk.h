/* SPDX-License-Identifier: MIT */
/*
 * vtboot's log: every line goes, prefixed "vtboot: ", to the console (serial) and to the tboot
 * memory log (printk_memlog_only: the memory log only), filtered by loglvl. Errors and warnings
 * carry "ERROR: " / "WARNING: ".
 */
#ifndef LOG_PRINTK_H
#define LOG_PRINTK_H

#include <stddef.h>

#include "abi/tboot_log.h"
#include "boot/options.h"

typedef void (*console_write_fn)(const char *s, size_t len);

void printk_set_console(console_write_fn fn);
void printk_set_loglvl(unsigned mask);
/* Each line's first words ("vtboot: " unless set). */
void printk_set_prefix(const char *prefix);
/* The memory log and the size of the region it lives in (NULL: none). */
void printk_set_memlog(struct tboot_log *log, size_t size);
struct tboot_log *printk_memlog(size_t *size);

void printk(unsigned level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * For a CPU that stops while Linux runs on the others and owns the console: its line would
 * interleave with the kernel's on the UART, so it goes to the memory log only.
 */
void printk_memlog_only(unsigned level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* For the exception handler: a fault inside printk must still be reported. */
void printk_break_lock(void);

#define pr_err(...) printk(LOG_ERR, __VA_ARGS__)
#define pr_warn(...) printk(LOG_WARN, __VA_ARGS__)
#define pr_info(...) printk(LOG_INFO, __VA_ARGS__)
#define pr_detail(...) printk(LOG_DETAIL, __VA_ARGS__)

#endif
