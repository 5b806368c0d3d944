/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "lib/format.h"
#include "lib/string.h"
#include "linux/bzimage.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/* The header through kernel_info_offset, the end of what protocol 2.15 defines. */
#define HDR_END (SETUP_HEADER_OFFSET + sizeof(struct setup_header))

int bzimage_parse(const uint8_t *img, uint32_t size, struct bzimage *bz, char *err,
                  unsigned errlen)
{
    struct setup_header *h = &bz->hdr;

    memset(bz, 0, sizeof(*bz));
    if (size < HDR_END)
        FAIL("kernel image is %u bytes, too small for a bzImage setup header", size);
    memcpy(h, img + SETUP_HEADER_OFFSET, sizeof(*h));
    if (h->header != SETUP_HDRS_MAGIC)
        FAIL("kernel image has no 'HdrS' setup header (not a bzImage)");
    if (h->boot_flag != SETUP_BOOT_FLAG)
        FAIL("kernel image boot_flag is 0x%04x, not 0xaa55", h->boot_flag);
    if (h->version < BZIMAGE_MIN_PROTOCOL)
        FAIL("kernel boot protocol %u.%02u is older than 2.10", h->version >> 8,
             h->version & 0xff);
    if (!(h->loadflags & BP_LOADED_HIGH))
        FAIL("kernel is a zImage (not loaded high), unsupported");

    /* The header's own length: the jump at 0x200 lands just past it. */
    bz->hdr_len = 0x202u + (h->jump >> 8) - SETUP_HEADER_OFFSET;
    if ((h->jump & 0xff) != 0xeb || bz->hdr_len < offsetof(struct setup_header, init_size) + 4)
        FAIL("kernel setup header length is malformed (jump 0x%04x)", h->jump);
    if (bz->hdr_len > sizeof(*h))
        bz->hdr_len = sizeof(*h);    /* newer fields we do not know stay zero */

    unsigned sects = h->setup_sects ? h->setup_sects : SETUP_SECTS_DEFAULT;
    bz->setup_size = (sects + 1) * SETUP_SECTOR_SIZE;
    if (bz->setup_size >= size)
        FAIL("kernel image truncated: %u bytes, setup alone is %u", size, bz->setup_size);
    bz->pm_offset = bz->setup_size;
    bz->pm_size = size - bz->setup_size;
    /* syssize counts 16-byte paragraphs: 6.1 rounds down, older build.c rounded up */
    if ((uint64_t)h->syssize * 16 > (uint64_t)bz->pm_size + 15)
        FAIL("kernel image truncated: protected-mode part is %u bytes, header says %llu",
             bz->pm_size, (unsigned long long)h->syssize * 16);
    if (h->syssize == 0)
        FAIL("kernel header syssize is 0");

    bz->relocatable = h->relocatable_kernel != 0;
    bz->alignment = h->kernel_alignment;
    if (bz->relocatable && (bz->alignment < 0x1000 || (bz->alignment & (bz->alignment - 1))))
        FAIL("kernel_alignment 0x%x is not a power of two >= 4 KiB", bz->alignment);
    bz->pref_address = h->pref_address;
    if (bz->pref_address >= 0x100000000ull || (bz->pref_address & 0xfff))
        FAIL("kernel pref_address 0x%llx is not a page below 4 GiB",
             (unsigned long long)bz->pref_address);
    bz->init_size = h->init_size;
    if (bz->init_size < bz->pm_size)
        FAIL("kernel init_size 0x%x is smaller than the image 0x%x", bz->init_size, bz->pm_size);
    if (bz->pref_address + bz->init_size > 0x100000000ull)
        FAIL("kernel needs 0x%x bytes at 0x%llx, beyond 4 GiB", bz->init_size,
             (unsigned long long)bz->pref_address);
    bz->cmdline_max = h->version >= 0x0206 ? h->cmdline_size : 255;
    return 0;
}
