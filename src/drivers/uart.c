/* SPDX-License-Identifier: MIT */
#include "arch/x86/io.h"
#include "drivers/uart.h"

#define RBR 0 /* receive buffer (read) / transmit holding (write) */
#define IER 1
#define FCR 2
#define LCR 3
#define MCR 4
#define LSR 5
#define SCR 7
#define DLL 0 /* with LCR.DLAB */
#define DLM 1

#define LCR_DLAB 0x80
#define LSR_DR 0x01
#define LSR_THRE 0x20
#define TX_SPIN_MAX 100000u           /* give up on a wedged transmitter rather than hang */

bool uart_init(uint16_t port, uint32_t baud, uint32_t clock_hz, uint8_t lcr)
{
    outb(port + SCR, 0x5a);
    if (inb(port + SCR) != 0x5a)
        return false;
    outb(port + SCR, 0xa5);
    if (inb(port + SCR) != 0xa5)
        return false;
    uint32_t divisor = clock_hz / (16u * baud);
    if (divisor == 0)
        divisor = 1;
    outb(port + IER, 0);
    outb(port + LCR, LCR_DLAB);
    outb(port + DLL, (uint8_t)divisor);
    outb(port + DLM, (uint8_t)(divisor >> 8));
    outb(port + LCR, lcr & 0x3f);
    outb(port + FCR, 0x07);          /* enable and clear FIFOs */
    outb(port + MCR, 0x03);          /* DTR, RTS */
    return true;
}

static void putc_raw(uint16_t port, char c)
{
    for (unsigned i = 0; i < TX_SPIN_MAX && !(inb(port + LSR) & LSR_THRE); i++)
        cpu_relax();
    outb(port + RBR, (uint8_t)c);
}

void uart_write_raw(uint16_t port, const char *s, size_t len)
{
    while (len--)
        putc_raw(port, *s++);
}

void uart_write(uint16_t port, const char *s, size_t len)
{
    for (; len; len--, s++) {
        if (*s == '\n')
            putc_raw(port, '\r');
        putc_raw(port, *s);
    }
}

int uart_getc(uint16_t port)
{
    if (!(inb(port + LSR) & LSR_DR))
        return -1;
    return inb(port + RBR);
}
