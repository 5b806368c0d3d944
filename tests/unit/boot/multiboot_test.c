/* SPDX-License-Identifier: MIT */
/* bootinfo_parse(): multiboot1 and multiboot2 information, good and bad. */
#include "test_common.h"

#include "boot/bootinfo.h"

#define MB1_MAGIC 0x2badb002u
#define MB2_MAGIC 0x36d76289u
#define WIN_BASE 0x10000u
#define WIN_SIZE 0x40000u

static struct gmem g;
static struct boot_info bi;
static char err[192];

static void mem_setup(void)
{
    gmem_init(&g, WIN_BASE, phys_fake_add(WIN_BASE, WIN_SIZE), WIN_SIZE);
}

static int parse(uint32_t magic, uint32_t addr)
{
    memset(err, 0, sizeof(err));
    int rc = bootinfo_parse(magic, addr, &bi, err, sizeof(err));
    if (rc == 0)
        assert_string_equal(err, "");
    return rc;
}

static void expect_fail(uint32_t magic, uint32_t addr, const char *msg)
{
    assert_int_equal(parse(magic, addr), -1);
    assert_contains(err, msg);
}

static void assert_entry(unsigned i, uint64_t addr, uint64_t size, uint32_t type)
{
    if (i >= bi.mmap.nr)
        fail_msg("map has %u entries, wanted entry %u", bi.mmap.nr, i);
    if (bi.mmap.e[i].addr != addr || bi.mmap.e[i].size != size || bi.mmap.e[i].type != type)
        fail_msg("entry %u is 0x%llx+0x%llx type %u, want 0x%llx+0x%llx type %u", i,
                 (unsigned long long)bi.mmap.e[i].addr, (unsigned long long)bi.mmap.e[i].size,
                 bi.mmap.e[i].type, (unsigned long long)addr, (unsigned long long)size, type);
}

/* The map SeaBIOS gives a 128 MiB QEMU guest, as GRUB passes it on. */
static void qemu_mmap(struct mb1_spec *s)
{
    s->mmap = true;
    s->nmmap = 6;
    s->mm[0].addr = 0; s->mm[0].len = 0x9fc00; s->mm[0].type = 1;
    s->mm[1].addr = 0x9fc00; s->mm[1].len = 0x400; s->mm[1].type = 2;
    s->mm[2].addr = 0xf0000; s->mm[2].len = 0x10000; s->mm[2].type = 2;
    s->mm[3].addr = 0x100000; s->mm[3].len = 0x7ee0000; s->mm[3].type = 1;
    s->mm[4].addr = 0x7fe0000; s->mm[4].len = 0x20000; s->mm[4].type = 2;
    s->mm[5].addr = 0xfffc0000; s->mm[5].len = 0x40000; s->mm[5].type = 2;
}

static void assert_qemu_map(void)
{
    assert_int_equal(bi.mmap.nr, 6);
    assert_entry(0, 0, 0x9fc00, 1);
    assert_entry(1, 0x9fc00, 0x400, 2);
    assert_entry(2, 0xf0000, 0x10000, 2);
    assert_entry(3, 0x100000, 0x7ee0000, 1);
    assert_entry(4, 0x7fe0000, 0x20000, 2);
    assert_entry(5, 0xfffc0000, 0x40000, 2);
}

/* ================================ multiboot1 ================================ */

static void mb1_full(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = {
        .cmdline = "/vtboot.gz logging=serial,memory loglvl=all",
        .loader_name = "GRUB 2.06-13+deb12u1",
        .meminfo = true, .mem_lower = 639, .mem_upper = 130048,
        .nmods = 2,
        .mod = { { 0x200000, 0x3f8000, "/bzImage console=ttyS0 intel_iommu=on" },
                 { 0x400000, 0x4a0123, "/initrd.img" } },
    };
    qemu_mmap(&s);
    uint32_t info = mb1_build(&g, &s);
    assert_int_equal(info, WIN_BASE);

    assert_int_equal(parse(MB1_MAGIC, info), 0);
    assert_int_equal(bi.protocol, BOOT_MULTIBOOT1);
    assert_int_equal(bi.info_addr, WIN_BASE);
    assert_int_equal(bi.info_size, 72);
    assert_string_equal(bi.cmdline, "/vtboot.gz logging=serial,memory loglvl=all");
    assert_string_equal(bi.loader_name, "GRUB 2.06-13+deb12u1");
    assert_true(bi.have_meminfo);
    assert_int_equal(bi.mem_lower_kb, 639);
    assert_int_equal(bi.mem_upper_kb, 130048);
    assert_int_equal(bi.nr_modules, 2);
    assert_int_equal(bi.modules[0].start, 0x200000);
    assert_int_equal(bi.modules[0].end, 0x3f8000);
    assert_string_equal(bi.modules[0].string, "/bzImage console=ttyS0 intel_iommu=on");
    assert_int_equal(bi.modules[1].start, 0x400000);
    assert_int_equal(bi.modules[1].end, 0x4a0123);
    assert_string_equal(bi.modules[1].string, "/initrd.img");
    /* the strings live in the pool, not in the loader's memory */
    assert_true(bi.modules[0].string >= bi.strpool &&
                bi.modules[0].string < bi.strpool + sizeof(bi.strpool));
    assert_int_equal(bi.strpool_used, strlen(bi.modules[0].string) + 1 + strlen("/initrd.img") + 1);
    assert_int_equal(bi.rsdp_len, 0);
    /* the map wins over mem_lower/mem_upper */
    assert_qemu_map();
    assert_int_equal(bi.mmap_loader_nr, 6);
    assert_false(bi.mmap_was_sanitised);
}

