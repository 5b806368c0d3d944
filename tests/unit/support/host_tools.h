/* SPDX-License-Identifier: MIT */
/*
 * Running the host's real tools from a unit test (tb_polgen, tpm2-tools, swtpm): finding them,
 * a scratch directory, files, and running a command with its output captured. No cmocka here.
 */
#ifndef TESTS_HOST_TOOLS_H
#define TESTS_HOST_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The tool's full path (searched in PATH, then /usr/sbin and /sbin, where tb_polgen lives),
 * or NULL. The string is static until the next call. */
const char *tool_path(const char *name);

/* A fresh directory under $TMPDIR (or /tmp); NULL on failure. tmpdir_remove deletes it and
 * everything in it. */
char *tmpdir_create(char *out, size_t cap);
void tmpdir_remove(const char *dir);

/* "dir/name" in one of 8 static buffers used in turn: a call's result stays valid through the
 * next seven calls (enough for one tool's argument list). */
const char *tmpdir_file(const char *dir, const char *name);

/* Writes or reads a whole file; 0 or -1. file_read allocates (caller frees) and NUL-terminates. */
int file_write(const char *path, const void *data, size_t len);
uint8_t *file_read(const char *path, size_t *len);

struct tool_run {
    int status;                      /* exit status, or -1 if it did not run or was killed */
    char out[64 * 1024];             /* stdout, NUL-terminated (truncated to fit) */
    char err[8 * 1024];              /* stderr, likewise */
};

/*
 * Runs argv[0] (a name looked up with tool_path, or a path) with argv, with the extra
 * environment entries env ("NAME=value", NULL-terminated; may be NULL), standard input from
 * /dev/null, killing it after timeout_ms. Returns r->status.
 */
int tool_run(struct tool_run *r, const char *const *argv, const char *const *env,
             unsigned timeout_ms);

#endif
