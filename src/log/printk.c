/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/format.h"
#include "lib/string.h"
#include "log/memlog.h"
#include "log/printk.h"

static console_write_fn console;
/* Zero-initialized, as everything writable in vtboot: levels not shown, whether a line is
 * half written. */
static unsigned loglvl_hidden;
static struct tboot_log *memlog;
static size_t memlog_size;           /* of the region it was formatted in */
static bool mid_line;
static const char *line_prefix;      /* NULL: "vtboot: " (the SINIT sets its own) */

void printk_set_console(console_write_fn fn)
{
    console = fn;
}

void printk_set_prefix(const char *prefix)
{
    line_prefix = prefix;
}

void printk_set_loglvl(unsigned mask)
{
    loglvl_hidden = ~mask & LOG_ALL;
}

void printk_set_memlog(struct tboot_log *log, size_t size)
{
    memlog = log;
    memlog_size = log ? size : 0;
}

struct tboot_log *printk_memlog(size_t *size)
{
    if (size)
        *size = memlog_size;
    return memlog;
}

static void emit(bool to_console, const char *s, size_t len)
{
    if (console && to_console)
        console(s, len);
    if (memlog)
        memlog_append(memlog, memlog_size, s, len);
}

/* CPUs parking in wait-for-SIPI print at the same time: one line buffer, one writer. */
static int lock;

/*
 * How long a CPU waits for the lock before it takes it over. Linux counts an offlined CPU dead
 * before that CPU enters shutdown_entry, and may INIT it back while it prints its park line:
 * the lock then stays held for good, and the next printk (the CPU that suspends) spun forever
 * (issue 21's hang). A line takes thousands of iterations of this loop; the bound is 2^26, a
 * fraction of a second even under TCG. What it costs when a holder is only slow: one garbled
 * line, announced by the warning below.
 */
#define LOCK_TAKEOVER_SPINS (1u << 26)

/* true when the lock was taken over from a holder that did not let go */
static bool lock_acquire(void)
{
    uint32_t spins = 0;
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&lock, __ATOMIC_RELAXED))
            if (++spins == LOCK_TAKEOVER_SPINS) {
                __atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE);   /* taken over */
                return true;
            }
    return false;
}

static void lock_release(void)
{
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

void printk_break_lock(void)
{
    lock_release();
}

static void vprintk(bool to_console, unsigned level, const char *fmt, va_list ap)
{
    static char line[512];
    const char *prefix = line_prefix ? line_prefix : "vtboot: ";

    if (loglvl_hidden & level)
        return;
    if (lock_acquire()) {
        static const char taken[] = "WARNING: printk: the lock's holder never let go "
                                    "(a CPU taken back while it printed): taken over\n";
        if (mid_line)
            emit(to_console, "\n", 1);
        emit(to_console, prefix, strlen(prefix));
        emit(to_console, taken, sizeof(taken) - 1);
        mid_line = false;
    }
    int n = fmt_vsnprintf(line, sizeof(line), fmt, ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;

    const char *tag = level == LOG_ERR ? "ERROR: " : level == LOG_WARN ? "WARNING: " : "";
    for (size_t i = 0; i < len;) {
        if (!mid_line) {
            emit(to_console, prefix, strlen(prefix));
            emit(to_console, tag, strlen(tag));
            mid_line = true;
        }
        size_t j = i;
        while (j < len && line[j] != '\n')
            j++;
        if (j < len)
            j++;                     /* include the newline */
        emit(to_console, line + i, j - i);
        if (line[j - 1] == '\n')
            mid_line = false;
        i = j;
    }
    lock_release();
}

void printk(unsigned level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintk(true, level, fmt, ap);
    va_end(ap);
}

void printk_memlog_only(unsigned level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprintk(false, level, fmt, ap);
    va_end(ap);
}