static void mb1_map_is_sanitised(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .mmap = true, .nmmap = 4 };
    /* unsorted, overlapping, adjacent RAM pieces, a zero-size entry */
    s.mm[0].addr = 0x100000; s.mm[0].len = 0x100000; s.mm[0].type = 1;
    s.mm[1].addr = 0; s.mm[1].len = 0x100000; s.mm[1].type = 1;
    s.mm[2].addr = 0x180000; s.mm[2].len = 0x1000; s.mm[2].type = 4;
    s.mm[3].addr = 0x500000; s.mm[3].len = 0; s.mm[3].type = 2;
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s)), 0);
    assert_int_equal(bi.mmap.nr, 3);
    assert_entry(0, 0, 0x180000, 1);
    assert_entry(1, 0x180000, 0x1000, 4);
    assert_entry(2, 0x181000, 0x7f000, 1);
    assert_false(bi.have_meminfo);
    assert_int_equal(bi.mmap_loader_nr, 3);          /* the zero-size entry is dropped */
    assert_true(bi.mmap_was_sanitised);
}

static void mb1_meminfo_only(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .meminfo = true, .mem_lower = 639, .mem_upper = 0x1fc00 };
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s)), 0);
    assert_int_equal(bi.mmap.nr, 2);
    assert_entry(0, 0, 639 * 1024, 1);
    assert_entry(1, 0x100000, 0x1fc00ull * 1024, 1);
    assert_string_equal(bi.cmdline, "");
    assert_string_equal(bi.loader_name, "");
    assert_int_equal(bi.nr_modules, 0);
}

static void mb1_meminfo_huge_upper(void **state)
{
    (void)state;
    mem_setup();
    /* mem_upper is in KiB and may describe more than 4 GiB */
    struct mb1_spec s = { .meminfo = true, .mem_lower = 0, .mem_upper = 0xffffffffu };
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s)), 0);
    assert_int_equal(bi.mmap.nr, 1);
    assert_entry(0, 0x100000, 0xffffffffull << 10, 1);
}

static void mb1_empty_map_falls_back_to_meminfo(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .mmap = true, .nmmap = 0, .meminfo = true, .mem_lower = 1,
                          .mem_upper = 1 };
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s)), 0);
    assert_int_equal(bi.mmap.nr, 2);
    assert_entry(0, 0, 0x400, 1);
    assert_entry(1, 0x100000, 0x400, 1);
}

static void mb1_mods_flag_without_modules(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .mods = true, .nmods = 0 };
    qemu_mmap(&s);
    uint32_t info = mb1_build(&g, &s);
    put32(gmem_ptr(&g, info), 24, 0);  /* mods_addr 0 is fine with mods_count 0 */
    assert_int_equal(parse(MB1_MAGIC, info), 0);
    assert_int_equal(bi.nr_modules, 0);
}

static void mb1_module_without_string(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .nmods = 1, .mod = { { 0x200000, 0x200000, NULL } } };
    qemu_mmap(&s);
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s)), 0);
    assert_int_equal(bi.nr_modules, 1);
    assert_string_equal(bi.modules[0].string, "");
    assert_int_equal(bi.modules[0].start, bi.modules[0].end);
}

static void mb1_sixteen_modules(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .nmods = 16 };
    static char names[16][8];
    for (unsigned i = 0; i < 16; i++) {
        snprintf(names[i], sizeof(names[i]), "m%u", i);
        s.mod[i].start = 0x1000000 + i * 0x1000;
        s.mod[i].end = s.mod[i].start + 0x800;
        s.mod[i].string = names[i];
    }
    qemu_mmap(&s);
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s)), 0);
    assert_int_equal(bi.nr_modules, 16);
    assert_string_equal(bi.modules[15].string, "m15");
    assert_int_equal(bi.modules[15].start, 0x100f000);
}

static void mb1_long_loader_name_truncated(void **state)
{
    (void)state;
    mem_setup();
    char name[200];
    memset(name, 'n', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    struct mb1_spec s = { .loader_name = name };
    qemu_mmap(&s);
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s)), 0);
    assert_int_equal(strlen(bi.loader_name), 63);
    assert_memory_equal(bi.loader_name, name, 63);
}

static void mb1_cmdline_max(void **state)
{
    (void)state;
    mem_setup();
    char line[1024];
    memset(line, 'a', 1023);
    line[1023] = '\0';
    struct mb1_spec s = { .cmdline = line };
    qemu_mmap(&s);
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s)), 0);
    assert_int_equal(strlen(bi.cmdline), 1023);
}

