/* SPDX-License-Identifier: MIT */
/* elf_parse(): synthetic ELF32/ELF64 kernels, every rule both ways, every truncation, and the
 * Xen binaries on this machine (Debian's, and the one xen/build.sh made) read independently. */
#include "test_common.h"
#include "test_image.h"

#include "elf_build.h"
#include "mbkernel/elf.h"

static struct elf_image e;
static char err[256];
static int parse(const struct eb_spec *s)
{
    free(img);
    img = eb_build(s, &img_size);
    memset(err, 0, sizeof(err));
    return elf_parse(img, (uint32_t)img_size, &e, err, sizeof(err));
}

static void fails(const struct eb_spec *s, const char *msg)
{
    assert_int_equal(parse(s), -1);
    assert_contains(err, msg);
}

static void xen_like(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    assert_int_equal(parse(&s), 0);
    assert_int_equal(e.elf_class, 32);
    assert_int_equal(e.machine, 3);
    assert_int_equal(e.entry, 0x200000);
    assert_int_equal(e.nr_segments, 1);
    assert_int_equal(e.seg[0].paddr, 0x200000);
    assert_int_equal(e.seg[0].memsz, 0x8000);
    assert_int_equal(e.seg[0].offset, 0x80);
    assert_int_equal(e.seg[0].filesz, 0x3000);
    assert_int_equal(e.lowest, 0x200000);
    assert_int_equal(e.highest, 0x208000);
}

/* ELF64, segments out of order, a non-load segment, a zero-size load, entry translated from
 * its virtual address through the segment that holds it */
static void elf64_vaddr(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    s.cls = 64;
    s.machine = 62;
    s.nseg = 4;
    s.seg[0] = (struct eb_seg){ 1, 0x1000, 0xffffffff81000000ull, 0x1000000, 0x2000, 0x3000 };
    s.seg[1] = (struct eb_seg){ 4, 0x100, 0, 0, 0x20, 0x20 };          /* PT_NOTE */
    s.seg[2] = (struct eb_seg){ 1, 0x3000, 0xffffffff80800000ull, 0x800000, 0x1000, 0x1000 };
    s.seg[3] = (struct eb_seg){ 1, 0, 0, 0x5000000, 0, 0 };            /* empty: skipped */
    s.entry = 0xffffffff81000123ull;
    s.size = 0x4000;
    s.mb2_off = 0;
    assert_int_equal(parse(&s), 0);
    assert_int_equal(e.elf_class, 64);
    assert_int_equal(e.nr_segments, 2);
    assert_int_equal(e.seg[0].index, 0);
    assert_int_equal(e.seg[1].index, 2);
    assert_int_equal(e.entry, 0x1000123);
    assert_true(e.e_entry == 0xffffffff81000123ull);
    assert_int_equal(e.lowest, 0x800000);
    assert_int_equal(e.highest, 0x1003000);
}

static void identification(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    assert_int_equal(parse(&s), 0);
    uint8_t *good = malloc(img_size);
    size_t n = img_size;
    memcpy(good, img, n);
    static const struct { unsigned off; uint8_t v; const char *msg; } cases[] = {
        { 0, 0x7e, "no ELF magic" },
        { 3, 'G', "no ELF magic" },
        { 4, 3, "ELF class 3 is neither ELF32 (1) nor ELF64 (2)" },
        { 5, 2, "ELF data encoding 2 is not little-endian (1)" },
        { 6, 0, "ELF identification version 0 is not 1" },
        { 16, 3, "ELF type 3 is not an executable (2)" },
        { 18, 40, "ELF machine 40 is neither i386 (3) nor x86-64 (62)" },
        { 20, 2, "ELF version 2 is not 1" },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memcpy(img, good, n);
        img[cases[i].off] = cases[i].v;
        memset(err, 0, sizeof(err));
        assert_int_equal(elf_parse(img, (uint32_t)n, &e, err, sizeof(err)), -1);
        assert_string_equal(err, cases[i].msg);
    }
    free(good);
}

static void program_headers(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    s.nseg = 0;
    fails(&s, "ELF image has no program headers");
    eb_xen_like(&s);
    s.nseg = 0;
    s.phoff = 52;
    free(img);
    img = eb_build(&s, &img_size);
    put16(img, 44, 300);             /* e_phnum */
    assert_int_equal(elf_parse(img, (uint32_t)img_size, &e, err, sizeof(err)), -1);
    assert_string_equal(err, "ELF image has 300 program headers, at most 256 are accepted");
    eb_xen_like(&s);
    s.phentsize = 31;
    fails(&s, "ELF program header size 31 is smaller than 32");
    eb_xen_like(&s);
    s.phoff = 0x3070;                /* the header itself would end at 0x3090 > 0x3080 */
    fails(&s, "ELF program headers (1 of 32 bytes at offset 0x3070) lie beyond the image's "
              "12416 bytes (truncated ELF?)");
    eb_xen_like(&s);
    s.phoff = 0xffffffff;            /* wraps */
    fails(&s, "lie beyond the image's");
    /* a larger phentsize is fine (as tboot allows) */
    eb_xen_like(&s);
    s.phentsize = 40;
    assert_int_equal(parse(&s), 0);
}

