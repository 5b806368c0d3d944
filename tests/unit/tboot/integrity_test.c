/* SPDX-License-Identifier: MIT */
/*
 * src/tboot/integrity.c: the kernel's MAC regions as the shared page carries them (written here
 * at the byte offsets of tboot's struct tboot_shared, not through include/abi/), and the S3
 * tags, checked against OpenSSL's Poly1305 (EVP_MAC "POLY1305") of the same definition: per
 * region i, key_i = SHA-256(key || "vtboot s3 region" || u32le i), and the tag is
 * Poly1305(key_i, u64le start || u32le size || the region's bytes that the e820 map calls RAM,
 * in address order). Guest memory is the fake phys_map (strict: ASan sees any read past
 * what was asked for), one window per map entry.
 */
#include "test_common.h"

#include <openssl/evp.h>

#include "openssl_ref.h"
#include "tboot/integrity.h"

/* ---- the shared page's MAC fields, at tboot's offsets ---- */

#define SP_NUM_MAC_REGIONS 0x070
#define SP_MAC_REGIONS 0x071             /* 32 x { u64 start, u32 size }, packed */

static uint8_t page[4096];

static const struct tboot_shared *shared_with(unsigned n, const uint64_t *start,
                                              const uint32_t *size, unsigned count)
{
    memset(page, 0, sizeof(page));
    put8(page, SP_NUM_MAC_REGIONS, (uint8_t)count);
    for (unsigned i = 0; i < n; i++) {
        put64(page, SP_MAC_REGIONS + 12 * i, start[i]);
        put32(page, SP_MAC_REGIONS + 12 * i + 8, size[i]);
    }
    return (const struct tboot_shared *)page;
}

static struct mac_regions regs;
static char err[160];

static void expect_refused(const struct tboot_shared *sp, const char *msg)
{
    memset(err, 0, sizeof(err));
    assert_int_equal(mac_regions_from_shared(sp, &regs, err, sizeof(err)), -1);
    assert_string_equal(err, msg);
}

static void from_shared_accepts(void **state)
{
    (void)state;
    /* the regions a Linux 6.1 kernel gives (its RAM, in e820 order), and the boundaries:
     * one ending exactly at 4 GiB, one from address 1 to 4 GiB, one byte */
    static const uint64_t start[] = { 0x1000, 0x100000, 0xfffff000, 0x1, 0x7fffffff };
    static const uint32_t size[] = { 0x9e000, 0x7ee0000, 0x1000, 0xffffffff, 1 };
    memset(&regs, 0xa5, sizeof(regs));
    assert_int_equal(mac_regions_from_shared(shared_with(5, start, size, 5), &regs, err,
                                             sizeof(err)), 0);
    assert_int_equal(regs.n, 5);
    for (unsigned i = 0; i < 5; i++) {
        assert_int_equal(regs.r[i].start, start[i]);
        assert_int_equal(regs.r[i].size, size[i]);
    }
    /* all 32, and only the first `count` are read */
    uint64_t s32[TBOOT_MAX_MAC_REGIONS];
    uint32_t z32[TBOOT_MAX_MAC_REGIONS];
    for (unsigned i = 0; i < TBOOT_MAX_MAC_REGIONS; i++) {
        s32[i] = 0x100000 + 0x10000ull * i;
        z32[i] = 0x100 + i;
    }
    assert_int_equal(mac_regions_from_shared(shared_with(32, s32, z32, 32), &regs, err,
                                             sizeof(err)), 0);
    assert_int_equal(regs.n, 32);
    assert_int_equal(regs.r[31].start, 0x100000 + 0x10000 * 31);
    assert_int_equal(regs.r[31].size, 0x100 + 31);
    const struct tboot_shared *sp = shared_with(32, s32, z32, 3);
    put32(page, SP_MAC_REGIONS + 12 * 3 + 8, 0);     /* region 3 empty: not looked at */
    assert_int_equal(mac_regions_from_shared(sp, &regs, err, sizeof(err)), 0);
    assert_int_equal(regs.n, 3);
}