static void mb1_mmap_wider_entries(void **state)
{
    (void)state;
    mem_setup();
    /* entries may be larger than 24 bytes: size says where the next one starts */
    uint32_t mm = (uint32_t)gmem_alloc(&g, 2 * 32, 4);
    uint8_t *e = gmem_ptr(&g, mm);
    memset(e, 0xee, 64);
    put32(e, 0, 28); put64(e, 4, 0); put64(e, 12, 0xa0000); put32(e, 20, 1);
    put32(e, 32, 28); put64(e, 36, 0x100000); put64(e, 44, 0x1000000); put32(e, 52, 1);
    struct mb1_spec s = { 0 };
    uint32_t info = mb1_build(&g, &s);
    uint8_t *p = gmem_ptr(&g, info);
    put32(p, 0, 1u << 6);
    put32(p, 44, 64);
    put32(p, 48, mm);
    assert_int_equal(parse(MB1_MAGIC, info), 0);
    assert_int_equal(bi.mmap.nr, 2);
    assert_entry(0, 0, 0xa0000, 1);
    assert_entry(1, 0x100000, 0x1000000, 1);
}

static void mb1_unknown_types_kept(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .mmap = true, .nmmap = 3 };
    s.mm[0].addr = 0x100000; s.mm[0].len = 0x1000000; s.mm[0].type = 1;
    s.mm[1].addr = 0x200000; s.mm[1].len = 0x1000; s.mm[1].type = 12;    /* e.g. PRAM */
    s.mm[2].addr = 0x300000; s.mm[2].len = 0x1000; s.mm[2].type = 0xf00d;
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s)), 0);
    assert_int_equal(bi.mmap.nr, 5);
    assert_entry(1, 0x200000, 0x1000, 12);
    assert_entry(3, 0x300000, 0x1000, 0xf00d);
}

/* ---- multiboot1 errors ---- */

static void bad_magic(void **state)
{
    (void)state;
    mem_setup();
    expect_fail(0x12345678u, WIN_BASE, "not started by a multiboot loader (eax 0x12345678)");
    expect_fail(0, WIN_BASE, "eax 0x00000000");
    /* the header magics are not the loader magics */
    expect_fail(0x1badb002u, WIN_BASE, "not started by a multiboot loader");
    expect_fail(0xe85250d6u, WIN_BASE, "not started by a multiboot loader");
}

static void mb1_info_unaddressable(void **state)
{
    (void)state;
    mem_setup();
    expect_fail(MB1_MAGIC, 0x900000, "multiboot1: info at 0x900000 is not addressable");
    expect_fail(MB1_MAGIC, 0, "info at 0x0 is not addressable");
    /* straddling the end of memory */
    expect_fail(MB1_MAGIC, WIN_BASE + WIN_SIZE - 71, "is not addressable");
    expect_fail(MB1_MAGIC, 0xffffffc0u, "info at 0xffffffc0 is not addressable");
}

static void mb1_cmdline_too_long(void **state)
{
    (void)state;
    mem_setup();
    char line[1025];
    memset(line, 'a', 1024);
    line[1024] = '\0';
    struct mb1_spec s = { .cmdline = line };
    qemu_mmap(&s);
    uint32_t info = mb1_build(&g, &s);
    uint32_t at = get32(gmem_ptr(&g, info), 16);
    char want[96];
    snprintf(want, sizeof(want), "multiboot1: command line at 0x%x is longer than 1023 bytes", at);
    expect_fail(MB1_MAGIC, info, want);
}

static void mb1_cmdline_unterminated(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .cmdline = "x" };
    qemu_mmap(&s);
    uint32_t info = mb1_build(&g, &s);
    /* the string runs into the end of memory */
    uint32_t at = WIN_BASE + WIN_SIZE - 10;
    memset(gmem_ptr(&g, at), 'z', 10);
    put32(gmem_ptr(&g, info), 16, at);
    expect_fail(MB1_MAGIC, info, "command line at 0x4fff6 is not addressable");
    put32(gmem_ptr(&g, info), 16, 0);
    expect_fail(MB1_MAGIC, info, "command line at 0x0 is not addressable");
}

static void mb1_loader_name_unaddressable(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .loader_name = "GRUB" };
    qemu_mmap(&s);
    uint32_t info = mb1_build(&g, &s);
    put32(gmem_ptr(&g, info), 64, 0x7000000);
    expect_fail(MB1_MAGIC, info, "multiboot1: loader name at 0x7000000 is not addressable");
}

static void mb1_too_many_modules(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .nmods = 17 };
    qemu_mmap(&s);
    expect_fail(MB1_MAGIC, mb1_build(&g, &s), "multiboot1: 17 modules, at most 16 supported");
}

static void mb1_module_list_unaddressable(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .nmods = 1, .mod = { { 0x200000, 0x300000, "k" } } };
    qemu_mmap(&s);
    uint32_t info = mb1_build(&g, &s);
    put32(gmem_ptr(&g, info), 24, WIN_BASE + WIN_SIZE - 8);   /* half a module entry */
    expect_fail(MB1_MAGIC, info, "multiboot1: module list at 0x4fff8 is not addressable");
}

static void mb1_module_end_below_start(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .nmods = 2, .mod = { { 0x200000, 0x300000, "k" },
                                               { 0x402000, 0x401fff, "i" } } };
    qemu_mmap(&s);
    expect_fail(MB1_MAGIC, mb1_build(&g, &s), "module 1: end 0x401fff below start 0x402000");
}

