/* SPDX-License-Identifier: MIT */
/* mbhdr_scan() and mbhdr_protocol(): finding the multiboot headers as GRUB does, and refusing
 * what vtboot cannot give the kernel; kernel_detect(): module 0's kind by content. */
#include "test_common.h"
#include "test_image.h"

#include "elf_build.h"
#include "mbkernel/detect.h"
#include "mbkernel/mbheader.h"

static struct mb_kernel_header h;
static char err[256];
static int scan(const struct eb_spec *s)
{
    free(img);
    img = eb_build(s, &img_size);
    memset(err, 0, sizeof(err));
    return mbhdr_scan(img, (uint32_t)img_size, &h, err, sizeof(err));
}

/* a multiboot2 spec with one tag (type, flags, payload words) before the end tag */
static uint8_t tagbuf[256];
static void one_tag(struct eb_spec *s, uint16_t type, uint16_t flags, const uint32_t *words,
                    unsigned nwords)
{
    size_t o = 0;
    uint32_t size = 8 + 4 * nwords;
    put16(tagbuf, 0, type);
    put16(tagbuf, 2, flags);
    put32(tagbuf, 4, size);
    for (unsigned i = 0; i < nwords; i++)
        put32(tagbuf, 8 + 4 * i, words[i]);
    o = (size + 7) & ~7u;
    put16(tagbuf, o, 0);
    put16(tagbuf, o + 2, 0);
    put32(tagbuf, o + 4, 8);
    eb_xen_like(s);
    s->mb1_off = 0;
    s->mb2_tags = tagbuf;
    s->mb2_tags_len = o + 8;
}

static void xen_headers(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    assert_int_equal(scan(&s), 0);
    assert_true(h.mb1 && h.mb2);
    assert_int_equal(h.mb1_offset, 0x80);
    assert_int_equal(h.mb1_flags, 3);
    assert_int_equal(h.mb2_offset, 0x90);
    assert_int_equal(h.mb2_length, 16 + 120);
    assert_int_equal(h.mb2_info_required, (1u << 4) | (1u << 6));
    assert_int_equal(h.mb2_info_wanted, (1u << 4) | (1u << 6));
    assert_false(h.mb2_entry_set);
    assert_int_equal(mbhdr_protocol(&h, BOOT_MULTIBOOT1), BOOT_MULTIBOOT1);
    assert_int_equal(mbhdr_protocol(&h, BOOT_MULTIBOOT2), BOOT_MULTIBOOT2);
}

static void protocol_choice(void **state)
{
    (void)state;
    struct mb_kernel_header k = { 0 };
    k.mb1 = true;                    /* MB1-only: tboot converts MB2 information to MB1 */
    assert_int_equal(mbhdr_protocol(&k, BOOT_MULTIBOOT2), BOOT_MULTIBOOT1);
    k.mb1 = false, k.mb2 = true;     /* MB2-only from a multiboot1 loader: tboot gives up,
                                      * vtboot builds multiboot2 information itself */
    assert_int_equal(mbhdr_protocol(&k, BOOT_MULTIBOOT1), BOOT_MULTIBOOT2);
}

static void none(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    s.mb1_off = s.mb2_off = 0;
    assert_int_equal(scan(&s), 1);
    assert_false(h.mb1 || h.mb2);
    assert_string_equal(err, "no multiboot header (a multiboot1 header in its first 8 KiB or a "
                             "multiboot2 header in its first 32 KiB)");
}

/* the search limits and alignments, and a bad checksum skipped as GRUB skips it */
static void search(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    s.size = 0x9000;
    s.mb2_off = 0;
    s.mb1_off = 8192 - 12;           /* the last place a 12-byte header fits */
    assert_int_equal(scan(&s), 0);
    assert_true(h.mb1);
    assert_int_equal(h.mb1_offset, 8180);
    s.mb1_off = 8192 - 8;            /* crosses the 8 KiB limit */
    assert_int_equal(scan(&s), 1);
    s.mb1_off = 0x82;                /* not 4-aligned */
    assert_int_equal(scan(&s), 1);
    s.mb1_off = 0x80;
    assert_int_equal(scan(&s), 0);
    put32(img, 0x88, get32(img, 0x88) + 1);       /* checksum off by one */
    put32(img, 0x100, 0x1badb002);                /* a good one later */
    put32(img, 0x104, 1);
    put32(img, 0x108, (uint32_t)-(0x1badb002u + 1));
    assert_int_equal(mbhdr_scan(img, (uint32_t)img_size, &h, err, sizeof(err)), 0);
    assert_int_equal(h.mb1_offset, 0x100);
    assert_int_equal(h.mb1_flags, 1);

    eb_xen_like(&s);
    s.size = 0x9000;
    s.mb1_off = 0;
    s.mb2_off = 32768 - 136;         /* Xen's header ends exactly at 32 KiB */
    assert_int_equal(scan(&s), 0);
    assert_true(h.mb2);
    s.mb2_off = 32768 - 8;           /* its first 16 bytes cross the limit */
    assert_int_equal(scan(&s), 1);
    s.mb2_off = 0x94;                /* not 8-aligned */
    assert_int_equal(scan(&s), 1);
}

