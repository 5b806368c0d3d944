/* SPDX-License-Identifier: MIT */
/* linux_plan() and linux_build_boot_params(): where Linux goes, and the zero page. */
#include "test_common.h"

#include "linux/loader.h"

#define MiB 0x100000u

static struct bzimage bz;
static struct e820_map map;
static struct linux_plan plan;
static char err[192];
static struct mem_range busy[40];
static unsigned nbusy;

static void make_bz(uint8_t relocatable, uint32_t init_size, uint32_t addr_max)
{
    struct bz_spec s;
    size_t n;
    bz_spec_default(&s);
    s.relocatable = relocatable;
    s.init_size = init_size;
    s.initrd_addr_max = addr_max;
    uint8_t *img = bz_build(&s, &n);
    assert_int_equal(bzimage_parse(img, (uint32_t)n, &bz, err, sizeof(err)), 0);
    free(img);
}

/* QEMU, 128 MiB; vtboot at 8 MiB, the memory log, the kernel module at 32 MiB */
static void setup_qemu(void)
{
    memset(&map, 0, sizeof(map));
    e820_append(&map, 0, 0x9fc00, 1);
    e820_append(&map, 0x9fc00, 0x400, 2);
    e820_append(&map, 0xf0000, 0x10000, 2);
    e820_append(&map, MiB, 127 * MiB, 1);
    e820_append(&map, 0xfffc0000, 0x40000, 2);
    e820_append(&map, 0x60000, 0x8000, 2);
    e820_append(&map, 0x800000, 0x200000, 2);
    assert_int_equal(e820_sanitize(&map), 0);
    nbusy = 0;
    busy[nbusy++] = (struct mem_range){ 0x800000, 0x200000, "vtboot" };
    busy[nbusy++] = (struct mem_range){ 0x60000, 0x8000, "memory log" };
    busy[nbusy++] = (struct mem_range){ 32 * MiB, 0x3a00, "a module" };
}

static void add_initrd(uint32_t at, uint32_t size)
{
    busy[nbusy++] = (struct mem_range){ at, size, "a module" };
}

static int plan_it(uint32_t initrd_at, uint32_t initrd_size)
{
    memset(err, 0, sizeof(err));
    memset(&plan, 0xa5, sizeof(plan));
    return linux_plan(&bz, &map, busy, nbusy, 0, initrd_at, initrd_size, &plan, err, sizeof(err));
}

static void relocatable_at_pref(void **state)
{
    (void)state;
    setup_qemu();
    make_bz(1, 8 * MiB, 0x7fffffff);
    add_initrd(48 * MiB, MiB);
    assert_int_equal(plan_it(48 * MiB, MiB), 0);
    assert_int_equal(plan.kernel_load, 16 * MiB);
    assert_int_equal(plan.kernel_mem, 16 * MiB);
    assert_int_equal(plan.initrd_addr, 48 * MiB);     /* kept where the loader put it */
    assert_int_equal(plan.initrd_size, MiB);
}

static void relocatable_avoids_modules(void **state)
{
    (void)state;
    setup_qemu();
    make_bz(1, 8 * MiB, 0x7fffffff);
    /* the initrd sits at pref_address: the kernel goes to the next 2 MiB step after it */
    add_initrd(16 * MiB, 0x180000);
    assert_int_equal(plan_it(16 * MiB, 0x180000), 0);
    assert_int_equal(plan.kernel_load, 0x1200000);
    assert_int_equal(plan.initrd_addr, 16 * MiB);
    /* the kernel module at 32 MiB is in the way of an 18 MiB kernel at 18 MiB */
    make_bz(1, 18 * MiB, 0x7fffffff);
    assert_int_equal(plan_it(16 * MiB, 0x180000), 0);
    assert_int_equal(plan.kernel_load, 0x2200000);
}