static void from_shared_refuses(void **state)
{
    (void)state;
    uint64_t start[TBOOT_MAX_MAC_REGIONS];
    uint32_t size[TBOOT_MAX_MAC_REGIONS];
    for (unsigned i = 0; i < TBOOT_MAX_MAC_REGIONS; i++) {
        start[i] = 0x200000 + 0x100000ull * i;
        size[i] = 0x1000;
    }
    /* more than the page holds; none */
    expect_refused(shared_with(32, start, size, 33),
                   "the kernel gave 33 MAC regions, at most 32 fit the shared page");
    expect_refused(shared_with(32, start, size, 255),
                   "the kernel gave 255 MAC regions, at most 32 fit the shared page");
    expect_refused(shared_with(32, start, size, 0), "the kernel gave no MAC regions");

    static const struct {
        unsigned at;
        uint64_t start;
        uint32_t size;
        const char *msg;
    } c[] = {
        { 2, 0x100000, 0, "MAC region 2 (0x100000+0x0) is empty, at 0 or wraps" },
        { 0, 0, 0x1000, "MAC region 0 (0x0+0x1000) is empty, at 0 or wraps" },
        { 0, 0, 0, "MAC region 0 (0x0+0x0) is empty, at 0 or wraps" },
        { 1, 0xfffffffffffff000ull, 0x1000,
          "MAC region 1 (0xfffffffffffff000+0x1000) is empty, at 0 or wraps" },
        { 1, 0xffffffffffffffffull, 0x2,
          "MAC region 1 (0xffffffffffffffff+0x2) is empty, at 0 or wraps" },
        { 0, 0xffffffff, 0x2,
          "MAC region 0 (0xffffffff+0x2) reaches above 4 GiB, which vtboot cannot read" },
        { 3, 0x100000000ull, 0x1,
          "MAC region 3 (0x100000000+0x1) reaches above 4 GiB, which vtboot cannot read" },
        { 0, 0x2, 0xffffffff,
          "MAC region 0 (0x2+0xffffffff) reaches above 4 GiB, which vtboot cannot read" },
        { 5, 0xfffffffffffff000ull, 0xfff,
          "MAC region 5 (0xfffffffffffff000+0xfff) reaches above 4 GiB, which vtboot cannot "
          "read" },
        { 31, 0x1000000000ull, 0x1000,
          "MAC region 31 (0x1000000000+0x1000) reaches above 4 GiB, which vtboot cannot "
          "read" },
    };
    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        uint64_t s[TBOOT_MAX_MAC_REGIONS];
        uint32_t z[TBOOT_MAX_MAC_REGIONS];
        memcpy(s, start, sizeof(s));
        memcpy(z, size, sizeof(z));
        s[c[i].at] = c[i].start;
        z[c[i].at] = c[i].size;
        expect_refused(shared_with(32, s, z, 32), c[i].msg);
        /* the first bad one is named */
        if (c[i].at < 31) {
            s[c[i].at + 1] = 0;
            expect_refused(shared_with(32, s, z, 32), c[i].msg);
        }
    }
    /* a short error buffer gets a terminated prefix */
    char small[12];
    memset(small, 'x', sizeof(small));
    assert_int_equal(mac_regions_from_shared(shared_with(32, start, size, 0), &regs, small,
                                             sizeof(small)), -1);
    assert_string_equal(small, "the kernel ");
}

/* ================================ tags ================================ */

/*
 * Guest memory: a sanitised map with RAM, a reserved page in the middle of RAM, an ACPI area,
 * a hole no entry describes, and a RAM entry larger than the 1 MiB the MAC reads at a time.
 * Each entry and the hole is its own phys_fake window, filled with its own bytes.
 */
#define RAM0 0x100000u                   /* RAM      [0x100000, 0x140000) */
#define RES0 0x140000u                   /* reserved [0x140000, 0x141000) */
#define RAM1 0x141000u                   /* RAM      [0x141000, 0x180000) */
#define ACPI0 0x180000u                  /* ACPI     [0x180000, 0x182000) */
#define HOLE0 0x182000u                  /* nothing  [0x182000, 0x190000) */
#define RAM2 0x190000u                   /* RAM      [0x190000, 0x2a0000) */
#define END2 0x2a0000u

static struct e820_map ram;
static const struct { uint64_t addr, size; uint32_t type; } layout[] = {
    { RAM0, RES0 - RAM0, E820_TYPE_RAM },       { RES0, RAM1 - RES0, E820_TYPE_RESERVED },
    { RAM1, ACPI0 - RAM1, E820_TYPE_RAM },      { ACPI0, HOLE0 - ACPI0, E820_TYPE_ACPI },
    { RAM2, END2 - RAM2, E820_TYPE_RAM },
};

/* Sets up the map and the windows (the hole too, unless ram_only: then only RAM is
 * addressable, and any read of anything else misses). */
