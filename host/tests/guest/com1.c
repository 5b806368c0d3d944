/* SPDX-License-Identifier: MIT */
#include "com1.h"

void put_char(char c)
{
    while (!(inb(COM1 + 5) & 0x20))
        ;
    outb(COM1, (uint8_t)c);
}

void put_str(const char *s)
{
    while (*s)
        put_char(*s++);
}

void put_hex(uint64_t v)
{
    put_str("0x");
    int shift = 60;
    while (shift > 0 && !((v >> shift) & 0xf))
        shift -= 4;
    for (; shift >= 0; shift -= 4)
        put_char("0123456789abcdef"[(v >> shift) & 0xf]);
}

void put_dec(uint32_t v)
{
    char buf[11];
    int i = 10;
    buf[i] = 0;
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put_str(buf + i);
}
