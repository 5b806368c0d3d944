/* SPDX-License-Identifier: MIT */
/*
 * What an S3 resume needs before there is a launch (the pre-launch half at the waking vector)
 * and again in the MLE: the suspend's state in vtboot's persistent area, the RSDP it kept, and
 * q35's chipset registers the wake-up reset cleared.
 */
#ifndef COMMON_S3_PLATFORM_H
#define COMMON_S3_PLATFORM_H

#include <stdint.h>

#include "tboot/s3state.h"

/* The persistent area (nothing in it is checked yet: tboot/s3rules.h). */
struct s3_state *s3_state_area(void);

/* The RSDP by its bytes: the copy a loader gave lives in .bss, which a resume clears. */
void s3_keep_rsdp(struct s3_state *s);
/* The RSDP the suspend kept, copied where it can be read; 0: none (search for it). */
uint64_t s3_resume_rsdp(const struct s3_state *s);

/* q35: the ICH9 ACPI registers the wake-up reset clears, saved at suspend, restored at resume. */
void s3_save_chipset(struct s3_state *s);
void s3_restore_chipset(const struct s3_state *s);

#endif