static void setup_memory(bool ram_only)
{
    memset(&ram, 0, sizeof(ram));
    for (unsigned i = 0; i < sizeof(layout) / sizeof(layout[0]); i++) {
        assert_int_equal(e820_append(&ram, layout[i].addr, layout[i].size, layout[i].type), 0);
        if (ram_only && layout[i].type != E820_TYPE_RAM)
            continue;
        uint8_t *w = phys_fake_add(layout[i].addr, layout[i].size);
        for (size_t b = 0; b < layout[i].size; b++)
            w[b] = (uint8_t)((layout[i].addr + b) * 2654435761u >> 13);
    }
    if (!ram_only)
        phys_fake_add(HOLE0, RAM2 - HOLE0);
    assert_int_equal(e820_sanitize(&ram), 0);
    assert_int_equal(ram.nr, 5);
}

/* The test's view of guest byte addr. */
static uint8_t *at(uint64_t addr)
{
    uint8_t *p = phys_fake_ptr(addr);
    assert_non_null(p);
    return p;
}

/* ---- the reference ---- */

static void ref_poly1305(const uint8_t key[32], const uint8_t *msg, size_t len, uint8_t tag[16])
{
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
    EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
    size_t out = 0;
    if (!ctx || !EVP_MAC_init(ctx, key, 32, NULL) || !EVP_MAC_update(ctx, msg, len) ||
        !EVP_MAC_final(ctx, tag, &out, 16) || out != 16)
        fail_msg("OpenSSL Poly1305 failed");
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
}

/* Region i's tag from its definition; *covered gets the RAM bytes it spans. */
static void ref_tag(const uint8_t key[32], unsigned i, uint64_t start, uint32_t size,
                    uint8_t tag[16], uint64_t *covered)
{
    uint8_t kin[32 + 16 + 4], ki[32];
    memcpy(kin, key, 32);
    memcpy(kin + 32, "vtboot s3 region", 16);
    put32(kin, 48, i);
    ref_hash(0x000b /* SHA-256 */, kin, sizeof(kin), ki);
    uint8_t *msg = malloc(12 + (size_t)size);
    size_t n = 12;
    put64(msg, 0, start);
    put32(msg, 8, size);
    for (unsigned e = 0; e < sizeof(layout) / sizeof(layout[0]); e++) {
        if (layout[e].type != E820_TYPE_RAM)
            continue;
        uint64_t lo = start > layout[e].addr ? start : layout[e].addr;
        uint64_t end = start + size, eend = layout[e].addr + layout[e].size;
        uint64_t hi = end < eend ? end : eend;
        if (hi > lo) {                   /* one entry is one window */
            memcpy(msg + n, at(lo), hi - lo);
            n += hi - lo;
        }
    }
    ref_poly1305(ki, msg, n, tag);
    if (covered)
        *covered = n - 12;
    free(msg);
}

/* ---- the regions ---- */

