/* SPDX-License-Identifier: MIT */
/* The bzImage setup header: everything vtboot checks before it copies or jumps into a kernel. */
#ifndef LINUX_BZIMAGE_H
#define LINUX_BZIMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/bootparam.h"

#define BZIMAGE_MIN_PROTOCOL 0x020au     /* 2.10: pref_address, init_size, kernel_alignment */
#define BZIMAGE_NONRELOC_ADDR 0x100000u  /* where a non-relocatable bzImage must be loaded */

struct bzimage {
    struct setup_header hdr;         /* copy, as in the file */
    uint32_t hdr_len;                /* bytes of setup header the kernel declares (from 0x1f1) */
    uint32_t setup_size;             /* real-mode part, (setup_sects + 1) * 512 */
    uint32_t pm_offset;              /* protected-mode kernel within the file */
    uint32_t pm_size;
    uint32_t init_size;              /* memory the kernel needs from its load address */
    uint32_t alignment;
    uint64_t pref_address;
    uint32_t cmdline_max;            /* longest command line, without the NUL */
    bool relocatable;
};

/* Validates the image (size bytes at img) and fills *bz; -1 with a reason in err. */
int bzimage_parse(const uint8_t *img, uint32_t size, struct bzimage *bz, char *err,
                  unsigned errlen);

#endif