static void relocatable_no_room(void **state)
{
    (void)state;
    setup_qemu();
    make_bz(1, 120 * MiB, 0x7fffffff);
    assert_int_equal(plan_it(0, 0), -1);
    assert_contains(err, "no free RAM for the kernel: 0x7800000 bytes aligned to 0x200000 "
                         "above 0x1000000");
    /* all of it is RAM above 4 GiB: not usable */
    memset(&map, 0, sizeof(map));
    e820_append(&map, 0, 0x9fc00, 1);
    e820_append(&map, 0x100000000ull, 0x40000000, 1);
    make_bz(1, 8 * MiB, 0x7fffffff);
    assert_int_equal(plan_it(0, 0), -1);
    assert_contains(err, "no free RAM for the kernel");
    assert_int_equal(plan.kernel_load, 0);           /* the plan is cleared */
}

static void non_relocatable(void **state)
{
    (void)state;
    setup_qemu();
    make_bz(0, 8 * MiB, 0x7fffffff);
    add_initrd(48 * MiB, MiB);
    assert_int_equal(plan_it(48 * MiB, MiB), 0);
    assert_int_equal(plan.kernel_load, MiB);
    assert_int_equal(plan.kernel_mem, 16 * MiB);
    assert_int_equal(plan.initrd_addr, 48 * MiB);
}

static void non_relocatable_conflicts(void **state)
{
    (void)state;
    setup_qemu();
    make_bz(0, 8 * MiB, 0x7fffffff);
    /* a module where the image is copied (1 MiB) */
    add_initrd(MiB + 0x2000, 0x1000);
    assert_int_equal(plan_it(MiB + 0x2000, 0x1000), -1);
    assert_contains(err, "non-relocatable kernel would overwrite a module at 0x102000");
    /* vtboot inside [pref_address, pref_address + init_size) */
    setup_qemu();
    make_bz(0, 8 * MiB, 0x7fffffff);
    busy[0].addr = 20 * MiB;
    assert_int_equal(plan_it(0, 0), -1);
    assert_contains(err, "non-relocatable kernel would overwrite vtboot at 0x1400000");
    /* not RAM: the kernel needs memory past the end of RAM */
    setup_qemu();
    make_bz(0, 120 * MiB, 0x7fffffff);
    assert_int_equal(plan_it(0, 0), -1);
    assert_contains(err, "non-relocatable kernel: 0x100000+0x3000 or 0x1000000+0x7800000 is "
                         "not RAM");
    /* and the 1 MiB copy must be RAM too */
    setup_qemu();
    e820_set_range(&map, MiB, 0x1000, 2);
    make_bz(0, 8 * MiB, 0x7fffffff);
    assert_int_equal(plan_it(0, 0), -1);
    assert_contains(err, "is not RAM");
}

/* GRUB puts modules low: a non-relocatable kernel's 1 MiB and 16 MiB ranges hit them. The
 * modules (the last two busy entries) move high, clear of everything; vtboot never moves. */
static void non_relocatable_moves_modules(void **state)
{
    (void)state;
    setup_qemu();
    nbusy = 2;                                        /* vtboot, memory log */
    make_bz(0, 8 * MiB, 0x7fffffff);
    busy[nbusy++] = (struct mem_range){ MiB, 0x1f4400, "a module" };        /* the bzImage */
    busy[nbusy++] = (struct mem_range){ 17 * MiB, 2 * MiB, "a module" };    /* the initrd */
    assert_int_equal(linux_plan(&bz, &map, busy, nbusy, 2, 17 * MiB, 2 * MiB, &plan, err,
                                sizeof(err)), 0);
    assert_int_equal(plan.kernel_load, MiB);
    assert_int_equal(plan.kernel_mem, 16 * MiB);
    assert_int_equal(plan.nr_moves, 2);
    assert_int_equal(plan.moves[0].busy_index, 2);
    assert_int_equal(plan.moves[1].busy_index, 3);
    /* highest page-aligned room below the top of RAM (128 MiB), then just below that */
    assert_int_equal(plan.moves[0].to, (128 * MiB - 0x1f4400) & ~0xfffu);
    assert_int_equal(plan.moves[1].to, (plan.moves[0].to - 2 * MiB) & ~0xfffu);
    /* the initrd stays where its move put it */
    assert_int_equal(plan.initrd_addr, plan.moves[1].to);

    /* the same layout with nothing movable is refused, naming what is in the way */
    assert_int_equal(linux_plan(&bz, &map, busy, nbusy, 0, 17 * MiB, 2 * MiB, &plan, err,
                                sizeof(err)), -1);
    assert_string_equal(err, "non-relocatable kernel would overwrite a module at 0x100000");
    /* more movable ranges than busy ones is a caller bug */
    assert_int_equal(linux_plan(&bz, &map, busy, nbusy, nbusy + 1, 0, 0, &plan, err,
                                sizeof(err)), -1);
}