static const struct { uint64_t start; uint32_t size; uint64_t ram; } cases[] = {
    /* 0: RAM only */
    { RAM0, 0x10000, 0x10000 },
    /* 1: RAM, then into the reserved page: clipped */
    { RES0 - 0x800, 0x1000, 0x800 },
    /* 2: RAM, the whole reserved page, RAM again (two entries around a hole) */
    { RES0 - 0x1000, 0x3000, 0x2000 },
    /* 3: inside the reserved page: nothing but the region's identity */
    { RES0 + 0x100, 0x100, 0 },
    /* 4: in the hole no entry describes: likewise */
    { HOLE0 + 0x1000, 0x1000, 0 },
    /* 5: RAM, ACPI, the hole, RAM */
    { ACPI0 - 0x1000, RAM2 + 0x1000 - (ACPI0 - 0x1000), 0x2000 },
    /* 6: odd start and size (partial Poly1305 blocks) */
    { RAM0 + 3, 0x1235, 0x1235 },
    /* 7: more than the 1 MiB the MAC reads at a time, ending one byte short of the end */
    { RAM2, END2 - RAM2 - 1, END2 - RAM2 - 1 },
    /* 8: everything, from below the first entry to past the last one */
    { 0x1000, END2 + 0x1000 - 0x1000, (RES0 - RAM0) + (ACPI0 - RAM1) + (END2 - RAM2) },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static const uint8_t key[MAC_KEY_SIZE] = {
    0x85, 0xd6, 0xbe, 0x78, 0x57, 0x55, 0x6d, 0x33, 0x7f, 0x44, 0x52, 0xfe, 0x42, 0xd5, 0x06,
    0xa8, 0x01, 0x03, 0x80, 0x8a, 0xfb, 0x0d, 0xb2, 0xfd, 0x4a, 0xbf, 0xf6, 0xaf, 0x41, 0x49,
    0xf5, 0x1b,
};
static uint8_t tags[TBOOT_MAX_MAC_REGIONS][MAC_TAG_SIZE];

static void load_cases(void)
{
    regs.n = NCASES;
    for (unsigned i = 0; i < NCASES; i++)
        regs.r[i] = (struct mac_region){ cases[i].start, cases[i].size };
}

static void tags_match_openssl(void **state)
{
    (void)state;
    setup_memory(false);
    load_cases();
    memset(tags, 0, sizeof(tags));
    mac_regions_compute(key, &regs, &ram, tags, NULL);
    for (unsigned i = 0; i < NCASES; i++) {
        uint8_t want[16];
        uint64_t covered;
        ref_tag(key, i, cases[i].start, cases[i].size, want, &covered);
        assert_int_equal(covered, cases[i].ram);
        if (memcmp(tags[i], want, 16))
            fail_msg("region %u (0x%llx+0x%x): the tag differs from OpenSSL's", i,
                     (unsigned long long)cases[i].start, cases[i].size);
    }
    /* each region's own key: the same region at another index has another tag */
    struct mac_regions two = { 2, { { RAM0, 0x10000 }, { RAM0, 0x10000 } } };
    uint8_t t2[2][MAC_TAG_SIZE];
    mac_regions_compute(key, &two, &ram, t2, NULL);
    assert_memory_equal(t2[0], tags[0], 16);
    assert_memory_not_equal(t2[0], t2[1], 16);
    uint8_t want[16];
    ref_tag(key, 1, RAM0, 0x10000, want, NULL);
    assert_memory_equal(t2[1], want, 16);
    /* the regions whose RAM is empty are distinguished by identity alone */
    assert_memory_not_equal(tags[3], tags[4], 16);
    /* the tags do not depend on memory nobody asked about */
    *at(RAM1 + 0x10000) ^= 0xff;
    struct mac_regions first = { 7, { { 0 } } };
    memcpy(first.r, regs.r, sizeof(first.r[0]) * 7);
    uint8_t again[7][MAC_TAG_SIZE];
    mac_regions_compute(key, &first, &ram, again, NULL);
    assert_memory_equal(again, tags, sizeof(again));
}

static void reads_only_ram(void **state)
{
    (void)state;
    /* with only the RAM entries addressable, every read the MAC makes succeeds: it never
     * asks for reserved, ACPI or unlisted memory */
    setup_memory(true);
    load_cases();
    mac_regions_compute(key, &regs, &ram, tags, NULL);
    assert_int_equal(phys_fake_misses(), 0);
    /* one read per RAM piece, per MiB: region 7 is 2 reads, region 8 one per RAM entry plus
     * one more for RAM2's 1.06 MiB; regions 3 and 4 none */
    assert_int_equal(phys_fake_calls(), 1 + 1 + 2 + 0 + 0 + 2 + 1 + 2 + (1 + 1 + 2));
    assert_int_equal(mac_regions_verify(key, &regs, &ram, tags, NULL), -1);
    assert_int_equal(phys_fake_misses(), 0);
    for (unsigned i = 0; i < NCASES; i++) {
        uint8_t want[16];
        ref_tag(key, i, cases[i].start, cases[i].size, want, NULL);
        assert_memory_equal(tags[i], want, 16);
    }
}

static void covered_bytes(void **state)
{
    (void)state;
    setup_memory(false);
    for (unsigned i = 0; i < NCASES; i++) {
        struct mac_regions one = { 1, { { cases[i].start, cases[i].size } } };
        if (mac_regions_covered(&one, &ram) != cases[i].ram)
            fail_msg("region %u: %llu bytes covered, want %llu", i,
                     (unsigned long long)mac_regions_covered(&one, &ram),
                     (unsigned long long)cases[i].ram);
    }
    load_cases();
    uint64_t total = 0;
    for (unsigned i = 0; i < NCASES; i++)
        total += cases[i].ram;
    /* overlapping regions count once each */
    assert_int_equal(mac_regions_covered(&regs, &ram), total);
    assert_int_equal(total, 0x10000 + 0x800 + 0x2000 + 0 + 0 + 0x2000 + 0x1235 + 0x10ffff +
                                0x18f000);
    struct mac_regions none = { 0, { { 0 } } };
    assert_int_equal(mac_regions_covered(&none, &ram), 0);
    /* nothing is RAM in an empty map */
    struct e820_map empty = { 0 };
    assert_int_equal(mac_regions_covered(&regs, &empty), 0);
    assert_int_equal(phys_fake_calls(), 0);         /* counting reads no memory */
}

/* ================================ verify ================================ */

static void verify_unchanged(void **state)
{
    (void)state;
    setup_memory(false);
    load_cases();
    mac_regions_compute(key, &regs, &ram, tags, NULL);
    assert_int_equal(mac_regions_verify(key, &regs, &ram, tags, NULL), -1);
    assert_int_equal(mac_regions_verify(key, &regs, &ram, tags, NULL), -1);
    /* RAM that no region names may change */
    struct mac_regions some = { 3, { { RAM0, 0x1000 }, { RAM1, 0x1000 }, { RAM2, 0x1000 } } };
    mac_regions_compute(key, &some, &ram, tags, NULL);
    *at(RAM0 + 0x1000) ^= 1;
    *at(RAM1 - 1) ^= 1;
    *at(END2 - 1) ^= 1;
    assert_int_equal(mac_regions_verify(key, &some, &ram, tags, NULL), -1);
    /* no regions: nothing to mismatch */
    struct mac_regions none = { 0, { { 0 } } };
    assert_int_equal(mac_regions_verify(key, &none, &ram, tags, NULL), -1);
}

static void verify_names_the_first_changed_region(void **state)
{
    (void)state;
    setup_memory(false);
    load_cases();
    mac_regions_compute(key, &regs, &ram, tags, NULL);
    /* a byte in RAM, and the first region (in table order) that holds it */
    static const struct { uint64_t addr; int want; } c[] = {
        { RAM0, 0 },                     /* regions 0 and 8 */
        { RAM0 + 0xffff, 0 },            /* the last byte of region 0 */
        { RAM0 + 0x10000, 8 },           /* just past it: only region 8 */
        { RES0 - 1, 1 },                 /* regions 1, 2 and 8 */
        { RES0 - 0x801, 2 },             /* just before region 1: 2 and 8 */
        { RAM1, 2 },                     /* region 2's second RAM part */
        { RAM1 + 0xfff, 2 },
        { ACPI0 - 1, 5 },
        { RAM2, 5 },                     /* regions 5, 7 and 8 */
        { RAM2 + 0x1000, 7 },            /* past region 5 */
        { RAM0 + 3, 0 },                 /* region 6 starts here, but 0 comes first */
        { END2 - 2, 7 },                 /* region 7's last byte */
        { END2 - 1, 8 },                 /* the byte region 7 leaves out */
    };
    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        *at(c[i].addr) ^= 0x80;
        int got = mac_regions_verify(key, &regs, &ram, tags, NULL);
        *at(c[i].addr) ^= 0x80;
        if (got != c[i].want)
            fail_msg("byte 0x%llx changed: region %d, want %d", (unsigned long long)c[i].addr,
                     got, c[i].want);
    }
    assert_int_equal(mac_regions_verify(key, &regs, &ram, tags, NULL), -1);
    /* two regions changed: the first is named */
    *at(RAM2 + 0x1000) ^= 1;                        /* 7 */
    *at(RAM1) ^= 1;                                 /* 2 */
    assert_int_equal(mac_regions_verify(key, &regs, &ram, tags, NULL), 2);
    *at(RAM1) ^= 1;
    assert_int_equal(mac_regions_verify(key, &regs, &ram, tags, NULL), 7);
    *at(RAM2 + 0x1000) ^= 1;
    assert_int_equal(mac_regions_verify(key, &regs, &ram, tags, NULL), -1);
    /* a changed tag */
    tags[4][15] ^= 1;
    assert_int_equal(mac_regions_verify(key, &regs, &ram, tags, NULL), 4);
    tags[4][15] ^= 1;
    /* another key: every tag differs, the first is named */
    uint8_t other[MAC_KEY_SIZE];
    memcpy(other, key, sizeof(other));
    other[31] ^= 1;
    assert_int_equal(mac_regions_verify(other, &regs, &ram, tags, NULL), 0);
}

