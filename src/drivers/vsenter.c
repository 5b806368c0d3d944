/* SPDX-License-Identifier: MIT */
#include "abi/vsenter.h"
#include "arch/x86/cpu.h"
#include "drivers/timer.h"
#include "drivers/uart.h"
#include "drivers/vsenter.h"
#include "lib/format.h"
#include "lib/string.h"

/* Guest time stops while the host has the guest paused, so this only bounds a lost host. */
#define VSENTER_TIMEOUT_US (60u * 1000u * 1000u)

/* The host's answer line, or VSENTER_NO_ANSWER. */
static enum vsenter_result read_answer(char *line, size_t size)
{
    size_t n = 0;
    int c = -1;
    uint64_t deadline = timer_now_us() + VSENTER_TIMEOUT_US;

    for (;;) {
        c = uart_getc(VSENTER_UART_PORT);
        if (c < 0) {
            if (timer_now_us() > deadline)
                break;
            continue;
        }
        if (c == '\r')
            continue;
        if (c == '\n' || n + 1 >= size)
            break;
        line[n++] = (char)c;
    }
    line[n] = '\0';
    return c == '\n' && strncmp(line, VSENTER_ERR_PREFIX, sizeof(VSENTER_ERR_PREFIX) - 1) == 0
               ? VSENTER_REFUSED : VSENTER_NO_ANSWER;
}

enum vsenter_result vsenter_request(uint32_t mle_base, uint32_t mle_hdr, char *reply,
                                    size_t replylen)
{
    char line[VSENTER_LINE_MAX];

    reply[0] = '\0';
    if (!uart_init(VSENTER_UART_PORT, 115200, 1843200, 0x03))
        return VSENTER_ABSENT;
    while (uart_getc(VSENTER_UART_PORT) >= 0)
        ;                            /* stale input */
    int len = fmt_snprintf(line, sizeof(line), VSENTER_REQUEST_FMT, VSENTER_PROTOCOL, mle_base,
                           mle_hdr);
    idt_load_empty();
    uart_write_raw(VSENTER_UART_PORT, line, (size_t)len);
    enum vsenter_result r = read_answer(line, sizeof(line));
    idt_install();
    strlcpy(reply, line, replylen);
    return r;
}