static void mb1_module_string_unterminated(void **state)
{
    (void)state;
    mem_setup();
    static char big[4097];
    memset(big, 'k', 4096);
    big[4096] = '\0';
    struct mb1_spec s = { .nmods = 1, .mod = { { 0x200000, 0x300000, big } } };
    qemu_mmap(&s);
    expect_fail(MB1_MAGIC, mb1_build(&g, &s), "module 0 string at 0x");
    assert_contains(err, "is unterminated or too long");

    /* 4095 bytes is the longest that fits */
    phys_fake_reset();
    mem_setup();
    big[4095] = '\0';
    qemu_mmap(&s);
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s)), 0);
    assert_int_equal(strlen(bi.modules[0].string), 4095);
}

static void mb1_module_string_unaddressable(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .nmods = 1, .mod = { { 0x200000, 0x300000, "k" } } };
    qemu_mmap(&s);
    uint32_t info = mb1_build(&g, &s);
    uint32_t mods = get32(gmem_ptr(&g, info), 24);
    put32(gmem_ptr(&g, mods), 8, 0xdeadbeef);
    expect_fail(MB1_MAGIC, info, "multiboot1: module 0 string at 0xdeadbeef is not addressable");
}

static void mb1_module_strings_exceed_pool(void **state)
{
    (void)state;
    mem_setup();
    static char big[4096];
    memset(big, 'p', 4095);
    big[4095] = '\0';
    struct mb1_spec s = { .nmods = 5 };
    for (unsigned i = 0; i < 5; i++)
        s.mod[i].start = s.mod[i].end = 0x200000, s.mod[i].string = big;
    qemu_mmap(&s);
    /* 4 x 4096 bytes fill the 16 KiB pool exactly; the fifth does not fit */
    expect_fail(MB1_MAGIC, mb1_build(&g, &s), "module 4: module strings exceed 16384 bytes in all");
}

static uint32_t mb1_raw_mmap(uint32_t length, const void *entries, size_t n)
{
    uint32_t mm = (uint32_t)gmem_put(&g, entries, n, 4);
    struct mb1_spec s = { 0 };
    uint32_t info = mb1_build(&g, &s);
    uint8_t *p = gmem_ptr(&g, info);
    put32(p, 0, 1u << 6);
    put32(p, 44, length);
    put32(p, 48, mm);
    return info;
}

static void mb1_mmap_errors(void **state)
{
    (void)state;
    uint8_t e[3 * 24];
    memset(e, 0, sizeof(e));
    for (unsigned i = 0; i < 3; i++) {
        put32(e, 24 * i, 20);
        put64(e, 24 * i + 4, 0x100000ull * (i + 1));
        put64(e, 24 * i + 12, 0x1000);
        put32(e, 24 * i + 20, 1);
    }

    mem_setup();
    expect_fail(MB1_MAGIC, mb1_raw_mmap(8193, e, sizeof(e)),
                "multiboot1: memory map length 8193 is too large");
    /* truncated: 24 + 10 bytes */
    expect_fail(MB1_MAGIC, mb1_raw_mmap(34, e, sizeof(e)),
                "multiboot1: memory map entry at offset 24 is truncated");
    /* size too small, size beyond the map */
    put32(e, 24, 16);
    expect_fail(MB1_MAGIC, mb1_raw_mmap(72, e, sizeof(e)),
                "multiboot1: memory map entry at offset 24 has bad size 16");
    put32(e, 24, 48);
    expect_fail(MB1_MAGIC, mb1_raw_mmap(72, e, sizeof(e)),
                "memory map entry at offset 24 has bad size 48");
    put32(e, 24, 44);                /* exactly to the end: fine, swallows entry 2 */
    assert_int_equal(parse(MB1_MAGIC, mb1_raw_mmap(72, e, sizeof(e))), 0);
    assert_int_equal(bi.mmap.nr, 2);
    put32(e, 24, 20);
    /* an entry that wraps past 2^64 */
    put64(e, 4, 0xfffffffffffff000ull);
    put64(e, 12, 0x2000);
    expect_fail(MB1_MAGIC, mb1_raw_mmap(72, e, sizeof(e)),
                "memory map entry 0xfffffffffffff000+0x2000 wraps");

    /* unaddressable */
    struct mb1_spec s = { 0 };
    uint32_t info = mb1_build(&g, &s);
    put32(gmem_ptr(&g, info), 0, 1u << 6);
    put32(gmem_ptr(&g, info), 44, 48);
    put32(gmem_ptr(&g, info), 48, WIN_BASE + WIN_SIZE - 24);
    expect_fail(MB1_MAGIC, info, "multiboot1: memory map at 0x4ffe8 is not addressable");
}

static void mb1_mmap_too_many_entries(void **state)
{
    (void)state;
    mem_setup();
    struct blob b = { 0 };
    for (unsigned i = 0; i < 129; i++) {
        uint8_t e[24];
        put32(e, 0, 20);
        put64(e, 4, 0x200000ull * i);
        put64(e, 12, 0x1000);
        put32(e, 20, 1);
        blob_put(&b, e, 24);
    }
    expect_fail(MB1_MAGIC, mb1_raw_mmap((uint32_t)b.len, b.p, b.len),
                "memory map has more than 128 entries");
    /* 128 disjoint entries are fine */
    assert_int_equal(parse(MB1_MAGIC, mb1_raw_mmap((uint32_t)b.len - 24, b.p, b.len - 24)), 0);
    assert_int_equal(bi.mmap.nr, 128);
    blob_free(&b);
}