static void initrd_moved(void **state)
{
    (void)state;
    /* misaligned: moved to the top of RAM */
    setup_qemu();
    make_bz(1, 8 * MiB, 0x7fffffff);
    add_initrd(48 * MiB + 0x800, 0x100000);
    assert_int_equal(plan_it(48 * MiB + 0x800, 0x100000), 0);
    assert_int_equal(plan.initrd_addr, 127 * MiB);
    assert_int_equal(plan.initrd_size, 0x100000);

    /* above initrd_addr_max: moved below it (the highest byte may be initrd_addr_max) */
    setup_qemu();
    make_bz(1, 8 * MiB, 48 * MiB - 1);
    add_initrd(48 * MiB, 0x100000);
    assert_int_equal(plan_it(48 * MiB, 0x100000), 0);
    assert_int_equal(plan.initrd_addr, 47 * MiB);
    /* ... but one that ends exactly at initrd_addr_max + 1 stays */
    setup_qemu();
    add_initrd(47 * MiB, 0x100000);
    assert_int_equal(plan_it(47 * MiB, 0x100000), 0);
    assert_int_equal(plan.initrd_addr, 47 * MiB);

    /* in the first MiB: moved, avoiding the module at 32 MiB and vtboot */
    setup_qemu();
    make_bz(1, 8 * MiB, 32 * MiB + 0x3000);
    add_initrd(0x10000, 0x1000);
    assert_int_equal(plan_it(0x10000, 0x1000), 0);
    assert_int_equal(plan.initrd_addr, 32 * MiB - 0x1000);
    /* with room only below the kernel */
    make_bz(1, 8 * MiB, 24 * MiB - 1);
    assert_int_equal(plan_it(0x10000, 0x1000), 0);
    assert_int_equal(plan.kernel_load, 16 * MiB);
    assert_int_equal(plan.initrd_addr, 16 * MiB - 0x1000);
    /* 6 MiB fit between vtboot (8-10 MiB) and the kernel; more must go below vtboot */
    assert_int_equal(plan_it(0x10000, 0x600000), 0);
    assert_int_equal(plan.initrd_addr, 0xa00000);
    assert_int_equal(plan_it(0x10000, 0x600001), 0);
    assert_int_equal(plan.initrd_addr, 0x1ff000);
    assert_int_equal(plan_it(0x10000, 0x700000), 0);
    assert_int_equal(plan.initrd_addr, 0x100000);
    assert_int_equal(plan_it(0x10000, 0x700001), -1);
    assert_contains(err, "no free RAM below 0x1800000 for the 0x700001-byte initrd");

    /* initrd_addr_max 0 means 4 GiB */
    setup_qemu();
    make_bz(1, 8 * MiB, 0);
    add_initrd(0x90000, 0x1000);
    assert_int_equal(plan_it(0x90000, 0x1000), 0);
    assert_int_equal(plan.initrd_addr, 128 * MiB - 0x1000);
}

static void initrd_no_room(void **state)
{
    (void)state;
    setup_qemu();
    make_bz(1, 8 * MiB, 0x7fffffff);
    add_initrd(0x90000, 0x1000);
    assert_int_equal(plan_it(0x90000, 100 * MiB), -1);
    assert_contains(err, "no free RAM below 0x80000000 for the 0x6400000-byte initrd");
    /* not RAM where it is, and no room elsewhere below the limit */
    make_bz(1, 8 * MiB, 0xfffff);
    assert_int_equal(plan_it(0x90000, 0x1000), -1);
    assert_contains(err, "no free RAM below 0x100000 for the 0x1000-byte initrd");
}

