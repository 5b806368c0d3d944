/* SPDX-License-Identifier: MIT */
/* mbi_build(): the multiboot1 and multiboot2 information for Xen, read back at the byte
 * offsets of the specifications and with vtboot's own loader-side parser (bootinfo_parse),
 * every size it cannot fit in, and the tags a kernel requires. */
#include "test_common.h"

#include "boot/bootinfo.h"
#include "mbkernel/mbinfo.h"

#define PHYS 0x86c000u
#define CAP 0x8000u

static struct e820_map map;
static struct mbi_module mods[3];
static struct mbi_input in;
static uint8_t *win;
static uint32_t size;
static char err[256];
static struct boot_info bi;
static const uint8_t rsdp[36] = "RSD PTR \x12" "BOCHS \x02" "\0\0\0\0" "\x24\0\0\0"
                                "\0\0\0\0\0\0\0\0"
                                "\x55\0\0\0";

static void setup(void)
{
    phys_fake_reset();
    win = phys_fake_add(PHYS, CAP);
    memset(&map, 0, sizeof(map));
    e820_append(&map, 0, 0x60000, 1);
    e820_append(&map, 0x60000, 0x9000, 2);
    e820_append(&map, 0x69000, 0x9fc00 - 0x69000, 1);
    e820_append(&map, 0x9fc00, 0x400, 2);
    e820_append(&map, 0x100000, 0x700000, 1);
    e820_append(&map, 0x800000, 0xe2000, 5);
    e820_append(&map, 0x8e2000, 0x3ffcf000 - 0x8e2000, 1);
    e820_append(&map, 0x100000000ull, 0x40000000, 1);
    assert_int_equal(e820_sanitize(&map), 0);
    mods[0] = (struct mbi_module){ 0xb55000, 0x13327c0, "vmlinuz console=hvc0 panic=-1" };
    mods[1] = (struct mbi_module){ 0x1333000, 0x18d6400, "initrd.img" };
    memset(&in, 0, sizeof(in));
    in.cmdline = "xen console=com1 tboot=0x801000";
    in.loader_name = "qemu";
    in.have_meminfo = true;
    in.mem_lower_kb = 639;
    in.mem_upper_kb = 1047360;
    in.map = &map;
    in.nr_modules = 2;
    in.modules = mods;
}

static int build(enum boot_protocol proto, uint32_t required)
{
    memset(err, 0, sizeof(err));
    size = 0;
    return mbi_build(proto, &in, required, win, CAP, PHYS, &size, err, sizeof(err));
}

static const char *at(uint32_t addr)
{
    assert_true(addr >= PHYS && addr < PHYS + size);
    return (const char *)win + (addr - PHYS);
}

static void check_parsed(enum boot_protocol proto)
{
    uint32_t magic = proto == BOOT_MULTIBOOT2 ? 0x36d76289 : 0x2badb002;
    assert_int_equal(bootinfo_parse(magic, PHYS, &bi, err, sizeof(err)), 0);
    assert_int_equal(bi.protocol, proto);
    assert_string_equal(bi.cmdline, in.cmdline);
    assert_string_equal(bi.loader_name, in.loader_name);
    assert_true(bi.have_meminfo);
    assert_int_equal(bi.mem_lower_kb, 639);
    assert_int_equal(bi.mem_upper_kb, 1047360);
    assert_int_equal(bi.nr_modules, 2);
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(bi.modules[i].start, mods[i].start);
        assert_int_equal(bi.modules[i].end, mods[i].end);
        assert_string_equal(bi.modules[i].string, mods[i].string);
    }
    assert_int_equal(bi.mmap.nr, map.nr);
    for (unsigned i = 0; i < map.nr; i++) {
        assert_true(bi.mmap.e[i].addr == map.e[i].addr);
        assert_true(bi.mmap.e[i].size == map.e[i].size);
        assert_int_equal(bi.mmap.e[i].type, map.e[i].type);
    }
}