static void verify_ignores_non_ram(void **state)
{
    (void)state;
    /* firmware rewrites reserved memory on resume: only RAM is MACed */
    setup_memory(false);
    load_cases();
    mac_regions_compute(key, &regs, &ram, tags, NULL);
    static const uint64_t not_ram[] = { RES0, RES0 + 0x400, RAM1 - 1, ACPI0, HOLE0 - 1, HOLE0,
                                        HOLE0 + 0x1800, RAM2 - 1 };
    for (unsigned i = 0; i < sizeof(not_ram) / sizeof(not_ram[0]); i++)
        *at(not_ram[i]) ^= 0xff;
    assert_int_equal(mac_regions_verify(key, &regs, &ram, tags, NULL), -1);
}

static void verify_changed_table(void **state)
{
    (void)state;
    setup_memory(false);
    load_cases();
    mac_regions_compute(key, &regs, &ram, tags, NULL);
    struct mac_regions r = regs;
    /* the region's identity is MACed: a region of reserved memory moved by a byte, or one
     * grown into the reserved page, covers the same RAM bytes but does not verify */
    r.r[3].start++;
    assert_int_equal(mac_regions_verify(key, &r, &ram, tags, NULL), 3);
    r = regs;
    r.r[1].size++;
    assert_int_equal(mac_regions_covered(&r, &ram), mac_regions_covered(&regs, &ram));
    assert_int_equal(mac_regions_verify(key, &r, &ram, tags, NULL), 1);
    r = regs;
    r.r[4].size--;
    assert_int_equal(mac_regions_verify(key, &r, &ram, tags, NULL), 4);
    r = regs;
    r.r[6].start += 0x10000;
    assert_int_equal(mac_regions_verify(key, &r, &ram, tags, NULL), 6);
    /* two regions swapped */
    r = regs;
    r.r[2] = regs.r[5];
    r.r[5] = regs.r[2];
    assert_int_equal(mac_regions_verify(key, &r, &ram, tags, NULL), 2);
    /* a map that calls part of a region something else now covers other bytes */
    struct e820_map m = ram;
    assert_int_equal(e820_set_range(&m, RAM0 + 0x8000, 0x1000, E820_TYPE_RESERVED), 0);
    assert_int_equal(mac_regions_verify(key, &regs, &m, tags, NULL), 0);
}

