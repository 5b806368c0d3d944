/* SPDX-License-Identifier: MIT */
/*
 * src/txt/mle_walk.c: Debian's /boot/tboot.gz laid out in a fake guest memory as GRUB loads it,
 * with the MLE page table tboot builds (PDPT at 0x801000 -> PD at 0x802000 -> PT at 0x803000,
 * entries phys | 1, pages from 0x804000; surface 6.3): the walk's SHA-256 equals Debian's
 * lcp2_mlehash of the same file. Then every refusal, each with its reason, on the same tables
 * edited. txt_mle_header_check on tboot's own MLE header and on hand-made 2.0/2.1 headers:
 * each field that is wrong refused with its reason.
 */
#include "test_common.h"

#include "abi/mle.h"
#include "abi/tpm_hash.h"
#include "crypto/hash.h"
#include "host_tools.h"
#include "lib/bytes.h"
#include "lib/phys.h"
#include "phys_fake.h"
#include "tool_check.h"
#include "txt/mle_walk.h"

#define BASE 0x800000u                   /* tboot's load address */
#define WINDOW 0x50000u
#define PDPT 0x801000u
#define PD 0x802000u
#define PT 0x803000u
#define MLE 0x804000u
#define MLE_SIZE 0x49000u                /* mle_end_off - mle_start_off */

static char dir[256];
static uint8_t *elf;                     /* tboot's ELF, NULL if not installed */
static size_t elf_len;
static uint8_t *mem;
static char err[256];
static struct txt_mle_limits lim;

static int group_setup(void **state)
{
    (void)state;
    if (!tmpdir_create(dir, sizeof(dir)))
        return -1;
    char cmd[400], path[300];
    snprintf(path, sizeof(path), "%s/tboot.elf", dir);
    snprintf(cmd, sizeof(cmd), "zcat /boot/tboot.gz > %s", path);
    const char *argv[] = { "sh", "-c", cmd, NULL };
    static struct tool_run r;
    if (tool_run(&r, argv, NULL, 20000) == 0)
        elf = file_read(path, &elf_len);
    if (!elf)
        print_message("/boot/tboot.gz (Debian package tboot) is not there: skipping\n");
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    free(elf);
    tmpdir_remove(dir);
    return 0;
}

static void pte(uint32_t table, unsigned i, uint64_t v)
{
    store_le64(mem + table - BASE + 8 * i, v);
}

/* tboot's image at BASE (its one PT_LOAD segment) and its MLE page table; a zero image
 * without tboot */
static int setup(void **state)
{
    (void)state;
    phys_fake_reset();
    mem = phys_fake_add(BASE, WINDOW);
    if (elf) {
        uint32_t phoff = load_le32(elf + 28);
        assert_int_equal(load_le32(elf + phoff + 8), BASE);        /* p_vaddr */
        uint32_t off = load_le32(elf + phoff + 4), filesz = load_le32(elf + phoff + 16);
        memcpy(mem, elf + off, filesz < WINDOW ? filesz : WINDOW);
    }
    memset(mem + PDPT - BASE, 0, 3 * 4096);
    pte(PDPT, 0, PD | 1);
    pte(PD, 0, PT | 1);
    for (unsigned i = 0; i < MLE_SIZE / 4096; i++)
        pte(PT, i, (MLE + 4096ull * i) | 1);
    lim = (struct txt_mle_limits){ .allowed_base = 0, .allowed_size = 0x8000000,
                                   .nr_forbidden = 2,
                                   .forbidden = { { 0x7c00000, 0x100000 },
                                                  { 0x7d00000, 0x40000 } } };
    return 0;
}

struct hashing {
    struct hash_ctx h;
    unsigned pages;
    uint32_t last_len;
    unsigned stop_at;                    /* nonzero: return 7 at this page */
};

static int hash_page(void *ctx, uint64_t phys, uint32_t len)
{
    struct hashing *s = ctx;
    if (s->stop_at && ++s->pages == s->stop_at)
        return 7;
    if (!s->stop_at)
        s->pages++;
    s->last_len = len;
    hash_update(&s->h, phys_map(phys, len), len);
    return 0;
}

static int walk(uint64_t ptab, uint64_t size, struct hashing *s)
{
    memset(s, 0, sizeof(*s));
    hash_init(&s->h, TPM_ALG_SHA256);
    err[0] = 0;
    return txt_mle_walk(ptab, size, &lim, hash_page, s, err, sizeof(err));
}