static void mb1_flags(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    s.mb2_off = 0;
    s.mb1_flags = 0x10003;
    assert_int_equal(scan(&s), -1);
    assert_string_equal(err, "its multiboot1 header (at 0x80) asks to be loaded by its address "
                             "fields (flag 16, the a.out kludge); vtboot loads ELF program "
                             "headers only");
    s.mb1_flags = 0x7;
    assert_int_equal(scan(&s), -1);
    assert_string_equal(err, "its multiboot1 header (at 0x80) requires flags 0x4 (a video mode "
                             "table), which vtboot does not provide");
    s.mb1_flags = 0x8003;
    assert_int_equal(scan(&s), -1);
    assert_string_equal(err, "its multiboot1 header (at 0x80) requires flags 0x8000, which "
                             "vtboot does not provide");
    s.mb1_flags = 0x40000003;        /* optional bits: ignored */
    assert_int_equal(scan(&s), 0);
    s.mb1_flags = 0;
    assert_int_equal(scan(&s), 0);
}

static void mb2_structure(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    s.mb1_off = 0;
    s.mb2_arch = 4;
    assert_int_equal(scan(&s), -1);
    assert_string_equal(err, "its multiboot2 header (at 0x90) is for architecture 4, not i386 (0)");

    one_tag(&s, 4, 1, (uint32_t[]){ 0 }, 1);
    s.mb2_tags_len = 16;             /* no end tag */
    assert_int_equal(scan(&s), -1);
    assert_string_equal(err, "its multiboot2 header (at 0x90) has no end tag within its 32 "
                             "bytes");
    one_tag(&s, 4, 1, (uint32_t[]){ 0 }, 1);
    put32(tagbuf, 4, 7);             /* a tag smaller than its own header */
    assert_int_equal(scan(&s), -1);
    assert_string_equal(err, "its multiboot2 header tag type 4 at offset 16 has size 7");
    one_tag(&s, 4, 1, (uint32_t[]){ 0 }, 1);
    put32(tagbuf, 4, 100);           /* beyond the header's length */
    assert_int_equal(scan(&s), -1);
    assert_contains(err, "has size 100");
    one_tag(&s, 4, 1, (uint32_t[]){ 0 }, 1);
    put32(tagbuf, 16 + 4, 16);       /* an end tag of size 16 */
    s.mb2_tags_len = 32;
    assert_int_equal(scan(&s), -1);
    assert_string_equal(err, "its multiboot2 header end tag has size 16");
    one_tag(&s, 4, 1, (uint32_t[]){ 0 }, 1);
    s.mb2_tags_len = 4;              /* header length 20: a tag header would be truncated */
    assert_int_equal(scan(&s), -1);
    assert_string_equal(err, "its multiboot2 header (at 0x90) has length 20, beyond the image "
                             "or without room for an end tag");
}

