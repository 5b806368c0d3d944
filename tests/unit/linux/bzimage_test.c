/* SPDX-License-Identifier: MIT */
/* bzimage_parse(): synthetic headers, every validation, and the kernel the build produced. */
#include "test_common.h"
#include "test_image.h"

#include "linux/bzimage.h"

static struct bzimage bz;
static char err[192];
static int parse_spec(const struct bz_spec *s)
{
    free(img);
    img = bz_build(s, &img_size);
    memset(err, 0, sizeof(err));
    return bzimage_parse(img, (uint32_t)img_size, &bz, err, sizeof(err));
}

static int reparse(uint32_t size)
{
    memset(err, 0, sizeof(err));
    return bzimage_parse(img, size, &bz, err, sizeof(err));
}

static void expect_fail_spec(const struct bz_spec *s, const char *msg)
{
    assert_int_equal(parse_spec(s), -1);
    assert_contains(err, msg);
}

static void good_default(void **state)
{
    (void)state;
    struct bz_spec s;
    bz_spec_default(&s);
    assert_int_equal(parse_spec(&s), 0);
    assert_string_equal(err, "");
    assert_int_equal(img_size, 0xa00 + 0x3000);
    assert_int_equal(bz.hdr_len, 0x7b);           /* jump 0x6a: 0x202 + 0x6a - 0x1f1 */
    assert_int_equal(bz.setup_size, 0xa00);
    assert_int_equal(bz.pm_offset, 0xa00);
    assert_int_equal(bz.pm_size, 0x3000);
    assert_int_equal(bz.init_size, 0x800000);
    assert_int_equal(bz.alignment, 0x200000);
    assert_int_equal(bz.pref_address, 0x1000000);
    assert_int_equal(bz.cmdline_max, 2047);
    assert_true(bz.relocatable);
    assert_int_equal(bz.hdr.version, 0x020f);
    assert_int_equal(bz.hdr.syssize, 0x300);
    assert_int_equal(bz.hdr.initrd_addr_max, 0x7fffffff);
    assert_int_equal(bz.hdr.xloadflags, 3);
    assert_int_equal(bz.hdr.kernel_info_offset, 0x1234);
    /* the copy is the file's bytes */
    assert_memory_equal(&bz.hdr, img + 0x1f1, 0x7b);
}

static void good_variants(void **state)
{
    (void)state;
    struct bz_spec s;
    /* setup_sects 0 means 4 */
    bz_spec_default(&s);
    s.setup_sects = 0;
    assert_int_equal(parse_spec(&s), 0);
    assert_int_equal(bz.setup_size, 0xa00);
    /* a big setup */
    bz_spec_default(&s);
    s.setup_sects = 0x27;
    assert_int_equal(parse_spec(&s), 0);
    assert_int_equal(bz.setup_size, 0x28 * 512);
    assert_int_equal(bz.pm_offset, 0x5000);
    /* protocol 2.10, the oldest accepted, with a shorter header (jump 0x62: through init_size) */
    bz_spec_default(&s);
    s.version = 0x020a;
    s.jump = 0x62eb;
    assert_int_equal(parse_spec(&s), 0);
    assert_int_equal(bz.hdr_len, 0x73);
    /* a longer header than we know is cut to ours */
    bz_spec_default(&s);
    s.jump = 0x7feb;
    assert_int_equal(parse_spec(&s), 0);
    assert_int_equal(bz.hdr_len, 0x7b);
    /* not relocatable: alignment is not checked */
    bz_spec_default(&s);
    s.relocatable = 0;
    s.kernel_alignment = 3;
    assert_int_equal(parse_spec(&s), 0);
    assert_false(bz.relocatable);
    /* syssize rounded up by older build.c: up to 15 bytes more than the file */
    bz_spec_default(&s);
    s.pm_size = 0x3001;
    s.syssize = 0x301;
    assert_int_equal(parse_spec(&s), 0);
    assert_int_equal(bz.pm_size, 0x3001);
    /* init_size == image, and a kernel that ends exactly at 4 GiB */
    bz_spec_default(&s);
    s.init_size = 0x3000;
    s.pref_address = 0xfffff000;
    s.pm_size = 0x1000;
    s.init_size = 0x1000;
    assert_int_equal(parse_spec(&s), 0);
    /* alignment 4 KiB, the smallest */
    bz_spec_default(&s);
    s.kernel_alignment = 0x1000;
    assert_int_equal(parse_spec(&s), 0);
    assert_int_equal(bz.alignment, 0x1000);
}