static void tboot_as_lcp2_mlehash_hashes_it(void **state)
{
    (void)state;
    if (!elf || !tool_path("lcp2_mlehash"))
        skip();
    struct hashing s;
    uint8_t d[32];
    char hex[200] = "", path[300];

    assert_int_equal(walk(PDPT, MLE_SIZE, &s), 0);
    assert_int_equal(s.pages, MLE_SIZE / 4096);
    hash_final(&s.h, d);
    for (unsigned i = 0; i < 32; i++)
        snprintf(hex + 3 * i, 4, "%02x%s", d[i], i < 31 ? " " : "");
    snprintf(path, sizeof(path), "%s/tboot.elf", dir);
    const char *argv[] = { "lcp2_mlehash", "--create", "--alg", "sha256", path, NULL };
    struct tool_run *r = tool_must_run(argv, NULL, 20000);
    char *nl = strrchr(r->out, '\n');
    if (nl && nl[1] == 0)
        *nl = 0;
    char *last = strrchr(r->out, '\n');
    assert_string_equal(last ? last + 1 : r->out, hex);

    /* the MLE header tboot names (OsSinitData.mle_hdr_base 0x1B340) and the MLE UUID there */
    uint64_t phys;
    assert_int_equal(txt_mle_phys(PDPT, MLE_SIZE, &lim, 0x1b340, &phys, err, sizeof(err)), 0);
    assert_int_equal(phys, 0x81f340);
    assert_memory_equal(phys_map(phys, 4), "\x5a\xac\x82\x90", 4);
}

static void partial_last_page_and_stop(void **state)
{
    (void)state;
    struct hashing s;
    assert_int_equal(walk(PDPT, 4096 * 3 + 100, &s), 0);
    assert_int_equal(s.pages, 4);
    assert_int_equal(s.last_len, 100);
    memset(&s, 0, sizeof(s));
    s.stop_at = 2;
    hash_init(&s.h, TPM_ALG_SHA256);
    assert_int_equal(txt_mle_walk(PDPT, MLE_SIZE, &lim, hash_page, &s, err, sizeof(err)), 7);
}

static void expect_refused(uint64_t ptab, uint64_t size, const char *reason)
{
    struct hashing s;
    assert_int_equal(walk(ptab, size, &s), -1);
    assert_string_equal(err, reason);
    assert_int_equal(s.pages, 0);        /* nothing is hashed before everything is checked */
}

static void refused(void **state)
{
    (void)state;
    expect_refused(PDPT, 0, "MLE size 0x0, not 1 byte to 32 MiB");
    expect_refused(PDPT, (32u << 20) + 1, "MLE size 0x2000001, not 1 byte to 32 MiB");
    expect_refused(PDPT + 8, MLE_SIZE, "the page directory pointer table at 0x801008: not a 4 KiB "
                   "page below 4 GiB");
    expect_refused(0x8000000, MLE_SIZE, "the page directory pointer table at 0x8000000: outside "
                   "the DMA-protected range [0x0, 0x8000000)");
    pte(PDPT, 0, PD);
    expect_refused(PDPT, MLE_SIZE, "PDPT entry 0 for linear 0x0: not present");
    pte(PDPT, 0, PD | 1);
    pte(PD, 0, PT | 0x81);
    expect_refused(PDPT, MLE_SIZE, "PD entry 0 for linear 0x0: a large page");
    pte(PD, 0, 0x7d00000 | 1);
    expect_refused(PDPT, MLE_SIZE, "a page table at 0x7d00000: inside the TXT region "
                   "[0x7d00000, 0x7d40000)");
    pte(PD, 0, 0x900000 | 1);
    expect_refused(PDPT, MLE_SIZE, "PT at 0x900000: not addressable");
    pte(PD, 0, PT | 1);
    pte(PT, 5, 0);
    expect_refused(PDPT, MLE_SIZE, "PT entry 5 for linear 0x5000: not present");
    pte(PT, 5, (MLE + 5 * 4096) | 1);
    expect_refused(PDPT, MLE_SIZE + 4096, "PT entry 73 for linear 0x49000: not present");
    /* the same page twice; pages swapped; a page above 4 GiB, in a TXT region */
    pte(PT, 6, (MLE + 5 * 4096) | 1);
    expect_refused(PDPT, MLE_SIZE, "MLE page 6 at 0x809000, not at 0x80a000: the MLE is not "
                   "physically contiguous");
    pte(PT, 6, (MLE + 7 * 4096) | 1);
    pte(PT, 7, (MLE + 6 * 4096) | 1);
    expect_refused(PDPT, MLE_SIZE, "MLE page 6 at 0x80b000, not at 0x80a000: the MLE is not "
                   "physically contiguous");
    pte(PT, 6, (MLE + 6 * 4096) | 1);
    pte(PT, 7, 0x100000000ull | 1);
    expect_refused(PDPT, MLE_SIZE, "an MLE page at 0x100000000: not a 4 KiB page below 4 GiB");
    pte(PT, 7, 0x8000000 | 1);
    expect_refused(PDPT, MLE_SIZE, "an MLE page at 0x8000000: outside the DMA-protected range "
                   "[0x0, 0x8000000)");
    pte(PT, 7, 0x7c00000 | 1);
    expect_refused(PDPT, MLE_SIZE, "an MLE page at 0x7c00000: inside the TXT region "
                   "[0x7c00000, 0x7d00000)");
    pte(PT, 7, (MLE + 7 * 4096) | 1);
    /* a table among the MLE's pages: the page table itself mapped as MLE page 0 */
    pte(PT, 0, PT | 1);
    for (unsigned i = 1; i < MLE_SIZE / 4096; i++)
        pte(PT, i, (PT + 4096ull * i) | 1);
    expect_refused(PDPT, MLE_SIZE, "a page table at 0x803000 lies among the MLE's pages "
                   "[0x803000, 0x84c000)");
    uint64_t phys;
    assert_int_equal(txt_mle_phys(PDPT, 4096, &lim, 4096, &phys, err, sizeof(err)), -1);
    assert_string_equal(err, "linear 0x1000 beyond the MLE's 0x1000 bytes");
}

