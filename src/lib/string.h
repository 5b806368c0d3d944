/* SPDX-License-Identifier: MIT */
/* The C string functions vtboot uses: libc's on the host, our own (string.c) in the pre-kernel. */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include <stddef.h>

#if __STDC_HOSTED__
#include <string.h>
#else
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
#endif

/* Clears a secret; the compiler may not drop it as a dead store. */
void memzero_explicit(void *p, size_t n);

/* Copies at most size-1 bytes and always terminates; returns strlen(src). */
size_t strlcpy(char *dst, const char *src, size_t size);

#endif