static void mb1_mmap_too_many_regions(void **state)
{
    (void)state;
    mem_setup();
    /* 64 RAM ranges, each split in three by a reserved range: 192 regions */
    struct blob b = { 0 };
    for (unsigned i = 0; i < 64; i++) {
        uint8_t e[48];
        put32(e, 0, 20);
        put64(e, 4, 0x100000ull * i);
        put64(e, 12, 0x3000);
        put32(e, 20, 1);
        put32(e, 24, 20);
        put64(e, 28, 0x100000ull * i + 0x1000);
        put64(e, 36, 0x1000);
        put32(e, 44, 2);
        blob_put(&b, e, 48);
    }
    expect_fail(MB1_MAGIC, mb1_raw_mmap((uint32_t)b.len, b.p, b.len),
                "memory map has more than 128 regions");
    blob_free(&b);
}

static void mb1_no_memory_info(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .cmdline = "vtboot" };
    expect_fail(MB1_MAGIC, mb1_build(&g, &s),
                "no memory map and no memory size from the loader");
    /* a map flag with an empty map, and meminfo of zero size, are no better */
    struct mb1_spec s2 = { .mmap = true };
    expect_fail(MB1_MAGIC, mb1_build(&g, &s2), "no memory map and no memory size");
    struct mb1_spec s3 = { .meminfo = true };
    expect_fail(MB1_MAGIC, mb1_build(&g, &s3), "no memory map and no memory size");
}

static void mb1_reparse_clears_state(void **state)
{
    (void)state;
    mem_setup();
    struct mb1_spec s = { .cmdline = "first", .nmods = 1, .mod = { { 1, 2, "a" } } };
    qemu_mmap(&s);
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s)), 0);
    struct mb1_spec s2 = { 0 };
    qemu_mmap(&s2);
    assert_int_equal(parse(MB1_MAGIC, mb1_build(&g, &s2)), 0);
    assert_string_equal(bi.cmdline, "");
    assert_int_equal(bi.nr_modules, 0);
    assert_int_equal(bi.strpool_used, 0);
    assert_qemu_map();
}

/* ================================ multiboot2 ================================ */

#define MB2_BASE 0x20000u

static struct blob b;

static int teardown_mb2(void **state)
{
    blob_free(&b);
    return phys_teardown(state);
}

#define T2(fn) cmocka_unit_test_teardown(fn, teardown_mb2)

static uint32_t mb2_place(void)
{
    phys_fake_add_copy(MB2_BASE, b.p, b.len);
    return MB2_BASE;
}

static const struct mb2_ent qemu_ents[] = {
    { 0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 }, { 0xf0000, 0x10000, 2 },
    { 0x100000, 0x7ee0000, 1 }, { 0x7fe0000, 0x20000, 2 }, { 0xfffc0000, 0x40000, 2 },
};

static void rsdp_bytes(uint8_t *r, unsigned len, uint8_t seed)
{
    for (unsigned i = 0; i < len; i++)
        r[i] = (uint8_t)(seed + i);
    memcpy(r, "RSD PTR ", 8);
}

static void mb2_full(void **state)
{
    (void)state;
    uint8_t rsdp1[20], rsdp2[36];
    rsdp_bytes(rsdp1, 20, 1);
    rsdp_bytes(rsdp2, 36, 100);
    mb2_begin(&b);
    mb2_tag_string(&b, 1, "/vtboot.gz loglvl=err,warn");
    mb2_tag_string(&b, 2, "GRUB 2.06");
    mb2_tag_module(&b, 0x200000, 0x3f8000, "/bzImage console=ttyS0");
    mb2_tag_module(&b, 0x400000, 0x4a0000, "/initrd.img");
    mb2_tag_meminfo(&b, 639, 130048);
    mb2_tag(&b, 5, "\x80\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff", 12);  /* bootdev: ignored */
    mb2_tag_mmap(&b, qemu_ents, 6, 24);
    mb2_tag(&b, 14, rsdp1, 20);
    mb2_tag(&b, 15, rsdp2, 36);
    mb2_tag(&b, 21, "\1\2\3", 3);   /* load base address: ignored */
    mb2_finish(&b);

    assert_int_equal(parse(MB2_MAGIC, mb2_place()), 0);
    assert_int_equal(bi.protocol, BOOT_MULTIBOOT2);
    assert_int_equal(bi.info_addr, MB2_BASE);
    assert_int_equal(bi.info_size, b.len);
    assert_string_equal(bi.cmdline, "/vtboot.gz loglvl=err,warn");
    assert_string_equal(bi.loader_name, "GRUB 2.06");
    assert_int_equal(bi.nr_modules, 2);
    assert_int_equal(bi.modules[0].start, 0x200000);
    assert_int_equal(bi.modules[0].end, 0x3f8000);
    assert_string_equal(bi.modules[0].string, "/bzImage console=ttyS0");
    assert_string_equal(bi.modules[1].string, "/initrd.img");
    assert_true(bi.have_meminfo);
    assert_int_equal(bi.mem_lower_kb, 639);
    assert_int_equal(bi.mem_upper_kb, 130048);
    assert_qemu_map();
    assert_int_equal(bi.rsdp_len, 36);
    assert_memory_equal(bi.rsdp, rsdp2, 36);
}

