/* SPDX-License-Identifier: MIT */
/* mbk_plan(): segments checked against vtboot's ranges and RAM, modules moved out of the
 * kernel's way and to page boundaries; mbk_cmdline(): tboot's " tboot=0x..." suffix. */
#include "test_common.h"

#include "mbkernel/plan.h"

#define MiB 0x100000u

static struct e820_map map;
static struct elf_image e;
static struct mbk_plan p;
static struct mem_range own[3], mods[BOOT_MAX_MODULES];
static unsigned nmods;
static char err[256];

/* QEMU q35 with 1 GiB, as the loader reports it; vtboot's region, log and low page */
static void setup(void)
{
    memset(&map, 0, sizeof(map));
    e820_append(&map, 0, 0x9fc00, 1);
    e820_append(&map, 0x9fc00, 0x400, 2);
    e820_append(&map, 0xf0000, 0x10000, 2);
    e820_append(&map, MiB, 0x3ffcf000 - MiB, 1);
    e820_append(&map, 0x3ffcf000, 0x31000, 2);
    e820_append(&map, 0xb0000000, 0x10000000, 2);
    assert_int_equal(e820_sanitize(&map), 0);
    own[0] = (struct mem_range){ 0x800000, 0xe2000, "vtboot" };
    own[1] = (struct mem_range){ 0x60000, 0x8000, "memory log" };
    own[2] = (struct mem_range){ 0x68000, 0x1000, "S3 wake-up page" };
    memset(&e, 0, sizeof(e));
    e.nr_segments = 1;
    e.seg[0] = (struct elf_segment){ 0, 0x200000, 0x3a7000, 0x80, 0x271920 };
    e.entry = 0x200000;
    e.lowest = 0x200000;
    e.highest = 0x5a7000;
    nmods = 3;                       /* where QEMU puts Xen, vmlinuz and the initrd */
    mods[0] = (struct mem_range){ 0x8e3000, 0x271a5c, "the kernel's file" };
    mods[1] = (struct mem_range){ 0xb55000, 0x7dd7c0, "a module" };
    mods[2] = (struct mem_range){ 0x1333000, 0x5a3400, "a module" };
}

static int plan(uint32_t entry)
{
    memset(err, 0, sizeof(err));
    memset(&p, 0xa5, sizeof(p));
    return mbk_plan(&e, entry, &map, own, 3, mods, nmods, &p, err, sizeof(err));
}

static bool overlaps(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
    return as && bs && a < b + bs && b < a + as;
}

static void qemu_layout_nothing_moves(void **state)
{
    (void)state;
    setup();
    assert_int_equal(plan(0x200000), 0);
    assert_int_equal(p.entry, 0x200000);
    assert_int_equal(p.nr_moves, 0);
}

static void segment_over_vtboot(void **state)
{
    (void)state;
    setup();
    e.seg[0].paddr = 0x7ff000;
    assert_int_equal(plan(0x7ff000), -1);
    assert_string_equal(err, "ELF segment 0 (0x7ff000+0x3a7000) overlaps vtboot "
                             "(0x800000+0xe2000)");
    setup();
    e.seg[0] = (struct elf_segment){ 2, 0x60000, 0x1000, 0, 0x100 };
    e.seg[0].paddr = 0x67fff;
    assert_int_equal(plan(0x67fff), -1);
    assert_string_equal(err, "ELF segment 2 (0x67fff+0x1000) overlaps memory log "
                             "(0x60000+0x8000)");
    setup();
    e.seg[0] = (struct elf_segment){ 0, 0x68fff, 0x10, 0, 0x10 };
    assert_int_equal(plan(0x68fff), -1);
    assert_contains(err, "overlaps S3 wake-up page (0x68000+0x1000)");
    setup();
    e.seg[0] = (struct elf_segment){ 0, 0x69000, 0x1000, 0, 0x10 };   /* just past it: fine */
    assert_int_equal(plan(0x69000), 0);
}

static void segment_outside_ram(void **state)
{
    (void)state;
    setup();
    e.seg[0].paddr = 0x9f000;        /* into the EBDA */
    assert_int_equal(plan(0x9f000), -1);
    assert_string_equal(err, "ELF segment 0 (0x9f000+0x3a7000) is not RAM in the loader's "
                             "memory map");
    setup();
    e.seg[0].paddr = 0x3ffce000;     /* RAM's last page and ACPI data */
    assert_int_equal(plan(0x3ffce000), -1);
    assert_contains(err, "is not RAM");
    setup();
    e.seg[0].paddr = 0xc0000000;     /* a hole */
    assert_int_equal(plan(0xc0000000), -1);
    assert_contains(err, "is not RAM");
}

static void entry_checked(void **state)
{
    (void)state;
    setup();
    assert_int_equal(plan(0x200000 + 0x271920), -1);   /* the zero-filled part */
    assert_string_equal(err, "entry point 0x471920 is not in the file bytes of a loadable "
                             "segment");
    assert_int_equal(plan(0x200000 + 0x27191f), 0);
    assert_int_equal(p.entry, 0x47191f);
}