/* The first 64 KiB are the firmware's while the machine resumes (and Linux reserves them for
 * it): a region from 0x1000 covers only what lies above them. */
static void low_bios_area_not_covered(void **state)
{
    (void)state;
    static struct e820_map low;
    memset(&low, 0, sizeof(low));
    assert_int_equal(e820_append(&low, 0, 0x9fc00, E820_TYPE_RAM), 0);
    uint8_t *w = phys_fake_add(0, 0x9fc00);
    for (size_t b = 0; b < 0x9fc00; b++)
        w[b] = (uint8_t)(b * 2654435761u >> 13);
    struct mac_regions r = { 1, { { 0x1000, 0x5f000 } } };
    assert_int_equal(mac_regions_covered(&r, &low), 0x60000 - MAC_LOW_BIOS_END);
    mac_regions_compute(key, &r, &low, tags, NULL);
    /* the tag is the one over the region's identity and [0x10000, 0x60000) */
    uint8_t kin[32 + 16 + 4], ki[32], want[MAC_TAG_SIZE];
    memcpy(kin, key, 32);
    memcpy(kin + 32, "vtboot s3 region", 16);
    put32(kin, 48, 0);
    ref_hash(0x000b /* SHA-256 */, kin, sizeof(kin), ki);
    size_t n = 12 + 0x60000 - MAC_LOW_BIOS_END;
    uint8_t *msg = malloc(n);
    put64(msg, 0, 0x1000);
    put32(msg, 8, 0x5f000);
    memcpy(msg + 12, w + MAC_LOW_BIOS_END, n - 12);
    ref_poly1305(ki, msg, n, want);
    free(msg);
    assert_memory_equal(tags[0], want, MAC_TAG_SIZE);
    w[0xfffe] ^= 0xff;                           /* SeaBIOS's AP stack */
    w[0x1000] ^= 0xff;
    assert_int_equal(mac_regions_verify(key, &r, &low, tags, NULL), -1);
    w[MAC_LOW_BIOS_END] ^= 1;
    assert_int_equal(mac_regions_verify(key, &r, &low, tags, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(low_bios_area_not_covered),
        T(from_shared_accepts),
        T(from_shared_refuses),
        T(tags_match_openssl),
        T(reads_only_ram),
        T(covered_bytes),
        T(verify_unchanged),
        T(verify_names_the_first_changed_region),
        T(verify_ignores_non_ram),
        T(verify_changed_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
