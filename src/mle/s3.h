/* SPDX-License-Identifier: MIT */
/* Suspend to RAM with memory integrity (s3.c), in the MLE. */
#ifndef MLE_S3_H
#define MLE_S3_H

/* Copies the real-mode code (waking vector, way back to real mode) into the low page. */
void lowmem_install(void);

/* TB_SHUTDOWN_S3 from the kernel, on the BSP; returns only through the waking vector. */
__attribute__((noreturn)) void s3_suspend(void);

/* In the MLE after a resume's launch: the memory log at tboot's address if it is sound, then
 * the resume itself: the boot's measurements again, unseal, check the memory, and back into
 * the kernel; halts (capping) if any of that fails. */
void s3_resume_log(void);
__attribute__((noreturn)) void s3_resume(void);

#endif
