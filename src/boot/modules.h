/* SPDX-License-Identifier: MIT */
/*
 * Whether the loader's modules can be used at all, before any is moved, measured or run.
 */
#ifndef BOOT_MODULES_H
#define BOOT_MODULES_H

#include <stdint.h>

#include "boot/bootinfo.h"

/*
 * Every module must lie in RAM (bi->mmap), clear of every other module and of vtboot's loaded
 * image [image_start, image_end): the loader loaded that image itself, so a module claimed
 * over it holds vtboot's bytes, not the module's (or vtboot runs over the module). vtboot's
 * other memory (the area before the image, the logs) is not the loader's to know: a module
 * there is moved, not refused. Returns 0, or -1 with a one-line reason in err.
 */
int modules_check(const struct boot_info *bi, uint64_t image_start, uint64_t image_end,
                  char *err, unsigned errlen);

#endif
