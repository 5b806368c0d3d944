/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "swtpm_ctrl.h"

#define CMD_INIT 2u

static int ctrl_cmd(const struct swtpm_sim *s, uint32_t cmd, const uint8_t *body, size_t len,
                    uint32_t *result, char *err, size_t errlen)
{
    struct sockaddr_un a;
    uint8_t req[64], rsp[4];
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s.ctrl", s->sock) >=
            sizeof(a.sun_path) || len + 4 > sizeof(req)) {
        snprintf(err, errlen, "swtpm ctrl: path or request too long");
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
        snprintf(err, errlen, "swtpm ctrl: connect %s: %s", a.sun_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct timeval tv = { 10, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    req[0] = (uint8_t)(cmd >> 24);
    req[1] = (uint8_t)(cmd >> 16);
    req[2] = (uint8_t)(cmd >> 8);
    req[3] = (uint8_t)cmd;
    if (len)
        memcpy(req + 4, body, len);
    size_t got = 0;
    int ok = send(fd, req, len + 4, MSG_NOSIGNAL) == (ssize_t)(len + 4);
    while (ok && got < sizeof(rsp)) {
        ssize_t n = recv(fd, rsp + got, sizeof(rsp) - got, 0);
        if (n <= 0)
            ok = 0;
        else
            got += (size_t)n;
    }
    close(fd);
    if (!ok) {
        snprintf(err, errlen, "swtpm ctrl: command %u: no answer (%s)", cmd, strerror(errno));
        return -1;
    }
    *result = (uint32_t)rsp[0] << 24 | (uint32_t)rsp[1] << 16 | (uint32_t)rsp[2] << 8 | rsp[3];
    return 0;
}

int swtpm_sim_power_cycle(struct swtpm_sim *s, char *err, size_t errlen)
{
    static const uint8_t no_flags[4] = { 0 };
    uint32_t result;
    if (ctrl_cmd(s, CMD_INIT, no_flags, sizeof(no_flags), &result, err, errlen))
        return -1;
    if (result) {
        snprintf(err, errlen, "swtpm ctrl: CMD_INIT answered 0x%x", result);
        return -1;
    }
    return 0;
}
