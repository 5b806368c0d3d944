/* SPDX-License-Identifier: MIT */
#include "abi/bootparam.h"
#include "abi/elf.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "mbkernel/detect.h"

#define HDRS_OFFSET 0x202u           /* the setup header's "HdrS" (boot protocol 2.00 and later) */

enum kernel_kind kernel_detect(const uint8_t *img, uint32_t size, char *err, unsigned errlen)
{
    if (size >= 4 && img[0] == ELF_MAG0 && img[1] == ELF_MAG1 && img[2] == ELF_MAG2 &&
        img[3] == ELF_MAG3)
        return KERNEL_ELF;
    if (size >= HDRS_OFFSET + 4 &&
        load_le32(img + HDRS_OFFSET) == SETUP_HDRS_MAGIC)
        return KERNEL_BZIMAGE;
    fmt_snprintf(err, errlen, "neither a Linux bzImage nor a multiboot ELF kernel (%u bytes): "
                 "no 'HdrS' setup header (not a bzImage), no ELF magic", size);
    return KERNEL_UNKNOWN;
}

const char *kernel_kind_name(enum kernel_kind k)
{
    switch (k) {
    case KERNEL_BZIMAGE:
        return "Linux bzImage";
    case KERNEL_ELF:
        return "ELF image";
    default:
        return "unknown";
    }
}
