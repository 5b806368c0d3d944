/* SPDX-License-Identifier: MIT */
/* mlehdr_check(): every rule, once failing with its exact reason and once just passing. */
#include "unit.h"
#include "mlehdr.h"

#include <string.h>

#define BASE 0x00100000u
#define HDR (BASE + 0x40)
#define LOWMEM 0x20000000ull

/* a valid header: 0x5000 bytes from BASE, entry at +0x100, a command line at +0x4000 */
static struct mle_hdr good(void)
{
    struct mle_hdr h = {
        .uuid = MLE_HDR_UUID_BYTES,
        .length = sizeof(struct mle_hdr),
        .version = MLE_HDR_VERSION,
        .entry_point = 0x100,
        .first_valid_page = 0,
        .mle_start_off = 0,
        .mle_end_off = 0x5000,
        .capabilities = MLE_CAPS_VTBOOT,
        .cmdline_start_off = 0x4000,
        .cmdline_end_off = 0x4100,
    };
    return h;
}

static int run(const struct mle_hdr *h, uint32_t base, uint32_t hdr, uint64_t lowmem,
               struct mle_range *r, char *err, size_t errsz)
{
    memset(r, 0, sizeof(*r));
    err[0] = 0;
    return mlehdr_check(h, base, hdr, lowmem, r, err, errsz);
}

#define EXPECT_OK(h, base, hdr, lowmem, what) do { \
    int rc_ = run(&(h), base, hdr, lowmem, &r, err, sizeof(err)); \
    CHECK(rc_ == 0, "%s: refused: %s", what, err); } while (0)
#define EXPECT_ERR(h, base, hdr, lowmem, want) do { \
    int rc_ = run(&(h), base, hdr, lowmem, &r, err, sizeof(err)); \
    CHECK(rc_ == -1 && !strcmp(err, want), "expected '%s', got %d '%s'", want, rc_, err); } while (0)

