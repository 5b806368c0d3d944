/* SPDX-License-Identifier: MIT */
/* Small helpers: allocation, paths, files, time. */
#ifndef HOST_UTIL_H
#define HOST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Monotonic clock in milliseconds. */
int64_t now_ms(void);

/* Directory holding the running executable (from /proc/self/exe); NULL on failure. */
char *self_dir(void);
/* Last path component ("a/b/c" -> "c"); never modifies its argument. */
const char *path_base(const char *path);
/* Absolute form of path (relative to the cwd) without resolving symlinks. */
char *path_abs(const char *path);

bool file_readable(const char *path);
/* modification time in ns, -1 if the file does not exist */
int64_t file_mtime_ns(const char *path);
/* Reads a whole file; returns NULL on error (errno set). *len gets its size. */
uint8_t *file_read_all(const char *path, size_t *len, size_t max);
int file_write_all(const char *path, const void *data, size_t len);
int mkdir_p(const char *path, mode_t mode);
/* Recursive removal of a directory tree; does not follow symlinks. */
int rm_rf(const char *path);

/* write(2)/read(2) until done, retrying EINTR; -1 on error or EOF (read). */
int write_full(int fd, const void *buf, size_t len);
int read_full(int fd, void *buf, size_t len);

int fd_set_nonblock(int fd);
int fd_set_cloexec(int fd, bool on);

/* Hex encoding of len bytes into out (2*len+1 bytes). */
void hex_encode(const uint8_t *in, size_t len, char *out);
/* Copies the last `tail` bytes of a file (all of it: 0) to stderr, each line after `prefix`;
 * nothing if it cannot be read. For the output of a tool that failed. */
void show_file(const char *path, const char *prefix, size_t tail);
/* The value of a hex digit (either case), or -1. */
int hex_digit(int c);
/* Formats a reason into err (vsnprintf) and returns -1: `return errorf(err, n, "...", ...);` */
int errorf(char *err, size_t errsz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