/* Issue 38 item 5: pages that ascend with a gap. With paging off the MLE runs the bytes at
 * page 0 + its linear address, so a gap means the measured copy is not what runs: one page
 * skipped in the middle, the tail moved up by a page, the last page alone moved, and a gap
 * between PTs (the second PT's pages not following the first's). Each refused before any
 * page is hashed; the same table without the gap walks. */
static void gaps_refused(void **state)
{
    (void)state;
    struct hashing s;
    /* page 9 onwards one page up: pages 0-8 and 10-73 of the window, ascending */
    for (unsigned i = 9; i < MLE_SIZE / 4096; i++)
        pte(PT, i, (MLE + 4096ull * (i + 1)) | 1);
    expect_refused(PDPT, MLE_SIZE, "MLE page 9 at 0x80e000, not at 0x80d000: the MLE is not "
                   "physically contiguous");
    /* only the last page, a page further up */
    for (unsigned i = 9; i < MLE_SIZE / 4096; i++)
        pte(PT, i, (MLE + 4096ull * i) | 1);
    assert_int_equal(walk(PDPT, MLE_SIZE, &s), 0);          /* contiguous again: walks */
    pte(PT, MLE_SIZE / 4096 - 1, (MLE + MLE_SIZE) | 1);
    expect_refused(PDPT, MLE_SIZE, "MLE page 72 at 0x84d000, not at 0x84c000: the MLE is not "
                   "physically contiguous");
    pte(PT, MLE_SIZE / 4096 - 1, (MLE + MLE_SIZE - 4096) | 1);
    /* across two page tables: linear 2 MiB on from a second PT whose first page jumps 4 MiB */
    uint32_t pt2 = PT + 0x4c000 - 0x3000;    /* the window's last page (0x84c000) */
    memset(mem + pt2 - BASE, 0, 4096);
    pte(PD, 1, pt2 | 1);
    for (unsigned i = 0; i < 512; i++)
        pte(PT, i, (0x1000000ull + 4096ull * i) | 1);
    pte(pt2, 0, (0x1000000ull + 0x200000 + 0x400000) | 1);
    expect_refused(PDPT, 0x201000, "MLE page 512 at 0x1600000, not at 0x1200000: the MLE is "
                   "not physically contiguous");
}

/* ---- the MLE header ---- */

#define HDR_LINEAR 0x1b340u              /* tboot 1.10.5's OsSinitData.mle_hdr_base */

/* Debian's tboot 1.10.5 header, field by field (version 2.1, entry 0x10 into the MLE, which
 * is image bytes 0x4000-0x4d000, the command line area 0x7e00-0x7fff) */
