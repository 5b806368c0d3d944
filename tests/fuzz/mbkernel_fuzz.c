/* SPDX-License-Identifier: MIT */
/*
 * Module 0 as a multiboot kernel: kernel_detect, elf_parse and mbhdr_scan on arbitrary bytes
 * (the input is the whole file). Whatever elf_parse accepts must be loadable exactly as
 * accepted: each segment's file bytes inside the input, its memory below 4 GiB and after
 * its file bytes, no two segments overlapping, the entry inside a segment's file bytes; all
 * re-derived here from the program headers at their specification offsets. A multiboot
 * header mbhdr_scan reports must be the first one whose checksum holds, within its limit.
 */
#include "fuzz_common.h"

#include "mbkernel/detect.h"
#include "mbkernel/elf.h"
#include "mbkernel/mbheader.h"

static uint64_t rd(const uint8_t *p, unsigned n)
{
    return n == 8 ? get64(p, 0) : n == 4 ? get32(p, 0) : get16(p, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    struct elf_image e;
    struct mb_kernel_header h;

    if (size > (1u << 20))
        return 0;
    /* an exact-size copy: ASan catches any read past the input */
    uint8_t *img = malloc(size ? size : 1);
    memcpy(img, data, size);

    memset(err, 0x55, sizeof(err));
    enum kernel_kind k = kernel_detect(img, (uint32_t)size, err, sizeof(err));
    FUZZ_ASSERT(k != KERNEL_ELF || (size >= 4 && !memcmp(img, "\177ELF", 4)), "ELF kind");
    FUZZ_ASSERT(k != KERNEL_BZIMAGE || (size >= 0x206 && !memcmp(img + 0x202, "HdrS", 4) &&
                                        memcmp(img, "\177ELF", 4)), "bzImage kind");
    if (k == KERNEL_UNKNOWN)
        check_err(err, sizeof(err), -1);

    memset(err, 0x55, sizeof(err));
    int rc = elf_parse(img, (uint32_t)size, &e, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    if (rc == 0) {
        bool c64 = img[4] == 2;
        uint64_t phoff = c64 ? get64(img, 32) : get32(img, 28);
        unsigned phent = c64 ? get16(img, 54) : get16(img, 42);
        unsigned phnum = c64 ? get16(img, 56) : get16(img, 44);
        unsigned w = c64 ? 8 : 4, loads = 0;
        FUZZ_ASSERT(phoff + (uint64_t)phnum * phent <= size, "program headers beyond");
        for (unsigned i = 0; i < phnum; i++) {
            const uint8_t *ph = img + phoff + (uint64_t)i * phent;
            uint64_t off = rd(ph + (c64 ? 8 : 4), w), paddr = rd(ph + (c64 ? 24 : 12), w);
            uint64_t fsz = rd(ph + (c64 ? 32 : 16), w), msz = rd(ph + (c64 ? 40 : 20), w);
            if (get32(ph, 0) != 1 || msz == 0)
                continue;
            FUZZ_ASSERT(loads < e.nr_segments, "more loads than segments");
            const struct elf_segment *s = &e.seg[loads++];
            FUZZ_ASSERT(s->index == i && s->paddr == paddr && s->memsz == msz &&
                        s->offset == off && s->filesz == fsz, "segment %u differs", i);
            FUZZ_ASSERT(fsz <= msz && off + fsz <= size && paddr + msz <= 0x100000000ull,
                        "segment %u out of bounds", i);
        }
        FUZZ_ASSERT(loads == e.nr_segments && loads > 0, "%u loads, %u segments", loads,
                    e.nr_segments);
        bool entry_ok = false;
        for (unsigned i = 0; i < e.nr_segments; i++) {
            const struct elf_segment *s = &e.seg[i];
            for (unsigned j = 0; j < i; j++)
                FUZZ_ASSERT(s->paddr >= e.seg[j].paddr + (uint64_t)e.seg[j].memsz ||
                            e.seg[j].paddr >= s->paddr + (uint64_t)s->memsz, "overlap");
            FUZZ_ASSERT(e.lowest <= s->paddr && s->paddr + (uint64_t)s->memsz <= e.highest,
                        "bounds");
            entry_ok |= e.entry >= s->paddr && e.entry - s->paddr < s->filesz;
        }
        FUZZ_ASSERT(entry_ok, "entry 0x%x outside the file bytes", e.entry);
    }

    memset(err, 0x55, sizeof(err));
    rc = mbhdr_scan(img, (uint32_t)size, &h, err, sizeof(err));
    FUZZ_ASSERT(rc >= -1 && rc <= 1, "rc %d", rc);
    check_err(err, sizeof(err), rc);
    /* the first checksummed magic of each kind, independently */
    long mb1 = -1, mb2 = -1;
    for (size_t o = 0; o + 12 <= size && o + 12 <= 8192 && mb1 < 0; o += 4)
        if (get32(img, o) == 0x1badb002 &&
            get32(img, o) + get32(img, o + 4) + get32(img, o + 8) == 0)
            mb1 = (long)o;
    for (size_t o = 0; o + 16 <= size && o + 16 <= 32768 && mb2 < 0; o += 8)
        if (get32(img, o) == 0xe85250d6 &&
            get32(img, o) + get32(img, o + 4) + get32(img, o + 8) + get32(img, o + 12) == 0)
            mb2 = (long)o;
    FUZZ_ASSERT(h.mb1 == (mb1 >= 0) && (!h.mb1 || (long)h.mb1_offset == mb1), "mb1");
    if (rc == 1)
        FUZZ_ASSERT(mb1 < 0 && mb2 < 0, "a header exists");
    if (rc == 0) {
        FUZZ_ASSERT(h.mb2 == (mb2 >= 0) && (!h.mb2 || (long)h.mb2_offset == mb2), "mb2");
        FUZZ_ASSERT(!h.mb1 || !(h.mb1_flags & (0xfffcu | 0x10000u)), "mb1 flags 0x%x accepted",
                    h.mb1_flags);
        FUZZ_ASSERT(!(h.mb2_info_required & ~MBHDR_MB2_PROVIDED), "required 0x%x",
                    h.mb2_info_required);
        FUZZ_ASSERT((h.mb2_info_required & ~h.mb2_info_wanted) == 0, "required not wanted");
        enum boot_protocol p1 = mbhdr_protocol(&h, BOOT_MULTIBOOT1);
        FUZZ_ASSERT((p1 == BOOT_MULTIBOOT1 && h.mb1) || (p1 == BOOT_MULTIBOOT2 && h.mb2),
                    "protocol without a header");
    }
    free(img);
    return 0;
}
