/* SPDX-License-Identifier: MIT */
/*
 * What module 0 is, by its content alone (never its name): a Linux bzImage (the 'HdrS' setup
 * header at 0x202) or an ELF image, which vtboot loads as a multiboot kernel (Xen). Whether
 * either is usable is for its own parser to say (linux/bzimage.h, mbkernel/elf.h and
 * mbkernel/mbheader.h); anything else is neither.
 */
#ifndef MBKERNEL_DETECT_H
#define MBKERNEL_DETECT_H

#include <stdint.h>

enum kernel_kind {
    KERNEL_UNKNOWN,
    KERNEL_BZIMAGE,
    KERNEL_ELF,
};

/* The kind of the size bytes at img; for KERNEL_UNKNOWN, why in err. */
enum kernel_kind kernel_detect(const uint8_t *img, uint32_t size, char *err, unsigned errlen);

const char *kernel_kind_name(enum kernel_kind k);

#endif