static void mb1(void **state)
{
    (void)state;
    setup();
    assert_int_equal(build(BOOT_MULTIBOOT1, 0), 0);
    /* Multiboot 0.6.96 §3.3: flags memory|cmdline|mods|mmap|loader name */
    assert_int_equal(get32(win, 0), (1u << 0) | (1u << 2) | (1u << 3) | (1u << 6) | (1u << 9));
    assert_int_equal(get32(win, 4), 639);
    assert_int_equal(get32(win, 8), 1047360);
    assert_string_equal(at(get32(win, 16)), in.cmdline);
    assert_int_equal(get32(win, 20), 2);
    const uint8_t *m = (const uint8_t *)at(get32(win, 24));
    assert_int_equal(get32(m, 0), 0xb55000);
    assert_int_equal(get32(m, 4), 0x13327c0);
    assert_string_equal(at(get32(m, 8)), "vmlinuz console=hvc0 panic=-1");
    assert_int_equal(get32(m, 16), 0x1333000);
    assert_string_equal(at(get32(m, 24)), "initrd.img");
    assert_int_equal(get32(win, 44), 24 * map.nr);
    const uint8_t *mm = (const uint8_t *)at(get32(win, 48));
    for (unsigned i = 0; i < map.nr; i++) {
        assert_int_equal(get32(mm, 24 * i), 20);
        assert_true(get64(mm, 24 * i + 4) == map.e[i].addr);
        assert_true(get64(mm, 24 * i + 12) == map.e[i].size);
        assert_int_equal(get32(mm, 24 * i + 20), map.e[i].type);
    }
    assert_string_equal(at(get32(win, 64)), "qemu");
    check_parsed(BOOT_MULTIBOOT1);
}

/* walks the tags at their spec offsets: type -> offset of the (first) tag */
static int find_tag(uint32_t type)
{
    uint32_t total = get32(win, 0), off = 8;
    assert_int_equal(total, size);
    while (off < total) {
        uint32_t t = get32(win, off), s = get32(win, off + 4);
        if (t == type)
            return (int)off;
        if (t == 0)
            break;
        off += (s + 7) & ~7u;
    }
    return -1;
}

static void mb2(void **state)
{
    (void)state;
    setup();
    in.rsdp = rsdp;
    in.rsdp_len = 36;
    in.load_base = 0x200000;
    assert_int_equal(build(BOOT_MULTIBOOT2, (1u << 4) | (1u << 6)), 0);
    assert_int_equal(size % 8, 0);
    int t = find_tag(4);
    assert_int_equal(get32(win, t + 4), 16);
    assert_int_equal(get32(win, t + 8), 639);
    assert_int_equal(get32(win, t + 12), 1047360);
    t = find_tag(6);
    assert_int_equal(get32(win, t + 4), 16 + 24 * map.nr);
    assert_int_equal(get32(win, t + 8), 24);
    assert_int_equal(get32(win, t + 12), 0);
    t = find_tag(21);
    assert_int_equal(get32(win, t + 4), 12);
    assert_int_equal(get32(win, t + 8), 0x200000);
    t = find_tag(14);
    assert_int_equal(get32(win, t + 4), 28);
    assert_memory_equal(win + t + 8, rsdp, 20);
    t = find_tag(15);
    assert_int_equal(get32(win, t + 4), 44);
    assert_memory_equal(win + t + 8, rsdp, 36);
    t = find_tag(0);
    assert_int_equal(get32(win, t + 4), 8);
    assert_int_equal(t + 8, size);
    check_parsed(BOOT_MULTIBOOT2);
    assert_int_equal(bi.rsdp_len, 36);
    assert_memory_equal(bi.rsdp, rsdp, 36);
}

