/* SPDX-License-Identifier: MIT */
/* 16550 UART: the serial console (COM1 by default) and the virtual SENTER channel (COM2). */
#ifndef DRIVERS_UART_H
#define DRIVERS_UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Programs the UART; false if nothing answers at `port` (scratch register test). */
bool uart_init(uint16_t port, uint32_t baud, uint32_t clock_hz, uint8_t lcr);
void uart_write(uint16_t port, const char *s, size_t len);   /* '\n' becomes "\r\n" */
void uart_write_raw(uint16_t port, const char *s, size_t len);
/* One received byte, or -1 if none is waiting. */
int uart_getc(uint16_t port);

#endif