static void mb2_acpi_old_only(void **state)
{
    (void)state;
    uint8_t rsdp1[24];
    rsdp_bytes(rsdp1, 24, 7);
    mb2_begin(&b);
    mb2_tag(&b, 14, rsdp1, 24);      /* longer than 20 is fine; 20 are kept */
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    assert_int_equal(parse(MB2_MAGIC, mb2_place()), 0);
    assert_int_equal(bi.rsdp_len, 20);
    assert_memory_equal(bi.rsdp, rsdp1, 20);
}

static void mb2_acpi_new_before_old(void **state)
{
    (void)state;
    uint8_t rsdp1[20], rsdp2[36];
    rsdp_bytes(rsdp1, 20, 1);
    rsdp_bytes(rsdp2, 36, 50);
    mb2_begin(&b);
    mb2_tag(&b, 15, rsdp2, 36);
    mb2_tag(&b, 14, rsdp1, 20);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    assert_int_equal(parse(MB2_MAGIC, mb2_place()), 0);
    assert_int_equal(bi.rsdp_len, 36);
    assert_memory_equal(bi.rsdp, rsdp2, 36);
}

static void mb2_meminfo_fallback_and_empty_cmdline(void **state)
{
    (void)state;
    mb2_begin(&b);
    mb2_tag_string(&b, 1, "");
    mb2_tag_meminfo(&b, 640, 0x3c00);
    mb2_finish(&b);
    assert_int_equal(parse(MB2_MAGIC, mb2_place()), 0);
    assert_string_equal(bi.cmdline, "");
    assert_int_equal(bi.mmap.nr, 2);
    assert_entry(0, 0, 0xa0000, 1);
    assert_entry(1, 0x100000, 0xf00000, 1);
}

static void mb2_wide_mmap_entries(void **state)
{
    (void)state;
    mb2_begin(&b);
    mb2_tag_mmap(&b, qemu_ents, 6, 32);
    mb2_finish(&b);
    assert_int_equal(parse(MB2_MAGIC, mb2_place()), 0);
    assert_qemu_map();
}

static void mb2_stops_at_end_tag(void **state)
{
    (void)state;
    mb2_begin(&b);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_tag(&b, 0, NULL, 0);
    /* garbage after the end tag, inside total_size: never looked at */
    blob_put(&b, "\x01\0\0\0\x03\0\0\0garbage!", 16);
    put32(b.p, 0, (uint32_t)b.len);
    assert_int_equal(parse(MB2_MAGIC, mb2_place()), 0);
    assert_string_equal(bi.cmdline, "");
}

static void mb2_cmdline_max(void **state)
{
    (void)state;
    char line[1024];
    memset(line, 'c', 1023);
    line[1023] = '\0';
    mb2_begin(&b);
    mb2_tag_string(&b, 1, line);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    assert_int_equal(parse(MB2_MAGIC, mb2_place()), 0);
    assert_int_equal(strlen(bi.cmdline), 1023);
}

static void mb2_long_loader_name_truncated(void **state)
{
    (void)state;
    char name[100];
    memset(name, 'L', 99);
    name[99] = '\0';
    mb2_begin(&b);
    mb2_tag_string(&b, 2, name);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    assert_int_equal(parse(MB2_MAGIC, mb2_place()), 0);
    assert_int_equal(strlen(bi.loader_name), 63);
}

/* ---- multiboot2 errors ---- */

static void mb2_info_placement_errors(void **state)
{
    (void)state;
    mb2_begin(&b);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    phys_fake_add(MB2_BASE - 0x100, 0x100);
    mb2_place();
    expect_fail(MB2_MAGIC, MB2_BASE + 4, "multiboot2: info at 0x20004 is not 8-byte aligned");
    expect_fail(MB2_MAGIC, MB2_BASE - 0x100 + 1, "is not 8-byte aligned");
    expect_fail(MB2_MAGIC, 0x800000, "multiboot2: info at 0x800000 is not addressable");
    /* total_size claims more than there is */
    put32(phys_fake_ptr(MB2_BASE), 0, (uint32_t)b.len + 8);
    expect_fail(MB2_MAGIC, MB2_BASE, "multiboot2: info 0x20000+0x28 is not addressable");
}

static void mb2_total_size_range(void **state)
{
    (void)state;
    mb2_begin(&b);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    uint32_t a = mb2_place();
    uint8_t *p = phys_fake_ptr(a);
    put32(p, 0, 0);
    expect_fail(MB2_MAGIC, a, "multiboot2: total_size 0 out of range");
    put32(p, 0, 15);
    expect_fail(MB2_MAGIC, a, "multiboot2: total_size 15 out of range");
    put32(p, 0, 0x100001);
    expect_fail(MB2_MAGIC, a, "multiboot2: total_size 1048577 out of range");
    put32(p, 0, 0xffffffffu);
    expect_fail(MB2_MAGIC, a, "total_size 4294967295 out of range");
    /* 16 is the smallest: header and an end tag */
    put32(p, 0, 16);
    put32(p, 8, 0);
    put32(p, 12, 8);
    expect_fail(MB2_MAGIC, a, "no memory map and no memory size");
}

