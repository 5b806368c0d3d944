/* SPDX-License-Identifier: MIT */
#include "abi/vsenter.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "drivers/timer.h"
#include "drivers/uart.h"
#include "drivers/vsenter.h"
#include "lib/format.h"
#include "txt/vsenter_answer.h"

/* Guest time stops while the host has the guest paused, so this only bounds a lost host. */
#define VSENTER_TIMEOUT_US (60u * 1000u * 1000u)

/* The host's refusal of request id (its reason in reason), or VSENTER_NO_ANSWER at the
 * deadline. */
static enum vsenter_result read_answer(uint32_t id, char *reason, size_t size)
{
    struct vsenter_answer answer;
    uint64_t deadline = timer_now_us() + VSENTER_TIMEOUT_US;

    vsenter_answer_start(&answer, id);
    for (;;) {
        int c = uart_getc(VSENTER_UART_PORT);

        if (c < 0) {
            if (timer_now_us() > deadline)
                return VSENTER_NO_ANSWER;
            continue;
        }
        if (vsenter_answer_feed(&answer, (char)c, reason, size))
            return VSENTER_REFUSED;
    }
}

enum vsenter_result vsenter_request(uint32_t mle_base, uint32_t mle_hdr, char *reason,
                                    size_t reasonlen)
{
    char line[VSENTER_LINE_MAX];
    uint32_t id = (uint32_t)rdtsc();     /* differs from every earlier request's */

    reason[0] = '\0';
    if (!uart_init(VSENTER_UART_PORT, 115200, 1843200, 0x03))
        return VSENTER_ABSENT;
    int len = fmt_snprintf(line, sizeof(line), VSENTER_REQUEST_FMT, VSENTER_PROTOCOL, id,
                           mle_base, mle_hdr);
    idt_load_empty();
    uart_write_raw(VSENTER_UART_PORT, line, (size_t)len);
    enum vsenter_result r = read_answer(id, reason, reasonlen);
    idt_install();
    return r;
}
