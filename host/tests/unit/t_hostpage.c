/* SPDX-License-Identifier: MIT */
/* The launcher's page for the guest (host/lib/hostpage.c, the pure half of the guest tool
 * vtboot-hostpage): pages written here byte by byte from the layout in hostpage.h, not with
 * hostpage_build; the honest page, hostpage_build's bytes against it, every prefix, and each
 * malformed page with its exact reason; every bit of the header and first item flipped. */
#include "unit.h"
#include "lib/bytes.h"
#include "hostpage.h"

#include <stdint.h>
#include <string.h>

static const uint8_t NONCE[32] = {
    0x42, 0x35, 0x82, 0xa1, 0x1d, 0x5f, 0xfb, 0x0b, 0xf7, 0xb5, 0xe9, 0x7c, 0xee, 0x94, 0x3c, 0x00,
    0x36, 0x5b, 0x56, 0x16, 0xc0, 0x11, 0x0a, 0x77, 0x0f, 0x95, 0xc7, 0x88, 0x07, 0x5b, 0x9d, 0x7c,
};

/* header at 0 (used, count), nothing else */
static void header(uint8_t *pg, uint32_t used, uint32_t count)
{
    memset(pg, 0, HOSTPAGE_SIZE);
    memcpy(pg, "VTBHOST1", 8);
    store_le32(pg + 8, used);
    store_le32(pg + 12, count);
}

/* an item at `at`: name (copied as up to 24 bytes), size, reserved; returns the next offset */
static uint32_t item(uint8_t *pg, uint32_t at, const char *name, size_t namelen,
                     const uint8_t *data, uint32_t size, uint32_t reserved)
{
    memcpy(pg + at, name, namelen);
    store_le32(pg + at + 24, size);
    store_le32(pg + at + 28, reserved);
    if (data)
        memcpy(pg + at + 32, data, size);
    return at + 32 + size;
}

/* the honest page: one item "nonce", 32 bytes; used = 16 + 32 + 32 = 80 */
static void honest(uint8_t *pg)
{
    header(pg, 80, 1);
    item(pg, 16, "nonce", 5, NONCE, 32, 0);
}

static int find(const uint8_t *pg, size_t len, const char *name, char *err, size_t errsz,
                const uint8_t **d, uint32_t *n)
{
    err[0] = 0;
    *d = NULL;
    *n = 0;
    return hostpage_find(pg, len, name, d, n, err, errsz);
}

#define EXPECT_BAD(pg, len, msg) do { \
    char e_[256]; const uint8_t *d_; uint32_t n_; \
    int r_ = find(pg, len, "nonce", e_, sizeof(e_), &d_, &n_); \
    CHECK(r_ == -1 && !strcmp(e_, msg), "want -1 \"%s\", got %d \"%s\"", msg, r_, e_); } while (0)

static void test_honest(void)
{
    static uint8_t pg[HOSTPAGE_SIZE], built[HOSTPAGE_SIZE];
    struct hostpage_item it = { "nonce", NONCE, 32 };
    const uint8_t *d;
    uint32_t n;
    char err[256];
    int r;

    honest(pg);
    r = find(pg, sizeof(pg), "nonce", err, sizeof(err), &d, &n);
    CHECK(r == 0 && n == 32 && d == pg + 48 && !memcmp(d, NONCE, 32), "honest: %d %s", r, err);
    /* only the used part counts: the page as 80 bytes reads the same */
    r = find(pg, 80, "nonce", err, sizeof(err), &d, &n);
    CHECK(r == 0 && n == 32 && !memcmp(d, NONCE, 32), "honest, 80 bytes: %d %s", r, err);
    memset(built, 0xaa, sizeof(built));
    CHECK(hostpage_build(built, sizeof(built), &it, 1) == 80, "build: used");
    CHECK(!memcmp(built, pg, sizeof(pg)), "build: the bytes differ from the layout's");

    r = find(pg, sizeof(pg), "nonc", err, sizeof(err), &d, &n);
    CHECK(r == 1 && !strcmp(err, "no item \"nonc\" in the host page (it has: nonce)"),
          "missing: %d %s", r, err);
    /* two items, the second empty */
    header(pg, 112, 2);
    item(pg, item(pg, 16, "nonce", 5, NONCE, 32, 0), "opt.x-1", 7, NULL, 0, 0);
    r = find(pg, sizeof(pg), "opt.x-1", err, sizeof(err), &d, &n);
    CHECK(r == 0 && n == 0 && d == pg + 112, "empty item: %d %s", r, err);
    r = find(pg, sizeof(pg), "action", err, sizeof(err), &d, &n);
    CHECK(r == 1 && !strcmp(err, "no item \"action\" in the host page (it has: nonce, opt.x-1)"),
          "missing of two: %d %s", r, err);
    {
        struct hostpage_item two[2] = { { "nonce", NONCE, 32 }, { "opt.x-1", NULL, 0 } };

        CHECK(hostpage_build(built, sizeof(built), two, 2) == 112 && !memcmp(built, pg, 4096),
              "build of two items");
    }
    /* a 23-character name is the longest */
    header(pg, 48, 1);
    item(pg, 16, "abcdefghijklmnopqrstuvw", 23, NULL, 0, 0);
    r = find(pg, sizeof(pg), "abcdefghijklmnopqrstuvw", err, sizeof(err), &d, &n);
    CHECK(r == 0 && n == 0, "23-character name: %d %s", r, err);
    header(pg, 16, 0);
    r = find(pg, sizeof(pg), "nonce", err, sizeof(err), &d, &n);
    CHECK(r == 1 && !strcmp(err, "no item \"nonce\" in the host page (it is empty)"),
          "empty page: %d %s", r, err);
}