static struct mle_hdr good_hdr(void)
{
    struct mle_hdr h = { .uuid = MLE_HDR_UUID_BYTES };
    h.length = sizeof(h);
    h.version = MLE_HDR_VERSION;
    h.entry_point = 0x10;
    h.first_valid_page = 0;
    h.mle_start_off = 0x4000;
    h.mle_end_off = 0x4000 + MLE_SIZE;
    h.capabilities = 0x627;
    h.cmdline_start_off = 0x7e00;
    h.cmdline_end_off = 0x7fff;
    return h;
}

static int hdr_check(const struct mle_hdr *h, uint64_t at, uint64_t size, uint32_t min_ver)
{
    memset(err, 0, sizeof(err));
    return txt_mle_header_check(h, at, size, min_ver, err, sizeof(err));
}

static void header_tboot(void **state)
{
    (void)state;
    if (!elf)
        skip();
    /* linear 0x1b340 is physical 0x81f340 (MLE page 0x1b at 0x804000 + 0x1b000) */
    struct mle_hdr h;
    memcpy(&h, mem + MLE + HDR_LINEAR - BASE, sizeof(h));
    struct mle_hdr want = good_hdr();
    assert_memory_equal(&h, &want, sizeof(h));
    assert_int_equal(hdr_check(&h, HDR_LINEAR, MLE_SIZE, 0x00020000), 0);
    assert_string_equal(err, "");
    assert_int_equal(hdr_check(&h, HDR_LINEAR, MLE_SIZE, MLE_HDR_VERSION), 0);
}

static void header_accepted(void **state)
{
    (void)state;
    struct mle_hdr h = good_hdr();
    assert_int_equal(hdr_check(&h, HDR_LINEAR, MLE_SIZE, 0x00020000), 0);
    assert_string_equal(err, "");
    assert_int_equal(hdr_check(&h, HDR_LINEAR, MLE_SIZE, MLE_HDR_VERSION), 0);
    assert_int_equal(hdr_check(&h, HDR_LINEAR, MLE_SIZE, 0), 0);
    /* the last place it fits; an entry point at the last byte; at linear 0 */
    assert_int_equal(hdr_check(&h, MLE_SIZE - sizeof(h), MLE_SIZE, 0x00020000), 0);
    h.entry_point = MLE_SIZE - 1;
    assert_int_equal(hdr_check(&h, 0, MLE_SIZE, 0x00020000), 0);
    h.entry_point = 0;
    assert_int_equal(hdr_check(&h, HDR_LINEAR, MLE_SIZE, 0x00020000), 0);
    /* longer than 2.1's fields (a later minor version's length, same fields read) */
    h = good_hdr();
    h.length = 0x100;
    assert_int_equal(hdr_check(&h, HDR_LINEAR, MLE_SIZE, 0x00020000), 0);
    /* 2.0: 44 bytes, ending at capabilities; whatever is in the command line fields */
    h = good_hdr();
    h.version = 0x00020000;
    h.length = 44;
    h.cmdline_start_off = 0xffffffff;
    h.cmdline_end_off = 0;
    assert_int_equal(hdr_check(&h, HDR_LINEAR, MLE_SIZE, 0x00020000), 0);
}

