/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host_tools.h"

const char *tool_path(const char *name)
{
    static char path[4096];
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? name : NULL;
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin", env ? env : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, sizeof(path), "%s/%s", d, name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
            return path;
    }
    return NULL;
}

char *tmpdir_create(char *out, size_t cap)
{
    const char *t = getenv("TMPDIR");
    if (snprintf(out, cap, "%s/vtboot-unit.XXXXXX", t && *t ? t : "/tmp") >= (int)cap)
        return NULL;
    return mkdtemp(out);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void tmpdir_remove(const char *dir)
{
    if (dir && *dir)
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *tmpdir_file(const char *dir, const char *name)
{
    static char paths[8][512];
    static unsigned next;
    char *p = paths[next++ % 8];

    snprintf(p, sizeof(paths[0]), "%s/%s", dir, name);
    return p;
}

int file_write(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = len ? fwrite(data, 1, len, f) : 0;
    return fclose(f) == 0 && n == len ? 0 : -1;
}

uint8_t *file_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *p = malloc(cap + 1);
    for (size_t got; p && (got = fread(p + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *q = realloc(p, 2 * cap + 1);
            if (!q) {
                free(p);
                p = NULL;
                break;
            }
            p = q;
            cap *= 2;
        }
    }
    fclose(f);
    if (p) {
        p[n] = 0;
        *len = n;
    }
    return p;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tool_run(struct tool_run *r, const char *const *argv, const char *const *env,
             unsigned timeout_ms)
{
    int po[2], pe[2];
    r->status = -1;
    r->out[0] = r->err[0] = 0;
    const char *path = tool_path(argv[0]);
    if (!path) {
        snprintf(r->err, sizeof(r->err), "%s: not found", argv[0]);
        return -1;
    }
    char exe[4096];
    snprintf(exe, sizeof(exe), "%s", path);
    if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int nul = open("/dev/null", O_RDONLY);
        dup2(nul, 0);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        for (unsigned i = 0; env && env[i]; i++)
            putenv((char *)env[i]);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    size_t no = 0, ne = 0;
    bool open_o = true, open_e = true, killed = false;
    long long deadline = now_ms() + timeout_ms;
    while (open_o || open_e) {
        struct pollfd fds[2] = { { open_o ? po[0] : -1, POLLIN, 0 },
                                 { open_e ? pe[0] : -1, POLLIN, 0 } };
        long long left = deadline - now_ms();
        if (left <= 0) {
            kill(pid, SIGKILL);
            killed = true;
            break;
        }
        if (poll(fds, 2, (int)left) < 0 && errno != EINTR)
            break;
        char tmp[4096];
        for (int i = 0; i < 2; i++) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t got = read(fds[i].fd, tmp, sizeof(tmp));
            if (got <= 0) {
                if (i == 0)
                    open_o = false;
                else
                    open_e = false;
                continue;
            }
            char *dst = i == 0 ? r->out : r->err;
            size_t *n = i == 0 ? &no : &ne;
            size_t cap = (i == 0 ? sizeof(r->out) : sizeof(r->err)) - 1;
            size_t take = (size_t)got < cap - *n ? (size_t)got : cap - *n;
            memcpy(dst + *n, tmp, take);
            *n += take;
            dst[*n] = 0;
        }
    }
    close(po[0]);
    close(pe[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (killed)
        snprintf(r->err + ne, sizeof(r->err) - ne, "\n[killed after %u ms]", timeout_ms);
    r->status = !killed && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r->status;
}
