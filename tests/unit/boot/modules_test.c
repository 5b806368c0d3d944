/* SPDX-License-Identifier: MIT */
/* modules_check: RAM, no two modules overlap, none over vtboot's loaded image. */
#include "test_common.h"

#include "boot/modules.h"

#define IMAGE_START 0x840000u
#define IMAGE_END 0x8e3000u

static struct boot_info bi;
static char err[160];

/* QEMU's map with 512 MiB, and the modules (start, end) given. */
static void setup(unsigned n, const uint32_t (*mods)[2])
{
    memset(&bi, 0, sizeof(bi));
    e820_append(&bi.mmap, 0, 0x9fc00, 1);
    e820_append(&bi.mmap, 0x9fc00, 0x400, 2);
    e820_append(&bi.mmap, 0xf0000, 0x10000, 2);
    e820_append(&bi.mmap, 0x100000, 0x1fecf000, 1);
    e820_append(&bi.mmap, 0x1ffcf000, 0x31000, 2);
    assert_int_equal(e820_sanitize(&bi.mmap), 0);
    bi.nr_modules = n;
    for (unsigned i = 0; i < n; i++)
        bi.modules[i] = (struct boot_module){ mods[i][0], mods[i][1], "m" };
}

static void expect(int rc, const char *msg)
{
    err[0] = 0;
    assert_int_equal(modules_check(&bi, IMAGE_START, IMAGE_END, err, sizeof(err)), rc);
    assert_string_equal(err, msg);
}

static void good_modules(void **state)
{
    (void)state;
    /* GRUB's low placement (up to vtboot's persistent area, which vtboot moves them out of) and
     * QEMU's after its kernel; an empty module anywhere */
    const uint32_t mods[][2] = { { 0x100000, 0x840000 }, { 0x20c7000, 0x2286400 },
                                 { 0x850000, 0x850000 } };
    setup(3, mods);
    expect(0, "");
}

static void module_over_the_image(void **state)
{
    (void)state;
    const uint32_t mods[][2] = { { 0x20c7000, 0x2286400 }, { 0x840000, 0xe9f800 } };
    setup(2, mods);
    expect(-1, "module 1 at 0x840000+0x65f800 overlaps vtboot's loaded image 0x840000-0x8e3000");
    /* its last byte in the image's first, its first byte in the image's last (.bss) */
    const uint32_t ends[][2] = { { 0x700000, 0x840001 } };
    setup(1, ends);
    expect(-1, "module 0 at 0x700000+0x140001 overlaps vtboot's loaded image 0x840000-0x8e3000");
    const uint32_t starts[][2] = { { 0x8e2fff, 0x900000 } };
    setup(1, starts);
    expect(-1, "module 0 at 0x8e2fff+0x1d001 overlaps vtboot's loaded image 0x840000-0x8e3000");
    const uint32_t after[][2] = { { 0x8e3000, 0x900000 } };
    setup(1, after);
    expect(0, "");
}

static void module_not_in_ram(void **state)
{
    (void)state;
    const uint32_t mods[][2] = { { 0x1ffc0000, 0x1ffd0000 } };
    setup(1, mods);
    expect(-1, "module 0 at 0x1ffc0000+0x10000 is not in RAM");
}

static void modules_overlap(void **state)
{
    (void)state;
    const uint32_t mods[][2] = { { 0x2000000, 0x2100000 }, { 0x3000000, 0x3001000 },
                                 { 0x20ff000, 0x2200000 } };
    setup(3, mods);
    expect(-1, "modules 0 and 2 overlap");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_modules),
        cmocka_unit_test(module_over_the_image),
        cmocka_unit_test(module_not_in_ram),
        cmocka_unit_test(modules_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