static void mb2_requirements(void **state)
{
    (void)state;
    struct eb_spec s;
    static const struct {
        uint16_t type, flags;
        uint32_t w[3];
        unsigned n;
        const char *msg;
    } c[] = {
        { 1, 0, { 8, 0, 0 }, 1, "its multiboot2 header requires information tag type 8, which "
                                "vtboot does not provide" },
        { 1, 0, { 6, 40, 0 }, 2, "requires information tag type 40" },
        { 2, 0, { 0, 0, 0 }, 3, "requires loading by address fields (tag 2)" },
        { 5, 0, { 0, 0, 0 }, 3, "requires a framebuffer (tag 5)" },
        { 7, 0, { 0, 0, 0 }, 0, "requires EFI (tag 7)" },
        { 8, 0, { 0, 0, 0 }, 1, "requires EFI (tag 8)" },
        { 9, 0, { 0, 0, 0 }, 1, "requires EFI (tag 9)" },
        { 77, 0, { 0, 0, 0 }, 0, "requires tag type 77, unknown to vtboot" },
        { 1, 0, { 6, 0, 0 }, 0, NULL },
        { 1, 1, { 8, 40, 0 }, 2, NULL },           /* optional requests: fine */
        { 1, 0, { 1, 2, 3 }, 3, NULL },
        { 2, 1, { 0, 0, 0 }, 3, NULL },
        { 5, 1, { 0, 0, 0 }, 3, NULL },
        { 7, 1, { 0, 0, 0 }, 0, NULL },
        { 77, 1, { 0, 0, 0 }, 0, NULL },
        { 6, 0, { 0, 0, 0 }, 0, NULL },
        { 10, 0, { 0x100000, 0xffffffff, 0x1000 }, 3, NULL },
        { 4, 0, { 3, 0, 0 }, 1, NULL },
    };
    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        one_tag(&s, c[i].type, c[i].flags, c[i].w, c[i].n);
        int rc = scan(&s);
        if (c[i].msg) {
            assert_int_equal(rc, -1);
            assert_contains(err, c[i].msg);
        } else {
            assert_int_equal(rc, 0);
        }
    }
    one_tag(&s, 1, 1, (uint32_t[]){ 8, 40, 21 }, 3);
    assert_int_equal(scan(&s), 0);
    assert_int_equal(h.mb2_info_wanted, (1u << 8) | (1u << 21));
    assert_int_equal(h.mb2_info_required, 0);
    one_tag(&s, 1, 0, (uint32_t[]){ 14, 21, 3 }, 3);
    assert_int_equal(scan(&s), 0);
    assert_int_equal(h.mb2_info_required, (1u << 14) | (1u << 21) | (1u << 3));
    one_tag(&s, 1, 0, (uint32_t[]){ 6 }, 1);
    put32(tagbuf, 4, 10);            /* not a whole number of types */
    assert_int_equal(scan(&s), -1);
    assert_string_equal(err, "its multiboot2 information request tag has size 10");
    one_tag(&s, 3, 0, (uint32_t[]){ 0x200100 }, 1);
    assert_int_equal(scan(&s), 0);
    assert_true(h.mb2_entry_set);
    assert_int_equal(h.mb2_entry, 0x200100);
    one_tag(&s, 3, 0, NULL, 0);
    assert_int_equal(scan(&s), -1);
    assert_string_equal(err, "its multiboot2 entry address tag has size 8");
}

static void detect(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    img = eb_build(&s, &img_size);
    assert_int_equal(kernel_detect(img, (uint32_t)img_size, err, sizeof(err)), KERNEL_ELF);
    assert_int_equal(kernel_detect(img, 4, err, sizeof(err)), KERNEL_ELF);
    assert_int_equal(kernel_detect(img, 3, err, sizeof(err)), KERNEL_UNKNOWN);

    struct bz_spec b;
    size_t n;
    bz_spec_default(&b);
    uint8_t *bz = bz_build(&b, &n);
    assert_int_equal(kernel_detect(bz, (uint32_t)n, err, sizeof(err)), KERNEL_BZIMAGE);
    assert_int_equal(kernel_detect(bz, 0x206, err, sizeof(err)), KERNEL_BZIMAGE);
    memset(err, 0, sizeof(err));
    assert_int_equal(kernel_detect(bz, 0x205, err, sizeof(err)), KERNEL_UNKNOWN);
    assert_string_equal(err, "neither a Linux bzImage nor a multiboot ELF kernel (517 bytes): "
                             "no 'HdrS' setup header (not a bzImage), no ELF magic");
    bz[0x202] = 'h';
    assert_int_equal(kernel_detect(bz, (uint32_t)n, err, sizeof(err)), KERNEL_UNKNOWN);
    assert_contains(err, "no 'HdrS' setup header (not a bzImage)");
    free(bz);
    assert_string_equal(kernel_kind_name(KERNEL_BZIMAGE), "Linux bzImage");
    assert_string_equal(kernel_kind_name(KERNEL_ELF), "ELF image");
    assert_string_equal(kernel_kind_name(KERNEL_UNKNOWN), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TI(xen_headers),
        TI(protocol_choice),
        TI(none),
        TI(search),
        TI(mb1_flags),
        TI(mb2_structure),
        TI(mb2_requirements),
        TI(detect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
