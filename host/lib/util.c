/* SPDX-License-Identifier: MIT */
#include "util.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void oom(void)
{
    log_err("out of memory");
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    if (!p)
        oom();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        oom();
    return p;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s);

    if (!p)
        oom();
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        oom();
    return s;
}

int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *self_dir(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    char *slash;

    if (n <= 0)
        return NULL;
    buf[n] = 0;
    slash = strrchr(buf, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    return xstrdup(buf[0] ? buf : "/");
}

const char *path_base(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

char *path_abs(const char *path)
{
    char cwd[PATH_MAX];

    if (path[0] == '/')
        return xstrdup(path);
    if (!getcwd(cwd, sizeof(cwd)))
        return xstrdup(path);
    return xasprintf("%s/%s", cwd, path);
}

bool file_readable(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

int64_t file_mtime_ns(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return -1;
    return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

uint8_t *file_read_all(const char *path, size_t *len, size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;

    if (fd < 0)
        return NULL;
    for (;;) {
        ssize_t r;

        if (n == cap) {
            if (cap >= max) {
                free(buf);
                close(fd);
                errno = EFBIG;
                return NULL;
            }
            cap = cap ? cap * 2 : 65536;
            if (cap > max)
                cap = max;
            buf = xrealloc(buf, cap);
        }
        r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;

            free(buf);
            close(fd);
            errno = e;
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (!buf)
        buf = xmalloc(1);
    *len = n;
    return buf;
}

int file_write_all(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    if (fd < 0)
        return -1;
    if (write_full(fd, data, len) < 0) {
        int e = errno;

        close(fd);
        errno = e;
        return -1;
    }
    return close(fd);
}

int mkdir_p(const char *path, mode_t mode)
{
    char *p = xstrdup(path), *s;
    int rc = 0;

    for (s = p + 1; ; s++) {
        if (*s == '/' || *s == 0) {
            char c = *s;

            *s = 0;
            if (mkdir(p, mode) != 0 && errno != EEXIST) {
                rc = -1;
                break;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
    return rc;
}

static int rm_rf_at(int at, const char *name)
{
    struct stat st;
    int rc = 0;

    if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : -1;
    if (S_ISDIR(st.st_mode)) {
        int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d;
        struct dirent *de;

        if (fd < 0)
            return -1;
        d = fdopendir(fd);
        if (!d) {
            close(fd);
            return -1;
        }
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            if (rm_rf_at(dirfd(d), de->d_name) != 0)
                rc = -1;
        }
        closedir(d);
        if (unlinkat(at, name, AT_REMOVEDIR) != 0)
            rc = -1;
    } else if (unlinkat(at, name, 0) != 0) {
        rc = -1;
    }
    return rc;
}

int rm_rf(const char *path)
{
    return rm_rf_at(AT_FDCWD, path);
}

int write_full(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    while (len) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int read_full(int fd, void *buf, size_t len)
{
    uint8_t *p = buf;

    while (len) {
        ssize_t n = read(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EPIPE;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int fd_set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int fd_set_cloexec(int fd, bool on)
{
    int fl = fcntl(fd, F_GETFD);

    if (fl < 0)
        return -1;
    return fcntl(fd, F_SETFD, on ? (fl | FD_CLOEXEC) : (fl & ~FD_CLOEXEC));
}

void hex_encode(const uint8_t *in, size_t len, char *out)
{
    static const char hx[] = "0123456789abcdef";
    size_t i;

    for (i = 0; i < len; i++) {
        out[2 * i] = hx[in[i] >> 4];
        out[2 * i + 1] = hx[in[i] & 15];
    }
    out[2 * len] = 0;
}

int hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int errorf(char *err, size_t errsz, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errsz, fmt, ap);
    va_end(ap);
    return -1;
}

void show_file(const char *path, const char *prefix, size_t tail)
{
    size_t len;
    uint8_t *txt = file_read_all(path, &len, 1 << 20);

    for (size_t i = txt && tail && len > tail ? len - tail : 0; txt && i < len;) {
        size_t e = i;

        while (e < len && txt[e] != '\n')
            e++;
        fprintf(stderr, "%s%.*s\n", prefix, (int)(e - i), (char *)txt + i);
        i = e + 1;
    }
    free(txt);
}