static void too_small(void **state)
{
    (void)state;
    struct bz_spec s;
    bz_spec_default(&s);
    assert_int_equal(parse_spec(&s), 0);
    assert_int_equal(reparse(0x26b), -1);
    assert_contains(err, "kernel image is 619 bytes, too small for a bzImage setup header");
    assert_int_equal(reparse(0), -1);
    assert_contains(err, "kernel image is 0 bytes");
    /* 0x26c bytes: the header is there, but setup (0xa00) is beyond the file */
    assert_int_equal(reparse(0x26c), -1);
    assert_contains(err, "kernel image truncated: 620 bytes, setup alone is 2560");
    assert_int_equal(reparse(0xa00), -1);
    assert_contains(err, "setup alone is 2560");
}

static void header_errors(void **state)
{
    (void)state;
    struct bz_spec s;
    bz_spec_default(&s);
    assert_int_equal(parse_spec(&s), 0);
    memcpy(img + 0x202, "HdrT", 4);
    assert_int_equal(reparse((uint32_t)img_size), -1);
    assert_contains(err, "kernel image has no 'HdrS' setup header (not a bzImage)");
    memcpy(img + 0x202, "HdrS", 4);
    put16(img, 0x1fe, 0x55aa);
    assert_int_equal(reparse((uint32_t)img_size), -1);
    assert_contains(err, "kernel image boot_flag is 0x55aa, not 0xaa55");

    bz_spec_default(&s);
    s.version = 0x0209;
    expect_fail_spec(&s, "kernel boot protocol 2.09 is older than 2.10");
    s.version = 0x0105;
    expect_fail_spec(&s, "kernel boot protocol 1.05 is older than 2.10");

    bz_spec_default(&s);
    s.loadflags = 0x80;
    expect_fail_spec(&s, "kernel is a zImage (not loaded high), unsupported");

    bz_spec_default(&s);
    s.jump = 0x6ae9;                 /* not a short jump */
    expect_fail_spec(&s, "kernel setup header length is malformed (jump 0x6ae9)");
    s.jump = 0x61eb;                 /* header ends before init_size */
    expect_fail_spec(&s, "kernel setup header length is malformed (jump 0x61eb)");
    s.jump = 0x00eb;
    expect_fail_spec(&s, "(jump 0x00eb)");
}

static void setup_beyond_file(void **state)
{
    (void)state;
    struct bz_spec s;
    bz_spec_default(&s);
    s.pm_size = 0;
    s.syssize = 1;
    expect_fail_spec(&s, "kernel image truncated: 2560 bytes, setup alone is 2560");
    bz_spec_default(&s);
    s.setup_sects = 0xff;            /* 128 KiB of setup in a 14 KiB file */
    assert_int_equal(parse_spec(&s), 0);
    assert_int_equal(reparse(0x4000), -1);
    assert_contains(err, "kernel image truncated: 16384 bytes, setup alone is 131072");
}

static void truncated_pm(void **state)
{
    (void)state;
    struct bz_spec s;
    bz_spec_default(&s);
    s.syssize = 0x302;               /* 0x3020 > 0x3000 + 15 */
    expect_fail_spec(&s, "kernel image truncated: protected-mode part is 12288 bytes, header "
                         "says 12320");
    s.syssize = 0x301;               /* 0x3010 > 0x300f */
    expect_fail_spec(&s, "header says 12304");
    s.syssize = 0xffffffffu;         /* no 32-bit overflow */
    expect_fail_spec(&s, "header says 68719476720");
    /* the real image cut short */
    bz_spec_default(&s);
    assert_int_equal(parse_spec(&s), 0);
    assert_int_equal(reparse((uint32_t)img_size - 16), -1);
    assert_contains(err, "protected-mode part is 12272 bytes, header says 12288");
    assert_int_equal(reparse((uint32_t)img_size - 15), 0);
    /* syssize 0 */
    put32(img, 0x1f4, 0);
    assert_int_equal(reparse((uint32_t)img_size), -1);
    assert_contains(err, "kernel header syssize is 0");
}

static void alignment_errors(void **state)
{
    (void)state;
    struct bz_spec s;
    bz_spec_default(&s);
    s.kernel_alignment = 0x800;
    expect_fail_spec(&s, "kernel_alignment 0x800 is not a power of two >= 4 KiB");
    s.kernel_alignment = 0x300000;
    expect_fail_spec(&s, "kernel_alignment 0x300000 is not a power of two");
    s.kernel_alignment = 0;
    expect_fail_spec(&s, "kernel_alignment 0x0 is not");
}