static void segments(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    s.seg[0].filesz = 0x9000;
    fails(&s, "ELF segment 0: file size 0x9000 exceeds its memory size 0x8000");
    eb_xen_like(&s);
    s.seg[0].filesz = 0x3001;        /* one byte past the file */
    fails(&s, "ELF segment 0: file bytes 0x80+0x3001 lie beyond the image's 12416 bytes "
              "(truncated ELF?)");
    eb_xen_like(&s);
    s.seg[0].paddr = s.seg[0].vaddr = s.entry = 0xffff9000;
    fails(&s, "ELF segment 0: 0xffff9000+0x8000 reaches beyond 4 GiB");
    eb_xen_like(&s);
    s.seg[0].paddr = s.seg[0].vaddr = s.entry = 0xffff8000;   /* ends exactly at 4 GiB */
    assert_int_equal(parse(&s), 0);
    assert_true(e.highest == 0x100000000ull);
    eb_xen_like(&s);
    s.nseg = 2;
    s.seg[1] = (struct eb_seg){ 1, 0x80, 0x207000, 0x207000, 0x10, 0x2000 };
    fails(&s, "ELF segments 0 (0x200000+0x8000) and 1 (0x207000+0x2000) overlap");
    eb_xen_like(&s);
    s.seg[0].type = 4;
    fails(&s, "ELF image has no loadable segment");
    eb_xen_like(&s);
    s.nseg = 17;
    s.size = 0x4000;
    s.phoff = 0x1000;                /* the program headers after the multiboot headers */
    for (unsigned i = 0; i < 17; i++)
        s.seg[i] = (struct eb_seg){ 1, 0x80, 0x200000 + 0x10000 * i, 0x200000 + 0x10000 * i,
                                    0x100, 0x100 };
    fails(&s, "ELF image has more than 16 loadable segments");
    s.nseg = 16;
    assert_int_equal(parse(&s), 0);
    assert_int_equal(e.nr_segments, 16);
}

static void entry_point(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    s.entry = 0x200000 + 0x3000;     /* first byte past the file bytes: zero-filled */
    fails(&s, "ELF entry point 0x203000 is not in the file bytes of a loadable segment");
    s.entry = 0x200000 + 0x2fff;
    assert_int_equal(parse(&s), 0);
    assert_int_equal(e.entry, 0x202fff);
    s.entry = 0x1fffff;
    fails(&s, "ELF entry point 0x1fffff is not in the file bytes");
}

/* Every prefix of a good image: refused below its full size (each reason a truncation), and
 * never a read outside it (ASan: the parser gets exactly that many bytes). */
static void every_truncation(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    assert_int_equal(parse(&s), 0);
    for (size_t n = 0; n < img_size; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, img, n);
        memset(err, 0, sizeof(err));
        assert_int_equal(elf_parse(copy, (uint32_t)n, &e, err, sizeof(err)), -1);
        assert_true(strstr(err, "truncated") || strstr(err, "no ELF magic"));
        free(copy);
    }
}

static void err_is_bounded(void **state)
{
    (void)state;
    struct eb_spec s;
    eb_xen_like(&s);
    s.seg[0].filesz = 0x3001;
    img = eb_build(&s, &img_size);
    char small[16];
    memset(small, 'x', sizeof(small));
    assert_int_equal(elf_parse(img, (uint32_t)img_size, &e, small, 10), -1);
    assert_int_equal(strlen(small), 9);
    assert_int_equal(small[10], 'x');
}

/* The real Xen images, unpacked with gzip; program headers read here at their offsets. */
static uint8_t *gunzip(const char *path, size_t *n)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "gzip -dc '%s' 2>/dev/null", path);
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 22, len = 0;
    uint8_t *buf = malloc(cap);
    size_t r;
    while ((r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    if (pclose(f) != 0 || len == 0) {
        free(buf);
        return NULL;
    }
    *n = len;
    return buf;
}

static void real_xen(void **state)
{
    (void)state;
    const char *out = getenv("VTBOOT_OUT");
    char tboot_xen[512];
    snprintf(tboot_xen, sizeof(tboot_xen), "%s/xen-tboot.gz", out ? out : "out");
    const char *paths[] = { "/boot/xen-4.17-amd64.gz", tboot_xen };
    unsigned seen = 0;
    for (unsigned p = 0; p < 2; p++) {
        size_t n;
        uint8_t *x = gunzip(paths[p], &n);
        if (!x)
            continue;
        seen++;
        assert_int_equal(elf_parse(x, (uint32_t)n, &e, err, sizeof(err)), 0);
        /* ELF32 as Xen's mkelf32 writes it: e_phoff at 28, e_phnum at 44, 32-byte headers */
        uint32_t phoff = get32(x, 28), loads = 0;
        for (unsigned i = 0; i < get16(x, 44); i++) {
            const uint8_t *ph = x + phoff + 32 * i;
            if (get32(ph, 0) != 1)
                continue;
            assert_int_equal(e.seg[loads].offset, get32(ph, 4));
            assert_int_equal(e.seg[loads].paddr, get32(ph, 12));
            assert_int_equal(e.seg[loads].filesz, get32(ph, 16));
            assert_int_equal(e.seg[loads].memsz, get32(ph, 20));
            loads++;
        }
        assert_int_equal(e.nr_segments, loads);
        assert_int_equal(e.entry, get32(x, 24));
        assert_int_equal(e.lowest, 0x200000);          /* XEN_IMG_OFFSET */
        assert_true(e.highest < 0x800000);              /* below vtboot, as below tboot */
        print_message("real_xen: %s: %u segment(s), 0x%x - 0x%llx, entry 0x%x\n", paths[p],
                      e.nr_segments, e.lowest, (unsigned long long)e.highest, e.entry);
        free(x);
    }
    if (!seen)
        skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TI(xen_like),
        TI(elf64_vaddr),
        TI(identification),
        TI(program_headers),
        TI(segments),
        TI(entry_point),
        TI(every_truncation),
        TI(err_is_bounded),
        TI(real_xen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