static void test_prefixes(void)
{
    static uint8_t pg[HOSTPAGE_SIZE];
    char want[128];

    honest(pg);
    for (size_t len = 0; len < 80; len++) {
        if (len < 16)
            snprintf(want, sizeof(want), "the page is too short: %zu bytes, its header is 16",
                     len);
        else
            snprintf(want, sizeof(want), "the page says it uses 80 bytes, outside 16..%zu",
                     len);
        EXPECT_BAD(pg, len, want);
    }
}

static void test_malformed(void)
{
    static uint8_t pg[HOSTPAGE_SIZE];
    struct hostpage_item items[4];
    unsigned n = 99;
    char err[256];
    int r;

    honest(pg);
    pg[7] = '2';
    EXPECT_BAD(pg, sizeof(pg), "not a vtboot host page (no \"VTBHOST1\" magic)");
    memset(pg, 0, sizeof(pg));                          /* an ivshmem device's fresh memory */
    EXPECT_BAD(pg, sizeof(pg), "not a vtboot host page (no \"VTBHOST1\" magic)");

    honest(pg);
    store_le32(pg + 8, 15);
    EXPECT_BAD(pg, sizeof(pg), "the page says it uses 15 bytes, outside 16..4096");
    store_le32(pg + 8, 4097);
    EXPECT_BAD(pg, sizeof(pg), "the page says it uses 4097 bytes, outside 16..4096");
    store_le32(pg + 8, 0xffffffffu);
    EXPECT_BAD(pg, sizeof(pg), "the page says it uses 4294967295 bytes, outside 16..4096");

    honest(pg);
    store_le32(pg + 12, 65);
    EXPECT_BAD(pg, sizeof(pg), "the page lists 65 items, at most 64");
    store_le32(pg + 12, 0xffffffffu);
    EXPECT_BAD(pg, sizeof(pg), "the page lists 4294967295 items, at most 64");
    store_le32(pg + 12, 2);
    EXPECT_BAD(pg, sizeof(pg), "item 1 of 2: its header runs past the used 80 bytes");
    store_le32(pg + 12, 0);
    EXPECT_BAD(pg, sizeof(pg), "64 bytes after the last of 0 items (the page says it uses 80)");
    header(pg, 40, 1);                                  /* half an item header */
    EXPECT_BAD(pg, sizeof(pg), "item 0 of 1: its header runs past the used 40 bytes");

    header(pg, 80, 1);
    item(pg, 16, "abcdefghijklmnopqrstuvwx", 24, NONCE, 32, 0);
    EXPECT_BAD(pg, sizeof(pg), "item 0: the name is not NUL-terminated within 24 bytes");
    header(pg, 80, 1);
    item(pg, 16, "", 0, NONCE, 32, 0);
    EXPECT_BAD(pg, sizeof(pg), "item 0: the name is empty");
    header(pg, 80, 1);
    item(pg, 16, "non ce", 6, NONCE, 32, 0);
    EXPECT_BAD(pg, sizeof(pg), "item 0: the name has a byte that is not printable ASCII (0x20)");
    header(pg, 80, 1);
    item(pg, 16, "nonce\xff", 6, NONCE, 32, 0);
    EXPECT_BAD(pg, sizeof(pg), "item 0: the name has a byte that is not printable ASCII (0xff)");
    header(pg, 80, 1);
    item(pg, 16, "nonce\0x", 7, NONCE, 32, 0);
    EXPECT_BAD(pg, sizeof(pg), "item 0: the name field is not zero after its NUL");
    header(pg, 80, 1);
    item(pg, 16, "nonce", 5, NONCE, 32, 1);
    EXPECT_BAD(pg, sizeof(pg), "item 0 (nonce): its reserved field is 0x1, not 0");

    honest(pg);
    store_le32(pg + 16 + 24, 33);
    EXPECT_BAD(pg, sizeof(pg), "item 0 (nonce): its 33 bytes run past the used 80 bytes");
    store_le32(pg + 16 + 24, 0xffffffffu);
    EXPECT_BAD(pg, sizeof(pg), "item 0 (nonce): its 4294967295 bytes run past the used 80 bytes");
    store_le32(pg + 16 + 24, 31);
    EXPECT_BAD(pg, sizeof(pg), "1 bytes after the last of 1 items (the page says it uses 80)");
    honest(pg);
    store_le32(pg + 8, 88);                                   /* 8 bytes nobody owns */
    EXPECT_BAD(pg, sizeof(pg), "8 bytes after the last of 1 items (the page says it uses 88)");

    header(pg, 144, 2);
    item(pg, item(pg, 16, "nonce", 5, NONCE, 32, 0), "nonce", 5, NONCE, 32, 0);
    EXPECT_BAD(pg, sizeof(pg), "item 1: the name \"nonce\" is there twice");

    /* the caller's room for items */
    header(pg, 112, 2);
    item(pg, item(pg, 16, "a", 1, NONCE, 32, 0), "b", 1, NULL, 0, 0);
    r = hostpage_parse(pg, sizeof(pg), items, 1, &n, err, sizeof(err));
    CHECK(r == -1 && n == 0 && !strcmp(err, "the page lists 2 items, at most 1"),
          "max 1: %d %u %s", r, n, err);
    r = hostpage_parse(pg, sizeof(pg), items, 4, &n, err, sizeof(err));
    CHECK(r == 0 && n == 2 && !strcmp(items[0].name, "a") && items[0].size == 32 &&
          !strcmp(items[1].name, "b") && items[1].size == 0, "parse two: %d %u %s", r, n, err);
}