static void mb2_tag_size_errors(void **state)
{
    (void)state;
    mb2_begin(&b);
    size_t t = mb2_tag_string(&b, 1, "abc");
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    uint32_t a = mb2_place();
    uint8_t *p = phys_fake_ptr(a);
    put32(p, t + 4, 7);
    expect_fail(MB2_MAGIC, a, "multiboot2: tag type 1 at offset 8 has bad size 7");
    put32(p, t + 4, 0);
    expect_fail(MB2_MAGIC, a, "tag type 1 at offset 8 has bad size 0");
    put32(p, t + 4, (uint32_t)b.len - 8 + 1);
    expect_fail(MB2_MAGIC, a, "tag type 1 at offset 8 has bad size 41");
    put32(p, t + 4, 0xfffffff8u);
    expect_fail(MB2_MAGIC, a, "has bad size 4294967288");
}

static void mb2_tag_truncated(void **state)
{
    (void)state;
    mb2_begin(&b);
    mb2_tag(&b, 99, NULL, 0);
    blob_zero(&b, 4);
    put32(b.p, 0, 20);
    expect_fail(MB2_MAGIC, mb2_place(), "multiboot2: tag at offset 16 is truncated");
}

static void mb2_missing_end_tag(void **state)
{
    (void)state;
    mb2_begin(&b);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_tag(&b, 99, "x", 1);         /* last tag padded past total_size */
    put32(b.p, 0, (uint32_t)b.len - 7);
    expect_fail(MB2_MAGIC, mb2_place(), "multiboot2: no end tag within total_size 33");
    blob_free(&b);
    phys_fake_reset();
    mb2_begin(&b);
    mb2_tag_meminfo(&b, 639, 1024);
    put32(b.p, 0, (uint32_t)b.len);
    expect_fail(MB2_MAGIC, mb2_place(), "no end tag within total_size 24");
}

static void mb2_end_tag_bad_size(void **state)
{
    (void)state;
    mb2_begin(&b);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_tag(&b, 0, "\0\0\0\0\0\0\0\0", 8);
    put32(b.p, 0, (uint32_t)b.len);
    expect_fail(MB2_MAGIC, mb2_place(), "multiboot2: end tag has size 16");
}

static void mb2_duplicates(void **state)
{
    (void)state;
    mb2_begin(&b);
    mb2_tag_string(&b, 1, "a");
    mb2_tag_string(&b, 1, "b");
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    expect_fail(MB2_MAGIC, mb2_place(), "multiboot2: two command line tags");
    blob_free(&b);
    phys_fake_reset();
    mb2_begin(&b);
    mb2_tag_mmap(&b, qemu_ents, 6, 24);
    mb2_tag_mmap(&b, qemu_ents, 1, 24);
    mb2_finish(&b);
    expect_fail(MB2_MAGIC, mb2_place(), "multiboot2: two memory map tags");
}

static void mb2_unterminated_strings(void **state)
{
    (void)state;
    /* command line: the terminator is outside the tag (in its padding) */
    mb2_begin(&b);
    size_t t = mb2_tag_string(&b, 1, "abcdef");
    put32(b.p, t + 4, 8 + 6);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    expect_fail(MB2_MAGIC, mb2_place(), "multiboot2: command line is not NUL-terminated");
    blob_free(&b);
    phys_fake_reset();

    /* an empty tag has no room for a terminator */
    mb2_begin(&b);
    mb2_tag(&b, 1, NULL, 0);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    expect_fail(MB2_MAGIC, mb2_place(), "command line is not NUL-terminated");
    blob_free(&b);
    phys_fake_reset();

    mb2_begin(&b);
    t = mb2_tag_string(&b, 2, "GRUB");
    put32(b.p, t + 4, 8 + 4);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    expect_fail(MB2_MAGIC, mb2_place(), "multiboot2: loader name is not NUL-terminated");
    blob_free(&b);
    phys_fake_reset();

    mb2_begin(&b);
    mb2_tag_module(&b, 0x200000, 0x300000, "kernel");
    t = mb2_tag_module(&b, 0x300000, 0x400000, "initrd");
    put32(b.p, t + 4, 16 + 6);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    expect_fail(MB2_MAGIC, mb2_place(), "multiboot2: module 1 string is not NUL-terminated");
}

static void mb2_cmdline_too_long(void **state)
{
    (void)state;
    char line[1025];
    memset(line, 'c', 1024);
    line[1024] = '\0';
    mb2_begin(&b);
    mb2_tag_string(&b, 1, line);
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    expect_fail(MB2_MAGIC, mb2_place(), "multiboot2: command line is longer than 1023 bytes");
}