static void pref_address_errors(void **state)
{
    (void)state;
    struct bz_spec s;
    bz_spec_default(&s);
    s.pref_address = 0x1000800;
    expect_fail_spec(&s, "kernel pref_address 0x1000800 is not a page below 4 GiB");
    s.pref_address = 0x100000000ull;
    expect_fail_spec(&s, "kernel pref_address 0x100000000 is not a page below 4 GiB");
    s.pref_address = 0xfffffffffffff000ull;
    expect_fail_spec(&s, "pref_address 0xfffffffffffff000");
    /* fits as a page, but the kernel would run past 4 GiB */
    s.pref_address = 0xff800000;
    s.init_size = 0x800001;
    expect_fail_spec(&s, "kernel needs 0x800001 bytes at 0xff800000, beyond 4 GiB");
}

static void init_size_errors(void **state)
{
    (void)state;
    struct bz_spec s;
    bz_spec_default(&s);
    s.init_size = 0x2fff;
    expect_fail_spec(&s, "kernel init_size 0x2fff is smaller than the image 0x3000");
    s.init_size = 0;
    expect_fail_spec(&s, "kernel init_size 0x0 is smaller than the image 0x3000");
}

static void err_buffer_is_bounded(void **state)
{
    (void)state;
    struct bz_spec s;
    bz_spec_default(&s);
    s.version = 0x0100;
    img = bz_build(&s, &img_size);
    char small[8];
    memset(small, 'x', sizeof(small));
    assert_int_equal(bzimage_parse(img, (uint32_t)img_size, &bz, small, sizeof(small)), -1);
    assert_string_equal(small, "kernel ");
}

/* The kernel `make` builds: parsed fields against the header bytes read here. */
static void real_image(void **state)
{
    (void)state;
    const char *out = getenv("VTBOOT_OUT");
    char path[512];
    snprintf(path, sizeof(path), "%s/bzImage", out && *out ? out : "out");
    FILE *f = fopen(path, "rb");
    if (!f) {
        print_message("real_image: %s absent (run `make` first), skipped\n", path);
        skip();
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    assert_true(n > 0x1000);
    img = malloc((size_t)n);
    assert_non_null(img);
    assert_int_equal(fread(img, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    img_size = (size_t)n;

    assert_int_equal(bzimage_parse(img, (uint32_t)n, &bz, err, sizeof(err)), 0);
    assert_memory_equal(img + 0x202, "HdrS", 4);
    assert_int_equal(get16(img, 0x1fe), 0xaa55);
    unsigned sects = get8(img, 0x1f1) ? get8(img, 0x1f1) : 4;
    assert_int_equal(bz.setup_size, (sects + 1) * 512);
    assert_int_equal(bz.pm_offset, (sects + 1) * 512);
    assert_int_equal(bz.pm_size, (uint32_t)n - (sects + 1) * 512);
    assert_int_equal(bz.hdr_len, 0x202 + get8(img, 0x201) - 0x1f1 > 0x7b
                                     ? 0x7b : 0x202 + get8(img, 0x201) - 0x1f1);
    assert_int_equal(bz.hdr.version, get16(img, 0x206));
    assert_true(bz.hdr.version >= 0x020a);
    assert_int_equal(bz.hdr.syssize, get32(img, 0x1f4));
    assert_true((uint64_t)get32(img, 0x1f4) * 16 <= bz.pm_size + 15ull);
    assert_int_equal(bz.relocatable, get8(img, 0x234) != 0);
    assert_int_equal(bz.alignment, get32(img, 0x230));
    assert_int_equal(bz.pref_address, get64(img, 0x258));
    assert_int_equal(bz.init_size, get32(img, 0x260));
    assert_true(bz.init_size >= bz.pm_size);
    assert_int_equal(bz.cmdline_max, get32(img, 0x238));
    assert_int_equal(bz.hdr.initrd_addr_max, get32(img, 0x22c));
    assert_int_equal(bz.hdr.loadflags, get8(img, 0x211));
    assert_int_equal(bz.hdr.xloadflags, get16(img, 0x236));
    assert_true(get8(img, 0x211) & 1);
    print_message("real_image: %s: protocol %u.%02u, %u bytes, setup %u, init_size 0x%x, "
                  "pref 0x%llx, align 0x%x, %srelocatable\n", path, bz.hdr.version >> 8,
                  bz.hdr.version & 0xff, (unsigned)n, bz.setup_size, bz.init_size,
                  (unsigned long long)bz.pref_address, bz.alignment, bz.relocatable ? "" : "not ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TI(good_default),
        TI(good_variants),
        TI(too_small),
        TI(header_errors),
        TI(setup_beyond_file),
        TI(truncated_pm),
        TI(alignment_errors),
        TI(pref_address_errors),
        TI(init_size_errors),
        TI(err_buffer_is_bounded),
        TI(real_image),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