static void header_refused(void **state)
{
    (void)state;
    struct mle_hdr h;
#define HDR_REFUSED(edit, at, size, min_ver, reason) do { \
        h = good_hdr(); \
        edit; \
        assert_int_equal(hdr_check(&h, at, size, min_ver), -1); \
        assert_string_equal(err, reason); \
    } while (0)
    /* not tboot's UUID: one byte off, the GUID in its text byte order, all zero */
    HDR_REFUSED(h.uuid[15] ^= 1, HDR_LINEAR, MLE_SIZE, 0x00020000,
                "MLE header at 0x1b340: not tboot's UUID");
    HDR_REFUSED(memcpy(h.uuid, "\x90\x82\xac\x5a\x47\x6f\x74\xa7\x5c\x0f\x55\xa2\xcb\x51\xb6\x42",
                       16),
                HDR_LINEAR, MLE_SIZE, 0x00020000, "MLE header at 0x1b340: not tboot's UUID");
    HDR_REFUSED(memset(h.uuid, 0, 16), 0, MLE_SIZE, 0x00020000,
                "MLE header at 0x0: not tboot's UUID");
    /* a version below the ACM's minimum, above 2.1 */
    HDR_REFUSED((void)0, HDR_LINEAR, MLE_SIZE, 0x00020002,
                "MLE header version 0x00020001: the SINIT takes 0x00020002-0x00020001");
    HDR_REFUSED(h.version = 0x00020000, HDR_LINEAR, MLE_SIZE, 0x00020001,
                "MLE header version 0x00020000: the SINIT takes 0x00020001-0x00020001");
    HDR_REFUSED(h.version = 0x00010001, HDR_LINEAR, MLE_SIZE, 0x00020000,
                "MLE header version 0x00010001: the SINIT takes 0x00020000-0x00020001");
    HDR_REFUSED(h.version = 0x00020002, HDR_LINEAR, MLE_SIZE, 0x00020000,
                "MLE header version 0x00020002: the SINIT takes 0x00020000-0x00020001");
    HDR_REFUSED(h.version = 0x00030000, HDR_LINEAR, MLE_SIZE, 0,
                "MLE header version 0x00030000: the SINIT takes 0x00000000-0x00020001");
    HDR_REFUSED(h.version = 0xffffffff, HDR_LINEAR, MLE_SIZE, 0,
                "MLE header version 0xffffffff: the SINIT takes 0x00000000-0x00020001");
    /* a length that does not cover its version's fields */
    HDR_REFUSED(h.length = 51, HDR_LINEAR, MLE_SIZE, 0x00020000,
                "MLE header length 51: version 0x00020001 has 52 bytes");
    HDR_REFUSED(h.length = 44, HDR_LINEAR, MLE_SIZE, 0x00020000,
                "MLE header length 44: version 0x00020001 has 52 bytes");
    HDR_REFUSED(h.length = 0, HDR_LINEAR, MLE_SIZE, 0x00020000,
                "MLE header length 0: version 0x00020001 has 52 bytes");
    HDR_REFUSED((h.version = 0x00020000, h.length = 43), HDR_LINEAR, MLE_SIZE, 0x00020000,
                "MLE header length 43: version 0x00020000 has 44 bytes");
    /* an entry point at or past the MLE's end */
    HDR_REFUSED(h.entry_point = MLE_SIZE, HDR_LINEAR, MLE_SIZE, 0x00020000,
                "MLE entry point 0x49000: outside the MLE's 0x49000 bytes");
    HDR_REFUSED(h.entry_point = 0xffffffff, HDR_LINEAR, MLE_SIZE, 0x00020000,
                "MLE entry point 0xffffffff: outside the MLE's 0x49000 bytes");
    HDR_REFUSED(h.entry_point = 0x1c0a0, 0, 0x1000, 0x00020000,
                "MLE entry point 0x1c0a0: outside the MLE's 0x1000 bytes");
    HDR_REFUSED((void)0, 0, 0x10, 0x00020000,
                "MLE header at 0x0: not inside the MLE's 0x10 bytes");
    /* a header not (wholly) inside the MLE */
    HDR_REFUSED((void)0, MLE_SIZE - sizeof(h) + 1, MLE_SIZE, 0x00020000,
                "MLE header at 0x48fcd: not inside the MLE's 0x49000 bytes");
    HDR_REFUSED((void)0, MLE_SIZE, MLE_SIZE, 0x00020000,
                "MLE header at 0x49000: not inside the MLE's 0x49000 bytes");
    HDR_REFUSED((void)0, 0, sizeof(h) - 1, 0x00020000,
                "MLE header at 0x0: not inside the MLE's 0x33 bytes");
    HDR_REFUSED((void)0, 0, 0, 0x00020000, "MLE header at 0x0: not inside the MLE's 0x0 bytes");
    HDR_REFUSED((void)0, ~0ull - 10, MLE_SIZE, 0x00020000,
                "MLE header at 0xfffffffffffffff5: not inside the MLE's 0x49000 bytes");
    HDR_REFUSED((void)0, 0x100000000ull + HDR_LINEAR, MLE_SIZE, 0x00020000,
                "MLE header at 0x10001b340: not inside the MLE's 0x49000 bytes");
#undef HDR_REFUSED
    /* the message cut to a short buffer, terminated */
    char small[6];
    h = good_hdr();
    h.version = 0;
    assert_int_equal(txt_mle_header_check(&h, 0, MLE_SIZE, 0x00020000, small, sizeof(small)),
                     -1);
    assert_string_equal(small, "MLE h");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(tboot_as_lcp2_mlehash_hashes_it, setup),
        cmocka_unit_test_setup(partial_last_page_and_stop, setup),
        cmocka_unit_test_setup(refused, setup),
        cmocka_unit_test_setup(gaps_refused, setup),
        cmocka_unit_test_setup(header_tboot, setup),
        cmocka_unit_test(header_accepted),
        cmocka_unit_test(header_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
