/* SPDX-License-Identifier: MIT */
#include "abi/multiboot1.h"
#include "abi/multiboot2.h"
#include "abi/multiboot_kernel.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"
#include "mbkernel/mbheader.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static int scan_mb1(const uint8_t *img, uint32_t size, struct mb_kernel_header *h, char *err,
                    unsigned errlen)
{
    uint32_t end = size < MBHDR_MB1_SEARCH ? size : MBHDR_MB1_SEARCH;

    for (uint32_t off = 0; off + 12 <= end; off += 4) {
        uint32_t magic = load_le32(img + off), flags = load_le32(img + off + 4);
        if (magic != MB1_HEADER_MAGIC || magic + flags + load_le32(img + off + 8) != 0)
            continue;
        h->mb1 = true;
        h->mb1_offset = off;
        h->mb1_flags = flags;
        if (flags & MB1_HF_AOUT_KLUDGE)
            FAIL("its multiboot1 header (at 0x%x) asks to be loaded by its address fields "
                 "(flag 16, the a.out kludge); vtboot loads ELF program headers only", off);
        uint32_t unknown = flags & MB1_HF_REQUIRED_MASK &
                           ~(uint32_t)(MB1_HF_PAGE_ALIGN | MB1_HF_MEMORY_INFO);
        if (unknown)
            FAIL("its multiboot1 header (at 0x%x) requires flags 0x%x%s, which vtboot does not "
                 "provide", off, unknown,
                 unknown & MB1_HF_VIDEO_MODE ? " (a video mode table)" : "");
        return 0;
    }
    return 0;
}

static int mb2_tag(const uint8_t *t, uint16_t type, bool required, uint32_t size,
                   struct mb_kernel_header *h, char *err, unsigned errlen)
{
    switch (type) {
    case MB2_HTAG_INFO_REQUEST:
        if ((size - 8) % 4)
            FAIL("its multiboot2 information request tag has size %u", size);
        for (uint32_t o = 8; o < size; o += 4) {
            uint32_t want = load_le32(t + o);
            if (want < 32)
                h->mb2_info_wanted |= 1u << want;
            if (!required)
                continue;
            if (want >= 32 || !(MBHDR_MB2_PROVIDED & (1u << want)))
                FAIL("its multiboot2 header requires information tag type %u, which vtboot "
                     "does not provide", want);
            h->mb2_info_required |= 1u << want;
        }
        return 0;
    case MB2_HTAG_ENTRY_ADDRESS:
        if (size < 12)
            FAIL("its multiboot2 entry address tag has size %u", size);
        h->mb2_entry_set = true;
        h->mb2_entry = load_le32(t + 8);
        return 0;
    case MB2_HTAG_MODULE_ALIGN:      /* vtboot page-aligns every module anyway */
    case MB2_HTAG_RELOCATABLE:       /* loading at the linked address is always allowed */
    case MB2_HTAG_CONSOLE_FLAGS:     /* the console stays EGA text, as the BIOS left it */
        return 0;
    case MB2_HTAG_ADDRESS:
        if (required)
            FAIL("its multiboot2 header requires loading by address fields (tag 2); vtboot "
                 "loads ELF program headers only");
        return 0;
    case MB2_HTAG_FRAMEBUFFER:
        if (required)
            FAIL("its multiboot2 header requires a framebuffer (tag 5), which vtboot does not "
                 "set up");
        return 0;
    case MB2_HTAG_EFI_BS:
    case MB2_HTAG_ENTRY_ADDRESS_EFI32:
    case MB2_HTAG_ENTRY_ADDRESS_EFI64:
        if (required)
            FAIL("its multiboot2 header requires EFI (tag %u); vtboot boots from BIOS only",
                 type);
        return 0;
    default:
        if (required)
            FAIL("its multiboot2 header requires tag type %u, unknown to vtboot", type);
        return 0;
    }
}

static int scan_mb2(const uint8_t *img, uint32_t size, struct mb_kernel_header *h, char *err,
                    unsigned errlen)
{
    uint32_t end = size < MBHDR_MB2_SEARCH ? size : MBHDR_MB2_SEARCH;

    for (uint32_t off = 0; off + 16 <= end; off += MB2_HEADER_ALIGN) {
        uint32_t magic = load_le32(img + off), arch = load_le32(img + off + 4);
        uint32_t len = load_le32(img + off + 8);
        if (magic != MB2_HEADER_MAGIC || magic + arch + len + load_le32(img + off + 12) != 0)
            continue;
        h->mb2 = true;
        h->mb2_offset = off;
        h->mb2_length = len;
        if (arch != MB2_ARCH_I386)
            FAIL("its multiboot2 header (at 0x%x) is for architecture %u, not i386 (0)", off,
                 arch);
        if (len < 16 + 8 || len > size - off)
            FAIL("its multiboot2 header (at 0x%x) has length %u, beyond the image or without "
                 "room for an end tag", off, len);
        bool ended = false;
        for (uint32_t t = 16; t < len;) {
            if (len - t < 8)
                FAIL("its multiboot2 header tag at offset %u is truncated", t);
            const uint8_t *tag = img + off + t;
            uint16_t type = load_le16(tag), flags = load_le16(tag + 2);
            uint32_t tsize = load_le32(tag + 4);
            if (tsize < 8 || tsize > len - t)
                FAIL("its multiboot2 header tag type %u at offset %u has size %u", type, t,
                     tsize);
            if (type == MB2_HTAG_END) {
                if (tsize != 8)
                    FAIL("its multiboot2 header end tag has size %u", tsize);
                ended = true;
                break;
            }
            if (mb2_tag(tag, type, !(flags & MB2_HTAG_OPTIONAL), tsize, h, err, errlen))
                return -1;
            t += (tsize + MB2_TAG_ALIGN - 1) & ~(uint32_t)(MB2_TAG_ALIGN - 1);
        }
        if (!ended)
            FAIL("its multiboot2 header (at 0x%x) has no end tag within its %u bytes", off, len);
        return 0;
    }
    return 0;
}

int mbhdr_scan(const uint8_t *img, uint32_t size, struct mb_kernel_header *h, char *err,
               unsigned errlen)
{
    memset(h, 0, sizeof(*h));
    if (scan_mb1(img, size, h, err, errlen) || scan_mb2(img, size, h, err, errlen))
        return -1;
    if (!h->mb1 && !h->mb2) {
        fmt_snprintf(err, errlen, "no multiboot header (a multiboot1 header in its first "
                     "8 KiB or a multiboot2 header in its first 32 KiB)");
        return 1;
    }
    return 0;
}

enum boot_protocol mbhdr_protocol(const struct mb_kernel_header *h, enum boot_protocol loader)
{
    if (h->mb1 && h->mb2)
        return loader;
    return h->mb2 ? BOOT_MULTIBOOT2 : BOOT_MULTIBOOT1;
}
