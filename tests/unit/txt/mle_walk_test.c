/* SPDX-License-Identifier: MIT */
/*
 * src/txt/mle_walk.c: Debian's /boot/tboot.gz laid out in a fake guest memory as GRUB loads it,
 * with the MLE page table tboot builds (PDPT at 0x801000 -> PD at 0x802000 -> PT at 0x803000,
 * entries phys | 1, pages from 0x804000; surface 6.3): the walk's SHA-256 equals Debian's
 * lcp2_mlehash of the same file. Then every refusal, each with its reason, on the same tables
 * edited.
 */
#include "test_common.h"

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
    expect_refused(PDPT, MLE_SIZE, "MLE page 6 at 0x809000, not above page 5 at 0x809000");
    pte(PT, 6, (MLE + 7 * 4096) | 1);
    pte(PT, 7, (MLE + 6 * 4096) | 1);
    expect_refused(PDPT, MLE_SIZE, "MLE page 7 at 0x80a000, not above page 6 at 0x80b000");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(tboot_as_lcp2_mlehash_hashes_it, setup),
        cmocka_unit_test_setup(partial_last_page_and_stop, setup),
        cmocka_unit_test_setup(refused, setup),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