static void test_build_refuses(void)
{
    static uint8_t pg[HOSTPAGE_SIZE];
    static uint8_t big[HOSTPAGE_SIZE];
    struct hostpage_item it[65];

    memset(it, 0, sizeof(it));
    strcpy(it[0].name, "nonce");
    it[0].data = big;
    it[0].size = HOSTPAGE_SIZE - 16 - 32;               /* exactly fills the page */
    CHECK(hostpage_build(pg, sizeof(pg), it, 1) == HOSTPAGE_SIZE, "build: an exact fit");
    it[0].size++;
    CHECK(hostpage_build(pg, sizeof(pg), it, 1) == 0, "build: one byte too many");
    it[0].size = 1;
    memcpy(it[0].name, "abcdefghijklmnopqrstuvwx", 24);   /* no room for the NUL */
    CHECK(hostpage_build(pg, sizeof(pg), it, 1) == 0, "build: a 24-character name");
    strcpy(it[0].name, "");
    CHECK(hostpage_build(pg, sizeof(pg), it, 1) == 0, "build: an empty name");
    strcpy(it[0].name, "a b");
    CHECK(hostpage_build(pg, sizeof(pg), it, 1) == 0, "build: a space in the name");
    strcpy(it[0].name, "x");
    strcpy(it[1].name, "x");
    CHECK(hostpage_build(pg, sizeof(pg), it, 2) == 0, "build: a name twice");
    for (int i = 0; i < 65; i++)
        snprintf(it[i].name, sizeof(it[i].name), "i%d", i);
    CHECK(hostpage_build(pg, sizeof(pg), it, 64) == 16 + 64 * 32 + 1, "build: 64 items");
    CHECK(hostpage_build(pg, sizeof(pg), it, 65) == 0, "build: 65 items");
}

/* every bit of the header and the first item flipped: a clean answer each time, never a
 * crash; the nonce is found only if the flip left the page valid and the name as it was */
static void test_bit_flips(void)
{
    static uint8_t pg[HOSTPAGE_SIZE];
    unsigned bad = 0, ok = 0;

    for (unsigned at = 0; at < 80; at++)
        for (int bit = 0; bit < 8; bit++) {
            const uint8_t *d;
            uint32_t n;
            char err[256];
            int r;

            honest(pg);
            pg[at] ^= (uint8_t)(1u << bit);
            r = find(pg, sizeof(pg), "nonce", err, sizeof(err), &d, &n);
            if (r == 0 && at >= 48) {
                ok++;                               /* a data bit: still the item, changed */
                CHECK(n == 32 && d == pg + 48 && memcmp(d, NONCE, 32), "flip %u.%d", at, bit);
            } else if (r != 0 && err[0]) {
                bad++;
            } else {
                CHECK(0, "flip %u.%d: %d \"%s\"", at, bit, r, err);
            }
        }
    CHECK(ok == 32 * 8 && bad == 48 * 8, "bit flips: %u found, %u refused", ok, bad);
}

void test_hostpage(void)
{
    test_honest();
    test_prefixes();
    test_malformed();
    test_build_refuses();
    test_bit_flips();
}
