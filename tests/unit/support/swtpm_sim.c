/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host_tools.h"
#include "swtpm_sim.h"

static int unix_addr(const char *path, struct sockaddr_un *a)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(a->sun_path))
        return -1;
    strcpy(a->sun_path, path);
    return 0;
}

static int unix_listen(const char *path)
{
    struct sockaddr_un a;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || unix_addr(path, &a) || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
        listen(fd, 4)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { 0, (long)ms * 1000000 };
    nanosleep(&ts, NULL);
}

static void reap(struct swtpm_sim *s)
{
    if (s->pid <= 0)
        return;
    kill(s->pid, SIGTERM);
    for (unsigned i = 0; i < 200; i++) {
        if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
            s->pid = 0;
            return;
        }
        sleep_ms(5);
    }
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    s->pid = 0;
}

int swtpm_sim_start(struct swtpm_sim *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof(*s));
    s->fd = -1;
    const char *p = tool_path("swtpm");
    if (!p) {
        snprintf(err, errlen, "swtpm is not installed");
        return -1;
    }
    char exe[4096];
    snprintf(exe, sizeof(exe), "%s", p);
    /* a short path: Unix socket names are limited to 107 bytes */
    const char *tmp = getenv("TMPDIR");
    if (tmp && strlen(tmp) > 40)
        unsetenv("TMPDIR");
    if (!tmpdir_create(s->dir, sizeof(s->dir))) {
        snprintf(err, errlen, "cannot create a scratch directory: %s", strerror(errno));
        return -1;
    }
    char ctrl[128], server[32], ctrlarg[32], state[96], log[96];
    snprintf(s->sock, sizeof(s->sock), "%s/tpm.sock", s->dir);
    snprintf(ctrl, sizeof(ctrl), "%s.ctrl", s->sock);
    snprintf(s->tcti, sizeof(s->tcti), "swtpm:path=%s", s->sock);
    int dfd = unix_listen(s->sock), cfd = dfd < 0 ? -1 : unix_listen(ctrl);
    if (cfd < 0) {
        snprintf(err, errlen, "cannot listen on %s: %s", s->sock, strerror(errno));
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    snprintf(server, sizeof(server), "type=unixio,fd=3");
    snprintf(ctrlarg, sizeof(ctrlarg), "type=unixio,fd=4");
    snprintf(state, sizeof(state), "dir=%s", s->dir);
    snprintf(log, sizeof(log), "file=%s/swtpm.log", s->dir);
    const char *argv[] = { "swtpm", "socket", "--tpm2", "--server", server, "--ctrl", ctrlarg,
                           "--flags", "not-need-init,startup-clear", "--tpmstate", state,
                           "--log", log, NULL };
    s->pid = fork();
    if (s->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int nul = open("/dev/null", O_RDWR);
        dup2(nul, 0);
        dup2(nul, 1);
        dup2(nul, 2);
        /* dup2 clears close-on-exec on the copies; fds 3 and 4 are free after these */
        int d = dup(dfd), c = dup(cfd);
        dup2(d, 3);
        dup2(c, 4);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    close(dfd);
    close(cfd);
    if (s->pid < 0) {
        s->pid = 0;
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    /* the sockets exist already: a connection waits until swtpm accepts it. A quick first
     * command tells whether swtpm is really there. */
    return 0;
}

void swtpm_sim_disconnect(struct swtpm_sim *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

int swtpm_sim_connect(struct swtpm_sim *s)
{
    if (s->fd >= 0)
        return 0;
    struct sockaddr_un a;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (unix_addr(s->sock, &a) || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
        close(fd);
        return -1;
    }
    struct timeval tv = { 10, 0 };   /* a TPM that does not answer is a failure, not a hang */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    s->fd = fd;
    return 0;
}

void swtpm_sim_stop(struct swtpm_sim *s)
{
    swtpm_sim_disconnect(s);
    reap(s);
    if (s->dir[0])
        tmpdir_remove(s->dir);
    s->dir[0] = 0;
}

int swtpm_sim_transmit(void *ctx, const uint8_t *cmd, size_t cmd_len, uint8_t *rsp,
                       size_t rsp_cap, size_t *rsp_len, char *err, size_t errlen)
{
    struct swtpm_sim *s = ctx;
    if (s->fd < 0) {
        snprintf(err, errlen, "swtpm: not connected");
        return -1;
    }
    for (size_t off = 0; off < cmd_len;) {
        ssize_t n = send(s->fd, cmd + off, cmd_len - off, MSG_NOSIGNAL);
        if (n <= 0) {
            snprintf(err, errlen, "swtpm: send: %s", n ? strerror(errno) : "closed");
            return -1;
        }
        off += (size_t)n;
    }
    /* the header, then as many bytes as its size field says */
    size_t want = 10, got = 0;
    while (got < want) {
        ssize_t n = recv(s->fd, rsp + got, want - got, 0);
        if (n <= 0) {
            snprintf(err, errlen, "swtpm: recv: %s", n ? strerror(errno) : "closed");
            return -1;
        }
        got += (size_t)n;
        if (got == 10 && want == 10) {
            want = (size_t)rsp[2] << 24 | (size_t)rsp[3] << 16 | (size_t)rsp[4] << 8 | rsp[5];
            if (want < 10 || want > rsp_cap) {
                snprintf(err, errlen, "swtpm: response size %zu", want);
                return -1;
            }
        }
    }
    *rsp_len = got;
    return 0;
}
