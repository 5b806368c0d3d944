/* SPDX-License-Identifier: MIT */
/* Unix-domain stream sockets. All descriptors are close-on-exec. */
#ifndef HOST_SOCK_H
#define HOST_SOCK_H

#include <stddef.h>

/* Length limit of a socket path (sun_path minus its NUL). */
#define SOCK_PATH_MAX 107

/* Binds and listens on path (removed first if it exists). -1 with a message on error. */
int sock_listen(const char *path);
/* accept4 with SOCK_CLOEXEC|SOCK_NONBLOCK; -1 if nothing pending */
int sock_accept(int lfd);
/* Blocking connect; -1 on error (errno set). */
int sock_connect(const char *path);
/* socketpair(AF_UNIX, SOCK_STREAM) with close-on-exec on both ends */
int sock_pair(int sv[2]);
/* Writes all of data to a non-blocking fd, waiting for room up to timeout_ms in all: 0, or -1
 * (an error, or the time is up) */
int sock_write_all(int fd, const void *data, size_t len, int timeout_ms);

#endif