static void no_initrd_and_busy_limit(void **state)
{
    (void)state;
    setup_qemu();
    make_bz(1, 8 * MiB, 0x7fffffff);
    assert_int_equal(plan_it(0x12345678, 0), 0);
    assert_int_equal(plan.initrd_addr, 0);
    assert_int_equal(plan.initrd_size, 0);
    nbusy = 30;
    for (unsigned i = 3; i < 30; i++)
        busy[i] = (struct mem_range){ 100 * MiB + i * 0x1000, 0x1000, "a module" };
    assert_int_equal(plan_it(0, 0), 0);
    nbusy = 31;
    assert_int_equal(plan_it(0, 0), -1);
    assert_contains(err, "too many busy memory ranges (31)");
}

/* ---- the zero page, checked at the offsets of Documentation/x86/zero-page.rst ---- */

static uint8_t zp[4096];

static void boot_params_fields(void **state)
{
    (void)state;
    setup_qemu();
    make_bz(1, 8 * MiB, 0x7fffffff);
    add_initrd(48 * MiB, 0x123456);
    assert_int_equal(plan_it(48 * MiB, 0x123456), 0);
    struct linux_boot_args args = { .cmdline_addr = 0x812340, .tboot_addr = 0x801000,
                                    .acpi_rsdp_addr = 0x8a0010 };
    memset(zp, 0xcc, sizeof(zp));
    assert_int_equal(linux_build_boot_params((struct boot_params *)zp, &bz, &plan, &map, &args), 0);

    assert_int_equal(get64(zp, 0x058), 0x801000);            /* tboot_addr */
    assert_int_equal(get64(zp, 0x070), 0x8a0010);            /* acpi_rsdp_addr */
    assert_int_equal(get8(zp, 0x1f1), 4);                    /* setup_sects, from the file */
    assert_int_equal(get32(zp, 0x1f4), 0x300);               /* syssize */
    assert_int_equal(get16(zp, 0x1fa), 0xffff);              /* vid_mode NORMAL */
    assert_int_equal(get16(zp, 0x1fe), 0xaa55);
    assert_memory_equal(zp + 0x202, "HdrS", 4);
    assert_int_equal(get16(zp, 0x206), 0x020f);
    assert_int_equal(get8(zp, 0x210), 0xff);                 /* type_of_loader */
    assert_int_equal(get8(zp, 0x211), 0x01);                 /* loadflags as the kernel has */
    assert_int_equal(get32(zp, 0x214), 16 * MiB);            /* code32_start */
    assert_int_equal(get32(zp, 0x218), 48 * MiB);            /* ramdisk_image */
    assert_int_equal(get32(zp, 0x21c), 0x123456);            /* ramdisk_size */
    assert_int_equal(get32(zp, 0x228), 0x812340);            /* cmd_line_ptr */
    assert_int_equal(get32(zp, 0x22c), 0x7fffffff);          /* initrd_addr_max */
    assert_int_equal(get32(zp, 0x230), 0x200000);            /* kernel_alignment */
    assert_int_equal(get64(zp, 0x250), 0);                   /* setup_data */
    assert_int_equal(get64(zp, 0x258), 0x1000000);           /* pref_address */
    assert_int_equal(get32(zp, 0x260), 8 * MiB);             /* init_size */
    /* screen_info: 80x25 VGA text */
    assert_int_equal(get8(zp, 0x01), 24);
    assert_int_equal(get8(zp, 0x06), 3);
    assert_int_equal(get8(zp, 0x07), 80);
    assert_int_equal(get8(zp, 0x0e), 25);
    assert_int_equal(get8(zp, 0x0f), 1);
    assert_int_equal(get16(zp, 0x10), 16);
    /* e820 */
    assert_int_equal(get8(zp, 0x1e8), map.nr);
    assert_int_equal(map.nr, 9);
    static const uint64_t want[9][3] = {
        { 0, 0x60000, 1 }, { 0x60000, 0x8000, 2 }, { 0x68000, 0x37c00, 1 },
        { 0x9fc00, 0x400, 2 }, { 0xf0000, 0x10000, 2 }, { 0x100000, 0x700000, 1 },
        { 0x800000, 0x200000, 2 }, { 0xa00000, 0x7600000, 1 }, { 0xfffc0000, 0x40000, 2 },
    };
    for (unsigned i = 0; i < 9; i++) {
        assert_int_equal(get64(zp, 0x2d0 + 20 * i), want[i][0]);
        assert_int_equal(get64(zp, 0x2d0 + 20 * i + 8), want[i][1]);
        assert_int_equal(get32(zp, 0x2d0 + 20 * i + 16), want[i][2]);
    }
    assert_int_equal(get64(zp, 0x2d0 + 20 * 9), 0);          /* cleared past the map */
    /* everything else that vtboot does not set is zero, not the 0xcc that was there */
    assert_int_equal(get8(zp, 0x1ef), 0);                    /* sentinel */
    assert_int_equal(get32(zp, 0x0c0), 0);                   /* ext_ramdisk_image */
    assert_int_equal(get32(zp, 0x0c8), 0);                   /* ext_cmd_line_ptr */
    assert_int_equal(get8(zp, 0xfff), 0);
}

