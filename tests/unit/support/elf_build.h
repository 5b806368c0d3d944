/* SPDX-License-Identifier: MIT */
/*
 * Builds ELF kernel images with multiboot headers for the tests and fuzzers of src/mbkernel/.
 * Every field is written at the byte offset the specifications give (System V gABI: ELF32
 * header 52 bytes, program header 32; ELF64 64 and 56; Multiboot 0.6.96 §3.1.1, Multiboot2
 * §3.1.3), not through include/abi/, so a wrong ABI header shows up as a failing test.
 * Header-only (static functions): the fuzzers link only phys_fake.c and builders.c.
 */
#ifndef TESTS_ELF_BUILD_H
#define TESTS_ELF_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "builders.h"

#define EB_MAX_SEGS 20

struct eb_seg {
    uint32_t type;                   /* 1: PT_LOAD */
    uint64_t offset, vaddr, paddr, filesz, memsz;
};

struct eb_spec {
    unsigned cls;                    /* 32 or 64 */
    uint16_t type, machine;          /* 2 (EXEC), 3 (i386) / 62 (x86-64) */
    uint32_t version;                /* e_version, 1 */
    uint64_t entry;
    uint64_t phoff;                  /* 0: right after the ELF header */
    uint16_t phentsize;              /* 0: the class's size */
    unsigned nseg;
    struct eb_seg seg[EB_MAX_SEGS];
    size_t size;                     /* the file's size */
    uint32_t mb1_off;                /* 0: no multiboot1 header; else its offset */
    uint32_t mb1_flags;
    uint32_t mb2_off;                /* 0: no multiboot2 header */
    const uint8_t *mb2_tags;         /* the header tags after its 16 bytes, end tag included */
    size_t mb2_tags_len;
    uint32_t mb2_arch;
};

/* Xen 4.17's multiboot2 header tags (xen/arch/x86/boot/head.S): information request for
 * basic meminfo and the memory map (required), module alignment (required), relocatable,
 * console flags, framebuffer, EFI boot services and EFI64 entry (all optional), end. */
static inline size_t eb_xen_mb2_tags(uint8_t *t)
{
    size_t o = 0;
#define EB_TAG(ty, fl, sz) \
    do { put16(t, o, ty); put16(t, o + 2, fl); put32(t, o + 4, sz); } while (0)
    EB_TAG(1, 0, 16); put32(t, o + 8, 4); put32(t, o + 12, 6); o += 16;
    EB_TAG(6, 0, 8); o += 8;
    EB_TAG(10, 1, 24); put32(t, o + 8, 0x200000); put32(t, o + 12, 0xffffffff);
    put32(t, o + 16, 0x200000); put32(t, o + 20, 2); o += 24;
    EB_TAG(4, 1, 12); put32(t, o + 8, 2); o += 16;
    EB_TAG(5, 1, 20); o += 24;
    EB_TAG(7, 1, 8); o += 8;
    EB_TAG(9, 1, 12); put32(t, o + 8, 0x200010); o += 16;
    EB_TAG(0, 0, 8); o += 8;
#undef EB_TAG
    return o;
}

/* An image shaped like Debian's xen-4.17-amd64: ELF32 i386, one PT_LOAD at 2 MiB (file offset
 * 0x80, 0x3000 bytes, 0x8000 in memory), entry 2 MiB, multiboot1 header (flags 3) at file
 * offset 0x80, multiboot2 header at 0x90 with Xen's tags. */
static inline void eb_xen_like(struct eb_spec *s)
{
    static uint8_t tags[256];
    memset(s, 0, sizeof(*s));
    s->cls = 32;
    s->type = 2;
    s->machine = 3;
    s->version = 1;
    s->entry = 0x200000;
    s->nseg = 1;
    s->seg[0] = (struct eb_seg){ 1, 0x80, 0x200000, 0x200000, 0x3000, 0x8000 };
    s->size = 0x80 + 0x3000;
    s->mb1_off = 0x80;
    s->mb1_flags = 3;
    s->mb2_off = 0x90;
    s->mb2_tags_len = eb_xen_mb2_tags(tags);
    s->mb2_tags = tags;
}