void test_mlehdr(void)
{
    struct mle_hdr h = good();
    struct mle_range r;
    char err[200];

    /* the valid header and what it resolves to */
    EXPECT_OK(h, BASE, HDR, LOWMEM, "good");
    CHECK(r.start == BASE && r.end == BASE + 0x5000 && r.entry == BASE + 0x100 && r.hdr == HDR &&
          r.cmdline_start == BASE + 0x4000 && r.cmdline_end == BASE + 0x4100, "range %llx-%llx",
          (unsigned long long)r.start, (unsigned long long)r.end);

    /* UUID */
    h = good();
    h.uuid[0] ^= 0x80;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header at 0x00100040: bad UUID");
    h = good();
    h.uuid[15] ^= 1;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header at 0x00100040: bad UUID");
    memset(&h, 0, sizeof(h));
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header at 0x00100040: bad UUID");
    /* length */
    h = good();
    h.length = 0x30;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header: length 0x30, expected 0x34");
    h.length = 0x38;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header: length 0x38, expected 0x34");
    /* version: 2.1 only (2.0 has no command line fields) */
    h = good();
    h.version = 0x00020000;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header: version 0x00020000, expected 0x00020001");
    h.version = 0x00020002;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header: version 0x00020002, expected 0x00020001");
    /* first_valid_page */
    h = good();
    h.first_valid_page = 1;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header: first_valid_page 0x1, expected 0");
    /* a non-empty range */
    h = good();
    h.mle_end_off = 0;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header: empty range (mle_start_off 0x0, mle_end_off 0x0)");
    h = good();
    h.mle_start_off = 0x6000;
    EXPECT_ERR(h, BASE, HDR, LOWMEM,
               "MLE header: empty range (mle_start_off 0x6000, mle_end_off 0x5000)");
    /* size: 16 MiB passes, one byte more does not */
    h = good();
    h.mle_end_off = 0x1000000;
    EXPECT_OK(h, BASE, HDR, LOWMEM, "16 MiB");
    h.mle_end_off = 0x1000001;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE range of 0x1000001 bytes, above 0x1000000");
    /* a 1-byte range is valid in itself (then the header cannot be in it) */
    h = good();
    h.mle_end_off = 1;
    EXPECT_ERR(h, BASE, BASE, LOWMEM,
               "MLE header at 0x00100000 outside the measured range 0x00100000-0x00100001");
    /* below 4 GiB; inside RAM (the end may touch it) */
    h = good();
    EXPECT_ERR(h, 0xffffc000u, 0xffffc040u, 1ull << 33, "MLE range crosses 4 GiB");
    EXPECT_OK(h, 0xffffb000u, 0xffffb040u, 1ull << 32, "ends at 4 GiB");
    CHECK(r.end == 1ull << 32, "end %llx", (unsigned long long)r.end);
    EXPECT_OK(h, (uint32_t)LOWMEM - 0x5000, (uint32_t)LOWMEM - 0x5000 + 0x40, LOWMEM, "end = RAM");
    EXPECT_ERR(h, (uint32_t)LOWMEM - 0x4000, (uint32_t)LOWMEM - 0x4000 + 0x40, LOWMEM,
               "MLE range 0x1fffc000-0x20001000 not in guest RAM");
    /* the first measured byte page-aligned; the end need not be */
    h = good();
    h.mle_start_off = 0x1000;
    h.entry_point = 0;
    EXPECT_OK(h, BASE, BASE + 0x1000, LOWMEM, "start 0x1000 into the image");
    CHECK(r.start == BASE + 0x1000 && r.entry == BASE + 0x1000, "entry from mle_start_off");
    h.mle_start_off = 0x1010;
    EXPECT_ERR(h, BASE, BASE + 0x1010, LOWMEM, "MLE start 0x00101010 not page-aligned");
    EXPECT_ERR(h, BASE + 0x10, BASE + 0x1020, LOWMEM, "MLE start 0x00101020 not page-aligned");
    h = good();
    h.mle_end_off = 0x4ff1;
    h.cmdline_start_off = h.cmdline_end_off = 0;
    EXPECT_OK(h, BASE, HDR, LOWMEM, "unaligned end");
    /* the header inside the range, its last byte included */
    h = good();
    EXPECT_OK(h, BASE, BASE + 0x5000 - 0x40, LOWMEM, "header at the end");
    EXPECT_ERR(h, BASE, BASE + 0x5000 - 0x30,  LOWMEM,
               "MLE header at 0x00104fd0 outside the measured range 0x00100000-0x00105000");
    h.mle_start_off = 0x1000;
    h.entry_point = 0;
    EXPECT_ERR(h, BASE, BASE + 0xff0, LOWMEM,
               "MLE header at 0x00100ff0 outside the measured range 0x00101000-0x00105000");
    /* 16-byte aligned from the image's first byte */
    h = good();
    EXPECT_ERR(h, BASE, HDR + 8, LOWMEM, "MLE header at 0x00100048 not 16-byte aligned in the image");
    EXPECT_OK(h, BASE, HDR + 16, LOWMEM, "header at +0x50");
    /* the entry point inside the range (it counts from the first measured byte) */
    h = good();
    h.entry_point = 0x4fff;
    EXPECT_OK(h, BASE, HDR, LOWMEM, "entry at the last byte");
    h.entry_point = 0x5000;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "entry point 0x00105000 outside the measured range");
    h.entry_point = 0xffffffffu;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "entry point 0x1000fffff outside the measured range");
    h = good();
    h.mle_start_off = 0x1000;
    h.entry_point = 0x4000;
    EXPECT_ERR(h, BASE, BASE + 0x1000, LOWMEM, "entry point 0x00105000 outside the measured range");
    /* the command line: ordered, inside when not empty */
    h = good();
    h.cmdline_end_off = 0x3fff;
    EXPECT_ERR(h, BASE, HDR, LOWMEM,
               "MLE header: cmdline_end_off 0x3fff below cmdline_start_off 0x4000");
    h = good();
    h.cmdline_end_off = 0x5000;
    EXPECT_OK(h, BASE, HDR, LOWMEM, "cmdline to the end");
    h.cmdline_end_off = 0x5001;
    EXPECT_ERR(h, BASE, HDR, LOWMEM,
               "command line 0x00104000-0x00105001 outside the measured range");
    h = good();
    h.mle_start_off = 0x1000;
    h.entry_point = 0;
    h.cmdline_start_off = 0xf00;
    h.cmdline_end_off = 0x1100;
    EXPECT_ERR(h, BASE, BASE + 0x1000, LOWMEM,
               "command line 0x00100f00-0x00101100 outside the measured range");
    h.cmdline_start_off = h.cmdline_end_off = 0x9000;
    EXPECT_OK(h, BASE, BASE + 0x1000, LOWMEM, "an empty command line anywhere");
    /* capabilities: bits 0-10 defined */
    h = good();
    h.capabilities = MLE_CAP_DEFINED;
    EXPECT_OK(h, BASE, HDR, LOWMEM, "all defined caps");
    h.capabilities = 1u << 11;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header: reserved capability bits 0x00000800");
    h.capabilities = 0xffffffffu;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header: reserved capability bits 0xfffff800");
    /* the order of the rules: the first failing one is reported */
    h = good();
    h.version = 0;
    h.capabilities = 1u << 31;
    EXPECT_ERR(h, BASE, HDR, LOWMEM, "MLE header: version 0x00000000, expected 0x00020001");
}
