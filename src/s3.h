/* SPDX-License-Identifier: MIT */
/* Suspend to RAM with memory integrity (s3.c). */
#ifndef S3_H
#define S3_H

#include <stdint.h>

/* Copies the real-mode code (waking vector, way back to real mode) into the low page. */
void lowmem_install(void);

/* TB_SHUTDOWN_S3 from the kernel, on the BSP; returns only through the waking vector. */
__attribute__((noreturn)) void s3_suspend(void);

struct s3_state;
/* What the suspend left in vtboot's persistent area (nothing in it is checked yet). */
const struct s3_state *s3_state_area(void);
/* The RSDP the suspend kept, copied where it can be read; 0: none (search for it). */
uint64_t s3_resume_rsdp(const struct s3_state *s);
/* q35: the ICH9 ACPI registers the wake-up reset cleared, as the suspend saved them. */
void s3_restore_chipset(const struct s3_state *s);

/* In the MLE after a resume's launch: the memory log at tboot's address if it is sound, then
 * the resume itself: the boot's measurements again, unseal, check the memory, and back into
 * the kernel; halts (capping) if any of that fails. */
void s3_resume_log(void);
__attribute__((noreturn)) void s3_resume(void);

#endif
