/* SPDX-License-Identifier: MIT */
#include "abi/vsenter.h"
#include "drivers/timer.h"
#include "drivers/uart.h"
#include "drivers/vsenter.h"
#include "lib/format.h"
#include "lib/string.h"

/* Guest time stops while the host has the guest paused, so this only bounds a lost host. */
#define VSENTER_TIMEOUT_US (60u * 1000u * 1000u)

enum vsenter_result vsenter_launch(uint32_t mle_base, uint32_t mle_size, char *reply,
                                   size_t replylen)
{
    char line[VSENTER_LINE_MAX];
    size_t n = 0;

    reply[0] = '\0';
    if (!uart_init(VSENTER_UART_PORT, 115200, 1843200, 0x03))
        return VSENTER_ABSENT;
    while (uart_getc(VSENTER_UART_PORT) >= 0)
        ;                            /* stale input */
    int len = fmt_snprintf(line, sizeof(line), VSENTER_REQUEST_FMT, VSENTER_PROTOCOL, mle_base,
                           mle_size);
    uart_write_raw(VSENTER_UART_PORT, line, (size_t)len);

    uint64_t deadline = timer_now_us() + VSENTER_TIMEOUT_US;
    for (;;) {
        int c = uart_getc(VSENTER_UART_PORT);
        if (c < 0) {
            if (timer_now_us() > deadline)
                return VSENTER_NO_ANSWER;
            continue;
        }
        if (c == '\r')
            continue;
        if (c == '\n')
            break;
        if (n + 1 >= sizeof(line))
            return VSENTER_NO_ANSWER;
        line[n++] = (char)c;
    }
    line[n] = '\0';
    strlcpy(reply, line, replylen);
    if (strncmp(line, VSENTER_OK_PREFIX, sizeof(VSENTER_OK_PREFIX) - 1) == 0)
        return VSENTER_DONE;
    if (strncmp(line, VSENTER_ERR_PREFIX, sizeof(VSENTER_ERR_PREFIX) - 1) == 0)
        return VSENTER_REFUSED;
    return VSENTER_NO_ANSWER;
}