static void mb2_small_tags(void **state)
{
    (void)state;
    static const struct { uint32_t type, size; const char *msg; } cases[] = {
        { 3, 16, "multiboot2: module tag at offset 8 has size 16" },
        { 3, 8, "module tag at offset 8 has size 8" },
        { 4, 12, "multiboot2: basic meminfo tag has size 12" },
        { 6, 12, "multiboot2: memory map tag has size 12" },
        { 14, 27, "multiboot2: ACPI RSDP tag has size 27" },
        { 15, 43, "multiboot2: ACPI RSDP tag has size 43" },
        { 15, 8, "ACPI RSDP tag has size 8" },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t zero[64] = { 0 };
        mb2_begin(&b);
        size_t t = mb2_tag(&b, cases[i].type, zero, 48);
        put32(b.p, t + 4, cases[i].size);
        mb2_tag_meminfo(&b, 639, 1024);
        mb2_finish(&b);
        expect_fail(MB2_MAGIC, mb2_place(), cases[i].msg);
        blob_free(&b);
        phys_fake_reset();
    }
}

static void mb2_mmap_entry_size(void **state)
{
    (void)state;
    static const struct { uint32_t esz, tag_size; const char *msg; } cases[] = {
        { 20, 16 + 40, "multiboot2: memory map entry_size 20 does not fit tag size 56" },
        { 0, 16, "entry_size 0 does not fit tag size 16" },
        { 28, 16 + 56, "entry_size 28 does not fit" },
        { 8192, 16, "entry_size 8192 does not fit" },
        { 24, 16 + 30, "entry_size 24 does not fit tag size 46" },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        mb2_begin(&b);
        size_t t = mb2_tag_mmap(&b, qemu_ents, 6, 24);
        put32(b.p, t + 8, cases[i].esz);
        put32(b.p, t + 4, cases[i].tag_size);
        mb2_finish(&b);
        expect_fail(MB2_MAGIC, mb2_place(), cases[i].msg);
        blob_free(&b);
        phys_fake_reset();
    }
    /* an empty map tag is well-formed, and then there is no memory information */
    mb2_begin(&b);
    mb2_tag_mmap(&b, qemu_ents, 0, 24);
    mb2_finish(&b);
    expect_fail(MB2_MAGIC, mb2_place(), "no memory map and no memory size from the loader");
}

static void mb2_mmap_wraps(void **state)
{
    (void)state;
    static const struct mb2_ent e[] = { { 0xfffffffffffff000ull, 0x1000, 2 } };
    mb2_begin(&b);
    mb2_tag_mmap(&b, e, 1, 24);
    mb2_finish(&b);
    expect_fail(MB2_MAGIC, mb2_place(), "memory map entry 0xfffffffffffff000+0x1000 wraps");
}

static void mb2_module_errors(void **state)
{
    (void)state;
    mb2_begin(&b);
    for (unsigned i = 0; i < 17; i++)
        mb2_tag_module(&b, 0x200000 + i * 0x1000, 0x200000 + i * 0x1000 + 1, "m");
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    expect_fail(MB2_MAGIC, mb2_place(), "more than 16 modules");
    blob_free(&b);
    phys_fake_reset();

    mb2_begin(&b);
    mb2_tag_module(&b, 0x300000, 0x2fffff, "m");
    mb2_tag_meminfo(&b, 639, 1024);
    mb2_finish(&b);
    expect_fail(MB2_MAGIC, mb2_place(), "module 0: end 0x2fffff below start 0x300000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(mb1_full),
        T(mb1_map_is_sanitised),
        T(mb1_meminfo_only),
        T(mb1_meminfo_huge_upper),
        T(mb1_empty_map_falls_back_to_meminfo),
        T(mb1_mods_flag_without_modules),
        T(mb1_module_without_string),
        T(mb1_sixteen_modules),
        T(mb1_long_loader_name_truncated),
        T(mb1_cmdline_max),
        T(mb1_mmap_wider_entries),
        T(mb1_unknown_types_kept),
        T(bad_magic),
        T(mb1_info_unaddressable),
        T(mb1_cmdline_too_long),
        T(mb1_cmdline_unterminated),
        T(mb1_loader_name_unaddressable),
        T(mb1_too_many_modules),
        T(mb1_module_list_unaddressable),
        T(mb1_module_end_below_start),
        T(mb1_module_string_unterminated),
        T(mb1_module_string_unaddressable),
        T(mb1_module_strings_exceed_pool),
        T(mb1_mmap_errors),
        T(mb1_mmap_too_many_entries),
        T(mb1_mmap_too_many_regions),
        T(mb1_no_memory_info),
        T(mb1_reparse_clears_state),
        T2(mb2_full),
        T2(mb2_acpi_old_only),
        T2(mb2_acpi_new_before_old),
        T2(mb2_meminfo_fallback_and_empty_cmdline),
        T2(mb2_wide_mmap_entries),
        T2(mb2_stops_at_end_tag),
        T2(mb2_cmdline_max),
        T2(mb2_long_loader_name_truncated),
        T2(mb2_info_placement_errors),
        T2(mb2_total_size_range),
        T2(mb2_tag_size_errors),
        T2(mb2_tag_truncated),
        T2(mb2_missing_end_tag),
        T2(mb2_end_tag_bad_size),
        T2(mb2_duplicates),
        T2(mb2_unterminated_strings),
        T2(mb2_cmdline_too_long),
        T2(mb2_small_tags),
        T2(mb2_mmap_entry_size),
        T2(mb2_mmap_wraps),
        T2(mb2_module_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
