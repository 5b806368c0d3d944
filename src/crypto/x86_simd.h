/* SPDX-License-Identifier: MIT */
/*
 * The x86 intrinsics, for the *_x86.c files only. In the freestanding pre-kernel build
 * <immintrin.h> would pull in <mm_malloc.h> and with it <stdlib.h>, which a freestanding
 * 32-bit build does not have; its guard keeps it out (nothing here allocates).
 */
#ifndef CRYPTO_X86_SIMD_H
#define CRYPTO_X86_SIMD_H

#if !__STDC_HOSTED__
#define _MM_MALLOC_H_INCLUDED           /* gcc's guard */
#define __MM_MALLOC_H                   /* clang's */
#endif
#include <immintrin.h>

#endif
