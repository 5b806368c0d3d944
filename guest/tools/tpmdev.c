/* SPDX-License-Identifier: MIT */
#include "tpmdev.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int tpmdev_transmit(void *ctx, const uint8_t *cmd, size_t cmd_len, uint8_t *rsp, size_t rsp_cap,
                    size_t *rsp_len, char *err, size_t errlen)
{
    int fd = *(int *)ctx;
    if (write(fd, cmd, cmd_len) != (ssize_t)cmd_len) {
        snprintf(err, errlen, "/dev/tpm0 write: %s", strerror(errno));
        return -1;
    }
    ssize_t n = read(fd, rsp, rsp_cap);
    if (n < 0) {
        snprintf(err, errlen, "/dev/tpm0 read: %s", strerror(errno));
        return -1;
    }
    *rsp_len = (size_t)n;
    return 0;
}