static void boot_params_short_header(void **state)
{
    (void)state;
    /* a 2.10 kernel whose header ends at init_size: the rest of hdr stays zero */
    struct bz_spec s;
    size_t n;
    bz_spec_default(&s);
    s.version = 0x020a;
    s.jump = 0x62eb;
    uint8_t *img = bz_build(&s, &n);
    assert_int_equal(get32(img, 0x264), 0x190);              /* there are bytes in the file */
    assert_int_equal(bzimage_parse(img, (uint32_t)n, &bz, err, sizeof(err)), 0);
    free(img);
    setup_qemu();
    assert_int_equal(plan_it(0, 0), 0);
    struct linux_boot_args args = { .cmdline_addr = 0x9000 };
    memset(zp, 0xcc, sizeof(zp));
    assert_int_equal(linux_build_boot_params((struct boot_params *)zp, &bz, &plan, &map, &args), 0);
    assert_int_equal(get32(zp, 0x260), 8 * MiB);             /* init_size is inside */
    assert_int_equal(get32(zp, 0x264), 0);                   /* handover_offset is not */
    assert_int_equal(get32(zp, 0x268), 0);                   /* kernel_info_offset is not */
    assert_int_equal(get64(zp, 0x058), 0);                   /* not tboot-enabled */
    assert_int_equal(get64(zp, 0x070), 0);
    assert_int_equal(get32(zp, 0x218), 0);
    assert_int_equal(get32(zp, 0x21c), 0);
    assert_int_equal(get32(zp, 0x228), 0x9000);
}

static void boot_params_full_map(void **state)
{
    (void)state;
    setup_qemu();
    make_bz(1, 8 * MiB, 0x7fffffff);
    assert_int_equal(plan_it(0, 0), 0);
    memset(&map, 0, sizeof(map));
    for (unsigned i = 0; i < 128; i++)
        e820_append(&map, i * 0x1000ull, 0x1000, 1 + i % 2);
    struct linux_boot_args args = { 0 };
    assert_int_equal(linux_build_boot_params((struct boot_params *)zp, &bz, &plan, &map, &args), 0);
    assert_int_equal(get8(zp, 0x1e8), 128);
    assert_int_equal(get64(zp, 0x2d0 + 20 * 127), 127 * 0x1000);
    assert_int_equal(get32(zp, 0x2d0 + 20 * 127 + 16), 2);
    map.nr = 129;
    memset(zp, 0x5a, sizeof(zp));
    assert_int_equal(linux_build_boot_params((struct boot_params *)zp, &bz, &plan, &map, &args), -1);
    assert_int_equal(zp[0x1e8], 0x5a);                       /* untouched */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(relocatable_at_pref),
        cmocka_unit_test(relocatable_avoids_modules),
        cmocka_unit_test(relocatable_no_room),
        cmocka_unit_test(non_relocatable),
        cmocka_unit_test(non_relocatable_conflicts),
        cmocka_unit_test(non_relocatable_moves_modules),
        cmocka_unit_test(initrd_moved),
        cmocka_unit_test(initrd_no_room),
        cmocka_unit_test(no_initrd_and_busy_limit),
        cmocka_unit_test(boot_params_fields),
        cmocka_unit_test(boot_params_short_header),
        cmocka_unit_test(boot_params_full_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