static inline uint8_t *eb_build(const struct eb_spec *s, size_t *size)
{
    size_t n = s->size;
    uint8_t *img = calloc(1, n ? n : 1);
    unsigned eh = s->cls == 64 ? 64 : 52, ph = s->cls == 64 ? 56 : 32;
    uint64_t phoff = s->phoff ? s->phoff : eh;
    uint16_t phentsize = s->phentsize ? s->phentsize : (uint16_t)ph;
    uint8_t hdr[64] = { 0 };

    /* the file's own bytes, a pattern, so copies can be checked */
    for (size_t i = 0; i < n; i++)
        img[i] = (uint8_t)(i * 7 + 3);
    hdr[0] = 0x7f, hdr[1] = 'E', hdr[2] = 'L', hdr[3] = 'F';
    hdr[4] = s->cls == 64 ? 2 : 1;   /* EI_CLASS */
    hdr[5] = 1;                      /* EI_DATA: little-endian */
    hdr[6] = 1;                      /* EI_VERSION */
    put16(hdr, 16, s->type);
    put16(hdr, 18, s->machine);
    put32(hdr, 20, s->version);
    if (s->cls == 64) {
        put64(hdr, 24, s->entry);
        put64(hdr, 32, phoff);
        put16(hdr, 52, 64);
        put16(hdr, 54, phentsize);
        put16(hdr, 56, (uint16_t)s->nseg);
    } else {
        put32(hdr, 24, (uint32_t)s->entry);
        put32(hdr, 28, (uint32_t)phoff);
        put16(hdr, 40, 52);
        put16(hdr, 42, phentsize);
        put16(hdr, 44, (uint16_t)s->nseg);
    }
    memcpy(img, hdr, n < eh ? n : eh);
    for (unsigned i = 0; i < s->nseg; i++) {
        uint8_t p[64] = { 0 };
        const struct eb_seg *g = &s->seg[i];
        if (s->cls == 64) {
            put32(p, 0, g->type);
            put32(p, 4, 7);
            put64(p, 8, g->offset);
            put64(p, 16, g->vaddr);
            put64(p, 24, g->paddr);
            put64(p, 32, g->filesz);
            put64(p, 40, g->memsz);
            put64(p, 48, 0x1000);
        } else {
            put32(p, 0, g->type);
            put32(p, 4, (uint32_t)g->offset);
            put32(p, 8, (uint32_t)g->vaddr);
            put32(p, 12, (uint32_t)g->paddr);
            put32(p, 16, (uint32_t)g->filesz);
            put32(p, 20, (uint32_t)g->memsz);
            put32(p, 24, 7);
            put32(p, 28, 0x1000);
        }
        for (unsigned b = 0; b < ph; b++) {
            uint64_t at = phoff + (uint64_t)i * phentsize + b;
            if (at < n)
                img[at] = p[b];
        }
    }
    if (s->mb1_off && s->mb1_off + 12 <= n) {
        put32(img, s->mb1_off, 0x1badb002);
        put32(img, s->mb1_off + 4, s->mb1_flags);
        put32(img, s->mb1_off + 8, (uint32_t)-(0x1badb002u + s->mb1_flags));
    }
    if (s->mb2_off && s->mb2_off + 16 + s->mb2_tags_len <= n) {
        uint32_t len = (uint32_t)(16 + s->mb2_tags_len);
        put32(img, s->mb2_off, 0xe85250d6);
        put32(img, s->mb2_off + 4, s->mb2_arch);
        put32(img, s->mb2_off + 8, len);
        put32(img, s->mb2_off + 12, (uint32_t)-(0xe85250d6u + s->mb2_arch + len));
        memcpy(img + s->mb2_off + 16, s->mb2_tags, s->mb2_tags_len);
    }
    *size = n;
    return img;
}

#endif
