/* SPDX-License-Identifier: MIT */
/* Messages on stderr, each prefixed with the tool's name. */
#ifndef HOST_LOG_H
#define HOST_LOG_H

extern const char *log_prog;    /* set by each tool's main() */
extern int log_verbose;         /* -v */

void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* log_err() with ": strerror(errno)" appended */
void log_perr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