static void required_tags(void **state)
{
    (void)state;
    setup();
    assert_int_equal(build(BOOT_MULTIBOOT2, 1u << 14), -1);
    assert_string_equal(err, "the kernel requires multiboot2 information tag type 14, which "
                             "the loader did not give vtboot (no ACPI RSDP copy)");
    in.rsdp = rsdp;
    in.rsdp_len = 20;
    assert_int_equal(build(BOOT_MULTIBOOT2, 1u << 14), 0);
    assert_int_equal(find_tag(15), -1);
    assert_int_equal(build(BOOT_MULTIBOOT2, 1u << 15), -1);
    assert_contains(err, "tag type 15");
    in.loader_name = "";
    assert_int_equal(build(BOOT_MULTIBOOT2, 1u << 2), -1);
    assert_contains(err, "tag type 2,");
    assert_int_equal(build(BOOT_MULTIBOOT2, (1u << 1) | (1u << 3) | (1u << 4) | (1u << 6) |
                                            (1u << 14) | (1u << 21)), 0);
    assert_int_equal(find_tag(2), -1);
}

static void meminfo_from_map(void **state)
{
    (void)state;
    setup();
    in.have_meminfo = false;
    assert_int_equal(build(BOOT_MULTIBOOT1, 0), 0);
    assert_int_equal(get32(win, 4), 0x60000 >> 10);     /* RAM from 0 up to the log */
    assert_int_equal(get32(win, 8), 0x700000 >> 10);    /* 1 MiB up to vtboot's region */
    uint32_t lo, hi;
    memset(&map, 0, sizeof(map));
    e820_append(&map, 0, 0xa0000 + 0x60000, 1);       /* "RAM" through 1 MiB */
    e820_append(&map, 0x100000, 0x100000000ull + 0x400000000ull, 1);
    assert_int_equal(e820_sanitize(&map), 0);
    mbi_meminfo(&map, &lo, &hi);
    assert_int_equal(lo, 640);
    assert_int_equal(hi, 0x500000000ull >> 10);
    memset(&map, 0, sizeof(map));
    e820_append(&map, 0x100000, 0x50000000000ull, 1);  /* 5 TiB: more KiB than the field holds */
    assert_int_equal(e820_sanitize(&map), 0);
    mbi_meminfo(&map, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 0xffffffffu);
}

/* below the size it needs, every capacity fails with the reason; never a write past it */
static void every_capacity(void **state)
{
    (void)state;
    for (int proto = 1; proto <= 2; proto++) {
        setup();
        in.rsdp = rsdp;
        in.rsdp_len = 36;
        assert_int_equal(build(proto, 0), 0);
        uint32_t need = size;
        for (uint32_t cap = 0; cap < need; cap++) {
            uint8_t *buf = malloc(cap ? cap : 1);
            uint32_t used = 77;
            memset(err, 0, sizeof(err));
            assert_int_equal(mbi_build(proto, &in, 0, buf, cap, PHYS, &used, err, sizeof(err)), -1);
            assert_contains(err, "does not fit in");
            assert_int_equal(used, 77);
            free(buf);
        }
    }
}

static void bad_placement(void **state)
{
    (void)state;
    setup();
    uint32_t used;
    assert_int_equal(mbi_build(BOOT_MULTIBOOT2, &in, 0, win, CAP, PHYS + 4, &used, err,
                               sizeof(err)), -1);
    assert_string_equal(err, "boot information at 0x86c004 is not 8-byte aligned");
    assert_int_equal(mbi_build(BOOT_MULTIBOOT1, &in, 0, win, CAP, 0xffffc000u, &used, err,
                               sizeof(err)), -1);
    assert_string_equal(err, "boot information at 0xffffc000+0x8000 reaches beyond 4 GiB");
    mods[1].end = mods[1].start - 1;
    assert_int_equal(mbi_build(BOOT_MULTIBOOT1, &in, 0, win, CAP, PHYS, &used, err,
                               sizeof(err)), -1);
    assert_string_equal(err, "module 1 ends (0x1332fff) below its start (0x1333000)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(mb1),
        T(mb2),
        T(required_tags),
        T(meminfo_from_map),
        T(every_capacity),
        T(bad_placement),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