/* GRUB loads modules low, right after each other: Xen's own file and dom0's kernel where
 * Xen's image goes. Each moves to the highest free page-aligned RAM, clear of everything. */
static void modules_in_the_way_move(void **state)
{
    (void)state;
    setup();
    mods[0] = (struct mem_range){ 0x100000, 0x271a5c, "the kernel's file" };
    mods[1] = (struct mem_range){ 0x372000, 0x7dd7c0, "a module" };
    mods[2] = (struct mem_range){ 0x1000000, 0x5a3400, "a module" };
    assert_int_equal(plan(0x200000), 0);
    assert_int_equal(p.nr_moves, 2);
    assert_int_equal(p.moves[0].module, 0);
    assert_int_equal(p.moves[0].to, (0x3ffcf000 - 0x271a5c) & ~0xfffu);
    assert_int_equal(p.moves[1].module, 1);
    assert_int_equal(p.moves[1].to, (p.moves[0].to - 0x7dd7c0) & ~0xfffu);
    /* every destination: RAM below 4 GiB, page-aligned, clear of vtboot, the segments, the
     * modules where they are and the other moves */
    for (unsigned i = 0; i < p.nr_moves; i++) {
        const struct mem_range *m = &mods[p.moves[i].module];
        uint32_t to = p.moves[i].to;
        assert_int_equal(to & 0xfff, 0);
        assert_true(e820_range_is(&map, to, m->size, 1));
        for (unsigned k = 0; k < 3; k++)
            assert_false(overlaps(to, m->size, own[k].addr, own[k].size));
        assert_false(overlaps(to, m->size, e.seg[0].paddr, e.seg[0].memsz));
        for (unsigned k = 0; k < nmods; k++)
            assert_false(overlaps(to, m->size, mods[k].addr, mods[k].size));
        for (unsigned j = 0; j < i; j++)
            assert_false(overlaps(to, m->size, p.moves[j].to, mods[p.moves[j].module].size));
    }
}

static void unaligned_modules_move(void **state)
{
    (void)state;
    setup();
    mods[0].addr = 0x8e3004;         /* the kernel's own file may be unaligned: it is read */
    mods[2].addr = 0x1333010;
    mods[2].size = 0x1000;
    assert_int_equal(plan(0x200000), 0);
    assert_int_equal(p.nr_moves, 1);
    assert_int_equal(p.moves[0].module, 2);
    assert_int_equal(p.moves[0].to, 0x3ffce000);
    /* an empty module just gets an aligned address */
    setup();
    mods[2] = (struct mem_range){ 0x1333010, 0, "a module" };
    assert_int_equal(plan(0x200000), 0);
    assert_int_equal(p.nr_moves, 1);
    assert_int_equal(p.moves[0].to, 0x1333000);
}

static void no_room(void **state)
{
    (void)state;
    setup();
    memset(&map, 0, sizeof(map));
    e820_append(&map, 0, 0x9fc00, 1);
    e820_append(&map, MiB, 15 * MiB, 1);        /* 16 MiB of RAM */
    assert_int_equal(e820_sanitize(&map), 0);
    mods[0] = (struct mem_range){ 0x100000, 0x271a5c, "the kernel's file" };
    mods[1] = (struct mem_range){ 0x372000, 0x7dd7c0, "a module" };
    nmods = 2;
    assert_int_equal(plan(0x200000), -1);
    assert_string_equal(err, "no free RAM below 4 GiB to move module 1 (0x7dd7c0 bytes) out of "
                             "the kernel's way");
}

static void cmdline(void **state)
{
    (void)state;
    static char dst[MBK_CMDLINE_MAX];
    assert_int_equal(mbk_cmdline(dst, "xen console=com1", 0x801000, err, sizeof(err)), 0);
    assert_string_equal(dst, "xen console=com1 tboot=0x801000");
    assert_int_equal(mbk_cmdline(dst, "", 0x2473000, err, sizeof(err)), 0);
    assert_string_equal(dst, " tboot=0x2473000");
    /* 1023 characters in all fit, 1024 do not */
    char s[1100];
    size_t suffix = strlen(" tboot=0x801000");
    memset(s, 'a', sizeof(s));
    s[1023 - suffix] = 0;
    assert_int_equal(mbk_cmdline(dst, s, 0x801000, err, sizeof(err)), 0);
    assert_int_equal(strlen(dst), 1023);
    assert_string_equal(dst + 1023 - suffix, " tboot=0x801000");
    s[1023 - suffix] = 'a';
    s[1024 - suffix] = 0;
    assert_int_equal(mbk_cmdline(dst, s, 0x801000, err, sizeof(err)), -1);
    assert_string_equal(err, "its command line is 1024 bytes with \"tboot=0x801000\"; at most "
                             "1023 are passed on");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(qemu_layout_nothing_moves),
        T(segment_over_vtboot),
        T(segment_outside_ram),
        T(entry_checked),
        T(modules_in_the_way_move),
        T(unaligned_modules_move),
        T(no_room),
        T(cmdline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
