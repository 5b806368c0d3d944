/* SPDX-License-Identifier: MIT */
/*
 * The multiboot test guests' port I/O and their report lines on COM1 (badload.c, getsec.c,
 * getsec_chipset.c): polled output on the UART as SeaBIOS leaves it, "\n" line ends (the
 * tests read the serial log as text).
 */
#ifndef GUEST_COM1_H
#define GUEST_COM1_H

#include <stdint.h>

#define COM1 0x3f8

static inline void outb(uint16_t p, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(p)); }
static inline void outw(uint16_t p, uint16_t v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(p)); }
static inline uint8_t inb(uint16_t p) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(p)); return v; }
static inline void outl(uint16_t p, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(p)); }
static inline uint32_t inl(uint16_t p) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(p)); return v; }

void put_char(char c);
void put_str(const char *s);
void put_hex(uint64_t v);            /* "0x", lowercase, no leading zeros */
void put_dec(uint32_t v);

#endif
