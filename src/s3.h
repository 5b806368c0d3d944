/* SPDX-License-Identifier: MIT */
/* Suspend to RAM with memory integrity (s3.c). */
#ifndef S3_H
#define S3_H

/* Copies the real-mode code (waking vector, way back to real mode) into the low page. */
void lowmem_install(void);

/* TB_SHUTDOWN_S3 from the kernel, on the BSP; returns only through the waking vector. */
__attribute__((noreturn)) void s3_suspend(void);

#endif
