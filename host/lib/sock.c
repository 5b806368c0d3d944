/* SPDX-License-Identifier: MIT */
#include "sock.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int fill_addr(struct sockaddr_un *sa, const char *path)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    if (strlen(path) > SOCK_PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sa->sun_path, path);
    return 0;
}

int sock_listen(const char *path)
{
    struct sockaddr_un sa;
    int fd;

    if (fill_addr(&sa, path) != 0) {
        log_perr("socket path %s", path);
        return -1;
    }
    /* non-blocking: accept() must never wait */
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        log_perr("socket");
        return -1;
    }
    unlink(path);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 4) != 0) {
        log_perr("listen on %s", path);
        close(fd);
        return -1;
    }
    return fd;
}

int sock_accept(int lfd)
{
    int fd;

    do {
        fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

int sock_connect(const char *path)
{
    struct sockaddr_un sa;
    int fd;

    if (fill_addr(&sa, path) != 0)
        return -1;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        int e = errno;

        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int sock_pair(int sv[2])
{
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
}

int sock_write_all(int fd, const void *data, size_t len, int timeout_ms)
{
    const uint8_t *p = data;
    int64_t end = now_ms() + timeout_ms;

    while (len) {
        ssize_t n = write(fd, p, len);

        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR) && now_ms() < end) {
            struct pollfd q = { fd, POLLOUT, 0 };

            poll(&q, 1, 50);
        } else {
            return -1;
        }
    }
    return 0;
}
