/* SPDX-License-Identifier: MIT */
/*
 * tboot's verified launch policy: parsing what Debian's tb_polgen writes (run here into a
 * scratch directory; skipped, saying so, if it is not installed), every rejection, tboot 1.10's
 * default policies byte for byte, entry lookup and matching, and tboot's (policy type, error)
 * -> action map, all of it.
 */
#include "test_common.h"

#include "openssl_ref.h"
#include "tboot/policy.h"
#include "tool_check.h"
#include "tpm/tpm2.h"

static struct tb_policy pol;
static char err[160];
static char dir[256];

/* ---- policies by hand ---- */

struct pb {
    uint8_t b[4096];
    size_t n;
};

static void pb_header(struct pb *p, uint8_t ver, uint8_t type, uint8_t alg, uint32_t ctrl,
                      uint8_t nentries)
{
    memset(p, 0, sizeof(*p));
    p->b[0] = ver;
    p->b[1] = type;
    p->b[2] = alg;
    put32(p->b, 3, ctrl);
    put32(p->b, 7, 0);
    p->b[11] = nentries;
    p->n = 12;
}

static void pb_entry(struct pb *p, uint8_t mod, uint8_t pcr, uint8_t htype, uint32_t nv,
                     uint8_t nhashes)
{
    p->b[p->n] = mod;
    p->b[p->n + 1] = pcr;
    p->b[p->n + 2] = htype;
    put32(p->b, p->n + 3, nv);
    p->b[p->n + 7] = nhashes;
    p->n += 8;
}

/* n bytes of v+0, v+1, ... */
static void pb_hash(struct pb *p, uint8_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p->b[p->n++] = (uint8_t)(v + i);
}

static int parse(const struct pb *p)
{
    memset(err, 0, sizeof(err));
    memset(&pol, 0xa5, sizeof(pol));
    int rc = tb_policy_parse(p->b, (uint32_t)p->n, &pol, err, sizeof(err));
    if (rc == 0)
        assert_string_equal(err, "");
    return rc;
}

static void expect_reject(const struct pb *p, const char *msg)
{
    assert_int_equal(parse(p), -1);
    assert_contains(err, msg);
    /* nothing of it is kept */
    assert_int_equal(pol.size, 0);
    assert_int_equal(pol.nr_entries, 0);
}

static void assert_entry(unsigned i, uint8_t mod, uint8_t pcr, uint8_t htype, uint32_t nv,
                         uint8_t nhashes, size_t offset)
{
    const struct tb_policy_entry *e = &pol.entries[i];
    if (i >= pol.nr_entries)
        fail_msg("entry %u of %u", i, pol.nr_entries);
    assert_int_equal(e->mod_num, mod);
    assert_int_equal(e->pcr, pcr);
    assert_int_equal(e->hash_type, htype);
    assert_int_equal(e->nv_index, nv);
    assert_int_equal(e->num_hashes, nhashes);
    assert_ptr_equal(e->hashes, pol.bytes + offset + 8);
}

/* ---- tb_polgen ---- */

static bool have_polgen(void)
{
    if (tool_path("tb_polgen"))
        return true;
    print_message("tb_polgen (Debian package tboot) is not installed: skipping\n");
    return false;
}

static void polgen(const char *const *args)
{
    const char *argv[24] = { "tb_polgen" };
    unsigned n = 1;
    for (; args[n - 1]; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    tool_must_run(argv, NULL, 10000);
}

static const char *in_dir(const char *name)
{
    return tmpdir_file(dir, name);
}

static uint8_t *read_policy(const char *path, size_t *len)
{
    uint8_t *b = file_read(path, len);
    assert_non_null(b);
    return b;
}

/* H(H(cmdline) || H(image)), tb_polgen's and tboot's module hash */
static void module_hash(uint16_t alg, const char *cmdline, const void *img, size_t len,
                        uint8_t *out)
{
    uint8_t hc[64], hi[64];
    size_t n = ref_digest_size(alg);
    ref_hash(alg, cmdline, strlen(cmdline), hc);
    ref_hash(alg, img, len, hi);
    ref_hash2(alg, hc, n, hi, n, out);
}

static int polgen_setup(void **state)
{
    (void)state;
    assert_non_null(tmpdir_create(dir, sizeof(dir)));
    return 0;
}

static int polgen_teardown(void **state)
{
    (void)state;
    tmpdir_remove(dir);
    return 0;
}

static void polgen_halt_sha256(void **state)
{
    (void)state;
    if (!have_polgen())
        skip();
    static const char image[] = "vm\n";
    assert_int_equal(file_write(in_dir("img"), image, 3), 0);
    const char *create[] = { "--create", "--type", "halt", "--alg", "sha256", in_dir("p.pol"),
                             NULL };
    const char *add[] = { "--add", "--num", "0", "--pcr", "none", "--hash", "image", "--cmdline",
                          "x", "--image", in_dir("img"), in_dir("p.pol"), NULL };
    polgen(create);
    polgen(add);
    size_t len;
    uint8_t *b = read_policy(in_dir("p.pol"), &len);
    assert_int_equal(len, 52);
    assert_int_equal(tb_policy_parse(b, (uint32_t)len, &pol, err, sizeof(err)), 0);
    assert_int_equal(pol.size, 52);
    assert_memory_equal(pol.bytes, b, 52);
    assert_int_equal(pol.type, TB_POLTYPE_HALT);
    assert_int_equal(pol.hash_alg, TPM_ALG_SHA256);
    assert_int_equal(pol.control, TB_POLCTL_EXTEND_PCR17);   /* tb_polgen's default */
    assert_int_equal(pol.nr_entries, 1);
    assert_entry(0, 0, TB_POL_PCR_NONE, TB_HTYPE_IMAGE, 0, 1, 12);
    uint8_t want[32];
    module_hash(TPM_ALG_SHA256, "x", image, 3, want);
    assert_memory_equal(pol.entries[0].hashes, want, 32);
    /* (for /etc/hostname "vm\n", as in the example: the same bytes tb_polgen wrote there) */
    static const uint8_t vm[32] = { 0x43, 0x90, 0x92, 0x8d, 0x22, 0xb8, 0x5d, 0x69, 0x20, 0xaf,
                                    0x56, 0x9d, 0xbe, 0x0b, 0x20, 0x1f, 0x94, 0x26, 0x6f, 0x7d,
                                    0xb6, 0x64, 0x3c, 0x75, 0x67, 0x50, 0x3f, 0xfb, 0xef, 0xdc,
                                    0x2b, 0x6e };
    assert_memory_equal(want, vm, 32);
    free(b);
}

static void polgen_nonfatal_sha1_any(void **state)
{
    (void)state;
    if (!have_polgen())
        skip();
    const char *create[] = { "--create", "--type", "nonfatal", "--alg", "sha1", in_dir("a.pol"),
                             NULL };
    const char *add[] = { "--add", "--num", "any", "--pcr", "19", "--hash", "any",
                          in_dir("a.pol"), NULL };
    polgen(create);
    polgen(add);
    size_t len;
    uint8_t *b = read_policy(in_dir("a.pol"), &len);
    static const uint8_t want[] = { 2, 0, 4, 1, 0, 0, 0, 0, 0, 0, 0, 1,
                                    0x81, 19, 0, 0, 0, 0, 0, 0 };
    assert_int_equal(len, sizeof(want));
    assert_memory_equal(b, want, sizeof(want));
    assert_int_equal(tb_policy_parse(b, (uint32_t)len, &pol, err, sizeof(err)), 0);
    assert_int_equal(pol.size, 20);
    assert_int_equal(pol.type, TB_POLTYPE_CONT_NON_FATAL);
    assert_int_equal(pol.hash_alg, TPM_ALG_SHA1);
    assert_int_equal(pol.nr_entries, 1);
    assert_entry(0, TB_POL_MOD_NUM_ANY, 19, TB_HTYPE_ANY, 0, 0, 12);
    /* any module, any digest */
    assert_ptr_equal(tb_policy_find(&pol, 0), &pol.entries[0]);
    assert_ptr_equal(tb_policy_find(&pol, 5), &pol.entries[0]);
    assert_true(tb_policy_entry_accepts(&pol, &pol.entries[0], (const uint8_t *)"whatever, 20 b"));
    free(b);
}

static void polgen_continue_sha384_several(void **state)
{
    (void)state;
    if (!have_polgen())
        skip();
    uint8_t img1[5000], img2[3];
    for (unsigned i = 0; i < sizeof(img1); i++)
        img1[i] = (uint8_t)(i * 13);
    memcpy(img2, "abc", 3);
    assert_int_equal(file_write(in_dir("k"), img1, sizeof(img1)), 0);
    assert_int_equal(file_write(in_dir("i"), img2, sizeof(img2)), 0);
    const char *p = in_dir("c.pol");
    const char *create[] = { "--create", "--type", "continue", "--alg", "sha384", "--ctrl", "0",
                             p, NULL };
    const char *add0[] = { "--add", "--num", "0", "--pcr", "18", "--hash", "image", "--cmdline",
                           "vmlinuz root=/dev/vda1 ro", "--image", in_dir("k"), p, NULL };
    const char *add1[] = { "--add", "--num", "1", "--pcr", "19", "--hash", "image", "--cmdline",
                           "", "--image", in_dir("i"), p, NULL };
    const char *addany[] = { "--add", "--num", "any", "--pcr", "none", "--hash", "any", p,
                             NULL };
    polgen(create);
    polgen(add0);
    polgen(add1);
    polgen(addany);
    size_t len;
    uint8_t *b = read_policy(p, &len);
    assert_int_equal(len, 12 + 3 * 8 + 2 * 48);
    assert_int_equal(tb_policy_parse(b, (uint32_t)len, &pol, err, sizeof(err)), 0);
    assert_int_equal(pol.size, len);
    assert_int_equal(pol.type, TB_POLTYPE_CONT_VERIFY_FAIL);
    assert_int_equal(pol.hash_alg, TPM_ALG_SHA384);
    assert_int_equal(pol.control, 0);
    assert_int_equal(pol.nr_entries, 3);
    assert_entry(0, 0, 18, TB_HTYPE_IMAGE, 0, 1, 12);
    assert_entry(1, 1, 19, TB_HTYPE_IMAGE, 0, 1, 12 + 56);
    assert_entry(2, TB_POL_MOD_NUM_ANY, TB_POL_PCR_NONE, TB_HTYPE_ANY, 0, 0, 12 + 112);
    uint8_t h0[48], h1[48];
    module_hash(TPM_ALG_SHA384, "vmlinuz root=/dev/vda1 ro", img1, sizeof(img1), h0);
    module_hash(TPM_ALG_SHA384, "", img2, sizeof(img2), h1);
    assert_memory_equal(pol.entries[0].hashes, h0, 48);
    assert_memory_equal(pol.entries[1].hashes, h1, 48);
    /* lookups: exact entries first, then the catch-all */
    assert_ptr_equal(tb_policy_find(&pol, 0), &pol.entries[0]);
    assert_ptr_equal(tb_policy_find(&pol, 1), &pol.entries[1]);
    assert_ptr_equal(tb_policy_find(&pol, 2), &pol.entries[2]);
    assert_true(tb_policy_entry_accepts(&pol, &pol.entries[0], h0));
    assert_false(tb_policy_entry_accepts(&pol, &pol.entries[0], h1));
    assert_true(tb_policy_entry_accepts(&pol, &pol.entries[1], h1));
    free(b);
}

static void polgen_nonfatal_sha512_two_hashes(void **state)
{
    (void)state;
    if (!have_polgen())
        skip();
    enum { N = 200000 };                     /* several of measure.c's 64 KiB chunks */
    uint8_t *img = malloc(N);
    for (unsigned i = 0; i < N; i++)
        img[i] = (uint8_t)(i ^ (i >> 9));
    assert_int_equal(file_write(in_dir("big"), img, N), 0);
    const char *p = in_dir("d.pol");
    const char *create[] = { "--create", "--type", "nonfatal", "--alg", "sha512", p, NULL };
    const char *a1[] = { "--add", "--num", "2", "--pcr", "17", "--hash", "image", "--cmdline",
                         "first", "--image", in_dir("big"), p, NULL };
    const char *a2[] = { "--add", "--num", "2", "--pcr", "17", "--hash", "image", "--cmdline",
                         "second", "--image", in_dir("big"), p, NULL };
    polgen(create);
    polgen(a1);
    polgen(a2);
    size_t len;
    uint8_t *b = read_policy(p, &len);
    /* a second --add for the same module adds a hash to its entry */
    assert_int_equal(len, 12 + 8 + 2 * 64);
    assert_int_equal(tb_policy_parse(b, (uint32_t)len, &pol, err, sizeof(err)), 0);
    assert_int_equal(pol.size, len);
    assert_int_equal(pol.hash_alg, TPM_ALG_SHA512);
    assert_int_equal(pol.nr_entries, 1);
    assert_entry(0, 2, 17, TB_HTYPE_IMAGE, 0, 2, 12);
    uint8_t h1[64], h2[64];
    module_hash(TPM_ALG_SHA512, "first", img, N, h1);
    module_hash(TPM_ALG_SHA512, "second", img, N, h2);
    assert_memory_equal(pol.entries[0].hashes, h1, 64);
    assert_memory_equal(pol.entries[0].hashes + 64, h2, 64);
    assert_ptr_equal(tb_policy_find(&pol, 2), &pol.entries[0]);
    assert_null(tb_policy_find(&pol, 0));
    assert_true(tb_policy_entry_accepts(&pol, &pol.entries[0], h1));
    assert_true(tb_policy_entry_accepts(&pol, &pol.entries[0], h2));
    h2[63] ^= 1;
    assert_false(tb_policy_entry_accepts(&pol, &pol.entries[0], h2));
    free(img);
    free(b);
}

/* ---- by hand ---- */

static void sha1_legacy_id_and_trailing_bytes(void **state)
{
    (void)state;
    struct pb p;
    pb_header(&p, 2, TB_POLTYPE_HALT, 0, 1, 2);   /* hash_alg 0: TPM 1.2 tools' SHA-1 */
    pb_entry(&p, 0, 18, TB_HTYPE_IMAGE, 0, 2);
    pb_hash(&p, 0x10, 20);
    pb_hash(&p, 0x30, 20);
    pb_entry(&p, TB_POL_MOD_NUM_NV, 22, TB_HTYPE_IMAGE, 0x40000010, 1);
    pb_hash(&p, 0x50, 20);
    size_t size = p.n;
    assert_int_equal(size, 12 + 8 + 40 + 8 + 20);
    memset(p.b + p.n, 0xee, 100);            /* an NV index larger than its policy */
    p.n += 100;
    assert_int_equal(parse(&p), 0);
    assert_int_equal(pol.size, size);
    assert_int_equal(pol.hash_alg, TPM_ALG_SHA1);
    assert_int_equal(pol.bytes[2], 0x04);    /* measured after the coercion, as tboot does */
    assert_memory_equal(pol.bytes + 3, p.b + 3, size - 3);
    assert_int_equal(pol.bytes[size], 0);    /* the trailing bytes are not copied */
    assert_int_equal(pol.nr_entries, 2);
    assert_entry(0, 0, 18, TB_HTYPE_IMAGE, 0, 2, 12);
    assert_entry(1, TB_POL_MOD_NUM_NV, 22, TB_HTYPE_IMAGE, 0x40000010, 1, 12 + 48);
    /* either hash of entry 0 matches, nothing else does */
    uint8_t d[20];
    for (unsigned i = 0; i < 20; i++)
        d[i] = (uint8_t)(0x30 + i);
    assert_true(tb_policy_entry_accepts(&pol, &pol.entries[0], d));
    d[0] = 0x10;
    for (unsigned i = 1; i < 20; i++)
        d[i] = (uint8_t)(0x10 + i);
    assert_true(tb_policy_entry_accepts(&pol, &pol.entries[0], d));
    d[19] ^= 1;
    assert_false(tb_policy_entry_accepts(&pol, &pol.entries[0], d));
    for (unsigned i = 0; i < 20; i++)
        d[i] = (uint8_t)(0x50 + i);
    assert_false(tb_policy_entry_accepts(&pol, &pol.entries[0], d));
    assert_true(tb_policy_entry_accepts(&pol, &pol.entries[1], d));
}

static void every_valid_field_value(void **state)
{
    (void)state;
    /* module numbers 0..127, ANY, NV, NV_RAW; PCRs 0..23 and none; both hash types */
    static const uint8_t mods[] = { 0, 1, 127, TB_POL_MOD_NUM_ANY, TB_POL_MOD_NUM_NV,
                                    TB_POL_MOD_NUM_NV_RAW };
    static const uint8_t pcrs[] = { 0, 17, 23, TB_POL_PCR_NONE };
    for (unsigned m = 0; m < sizeof(mods); m++)
        for (unsigned c = 0; c < sizeof(pcrs); c++)
            for (uint8_t h = 0; h <= TB_HTYPE_IMAGE; h++) {
                struct pb p;
                pb_header(&p, 2, TB_POLTYPE_CONT_NON_FATAL, (uint8_t)TPM_ALG_SHA256, 0, 1);
                pb_entry(&p, mods[m], pcrs[c], h, 0x12345678, 0);
                assert_int_equal(parse(&p), 0);
                assert_entry(0, mods[m], pcrs[c], h, 0x12345678, 0, 12);
            }
    /* no entries at all */
    struct pb p;
    pb_header(&p, 2, TB_POLTYPE_HALT, (uint8_t)TPM_ALG_SHA512, 0xffffffffu, 0);
    assert_int_equal(parse(&p), 0);
    assert_int_equal(pol.size, 12);
    assert_int_equal(pol.nr_entries, 0);
    assert_int_equal(pol.control, 0xffffffffu);
    assert_null(tb_policy_find(&pol, 0));
    /* the reserved field is kept (it is measured) */
    put32(p.b, 7, 0xdeadbeef);
    assert_int_equal(parse(&p), 0);
    assert_int_equal(get32(pol.bytes, 7), 0xdeadbeef);
}

static void rejections(void **state)
{
    (void)state;
    struct pb p;
    /* shorter than the header */
    pb_header(&p, 2, 0, 0x0b, 1, 0);
    p.n = 11;
    expect_reject(&p, "policy is 11 bytes, shorter than its 12-byte header");
    p.n = 0;
    expect_reject(&p, "policy is 0 bytes");
    /* version */
    pb_header(&p, 1, 0, 0x0b, 1, 0);
    expect_reject(&p, "policy version 1, only version 2 is supported");
    pb_header(&p, 3, 0, 0x0b, 1, 0);
    expect_reject(&p, "policy version 3");
    /* type */
    pb_header(&p, 2, 3, 0x0b, 1, 0);
    expect_reject(&p, "policy type 3 is not nonfatal (0), continue (1) or halt (2)");
    pb_header(&p, 2, 0xff, 0x0b, 1, 0);
    expect_reject(&p, "policy type 255");
    /* hash algorithm: SM3, NULL, SHA3-256, RSA */
    static const uint8_t algs[] = { 0x12, 0x10, 0x27, 0x01, 0x05, 0xff };
    for (unsigned i = 0; i < sizeof(algs); i++) {
        pb_header(&p, 2, 0, algs[i], 1, 0);
        char msg[64];
        snprintf(msg, sizeof(msg), "policy hash algorithm 0x%02x is not SHA-1/256/384/512",
                 algs[i]);
        expect_reject(&p, msg);
    }
    /* entry header truncated */
    pb_header(&p, 2, 0, 0x0b, 1, 1);
    pb_entry(&p, 0, 17, 0, 0, 0);
    p.n -= 1;
    expect_reject(&p, "policy entry 0 of 1: header truncated at byte 12");
    /* an absurd entry count for the bytes there are */
    pb_header(&p, 2, 0, 0x0b, 1, 255);
    pb_entry(&p, 0, 17, 0, 0, 0);
    pb_entry(&p, 1, 17, 0, 0, 0);
    expect_reject(&p, "policy entry 2 of 255: header truncated at byte 28");
    pb_header(&p, 2, 0, 0x0b, 1, 2);
    expect_reject(&p, "policy entry 0 of 2: header truncated at byte 12");
    /* hashes beyond the buffer */
    pb_header(&p, 2, 0, 0x0b, 1, 1);
    pb_entry(&p, 0, 17, 1, 0, 2);
    pb_hash(&p, 0, 63);
    expect_reject(&p, "policy entry 0: 2 hashes of 32 bytes do not fit in 83 bytes");
    pb_header(&p, 2, 0, 0x0d, 1, 2);
    pb_entry(&p, 0, 17, 1, 0, 0);
    pb_entry(&p, 1, 17, 1, 0, 255);
    pb_hash(&p, 0, 64);
    expect_reject(&p, "policy entry 1: 255 hashes of 64 bytes do not fit");
    /* hash_alg 0 counts as SHA-1 for the sizes too: 21 bytes is not enough for 2 */
    pb_header(&p, 2, 0, 0, 1, 1);
    pb_entry(&p, 0, 17, 1, 0, 2);
    pb_hash(&p, 0, 39);
    expect_reject(&p, "2 hashes of 20 bytes do not fit");
    /* bad module number, PCR, hash type */
    static const uint8_t bad_mods[] = { 128, 132, 200, 255 };
    for (unsigned i = 0; i < sizeof(bad_mods); i++) {
        pb_header(&p, 2, 0, 0x0b, 1, 2);
        pb_entry(&p, 0, 17, 0, 0, 0);
        pb_entry(&p, bad_mods[i], 17, 0, 0, 0);
        char msg[64];
        snprintf(msg, sizeof(msg), "policy entry 1: module number %u is invalid", bad_mods[i]);
        expect_reject(&p, msg);
    }
    static const uint8_t bad_pcrs[] = { 24, 100, 254 };
    for (unsigned i = 0; i < sizeof(bad_pcrs); i++) {
        pb_header(&p, 2, 0, 0x0b, 1, 1);
        pb_entry(&p, 0, bad_pcrs[i], 0, 0, 0);
        char msg[64];
        snprintf(msg, sizeof(msg), "policy entry 0: PCR %u is invalid", bad_pcrs[i]);
        expect_reject(&p, msg);
    }
    pb_header(&p, 2, 0, 0x0b, 1, 1);
    pb_entry(&p, 0, 17, 2, 0, 0);
    expect_reject(&p, "policy entry 0: hash type 2 is invalid");
    pb_header(&p, 2, 0, 0x0b, 1, 1);
    pb_entry(&p, 0, 17, 0xff, 0, 0);
    expect_reject(&p, "hash type 255 is invalid");
}

static void size_limit(void **state)
{
    (void)state;
    /* tboot's MAX_TB_POLICY_SIZE: 8 entries of 4 SHA-512 hashes, 2124 bytes: accepted */
    struct pb p;
    pb_header(&p, 2, 0, 0x0d, 1, 8);
    for (unsigned i = 0; i < 8; i++) {
        pb_entry(&p, (uint8_t)i, 17, 1, 0, 4);
        pb_hash(&p, (uint8_t)i, 4 * 64);
    }
    assert_int_equal(p.n, 2124);
    assert_int_equal(parse(&p), 0);
    assert_int_equal(pol.size, 2124);
    assert_entry(7, 7, 17, 1, 0, 4, 12 + 7 * 264);
    assert_memory_equal(pol.bytes, p.b, 2124);
    /* one more (empty) entry: too large, though it is all there */
    p.b[11] = 9;
    pb_entry(&p, 8, 17, 0, 0, 0);
    expect_reject(&p, "policy is larger than tboot's maximum of 2124 bytes");
    /* many small entries add up too: of 255 entries of one SHA-1 hash each, the 76th ends
     * at byte 2140 */
    pb_header(&p, 2, 0, 0x04, 1, 255);
    for (unsigned i = 0; i < 80; i++) {
        pb_entry(&p, 0, 17, 1, 0, 1);
        pb_hash(&p, 0, 20);
    }
    expect_reject(&p, "larger than tboot's maximum");
    /* 255 empty entries fit (12 + 255 * 8 = 2052 bytes): the most entries a policy has */
    pb_header(&p, 2, 0, 0x04, 1, 255);
    for (unsigned i = 0; i < 255; i++)
        pb_entry(&p, (uint8_t)(i % 128), (uint8_t)(i % 24), 0, i, 0);
    assert_int_equal(parse(&p), 0);
    assert_int_equal(pol.nr_entries, 255);
    assert_int_equal(pol.size, 2052);
    assert_entry(254, 254 % 128, 254 % 24, 0, 254, 0, 12 + 254 * 8);
}

/* ---- the default policies ---- */

static void assert_hex(const uint8_t *b, size_t n, const char *hex)
{
    char got[4096];
    for (size_t i = 0; i < n; i++)
        sprintf(got + 2 * i, "%02x", b[i]);
    got[2 * n] = 0;
    assert_string_equal(got, hex);
}

static void default_policies(void **state)
{
    (void)state;
    memset(&pol, 0xa5, sizeof(pol));
    tb_policy_default(&pol, PCR_MAP_DA);
    assert_int_equal(pol.size, 36);
    assert_hex(pol.bytes, pol.size,
               "02000b01000000000000000300ff00000000000081110000000000008316001000004000");
    assert_int_equal(pol.type, TB_POLTYPE_CONT_NON_FATAL);
    assert_int_equal(pol.hash_alg, TPM_ALG_SHA256);
    assert_int_equal(pol.control, TB_POLCTL_EXTEND_PCR17);
    assert_int_equal(pol.nr_entries, 3);
    assert_entry(0, 0, TB_POL_PCR_NONE, TB_HTYPE_ANY, 0, 0, 12);
    assert_entry(1, TB_POL_MOD_NUM_ANY, 17, TB_HTYPE_ANY, 0, 0, 20);
    assert_entry(2, TB_POL_MOD_NUM_NV_RAW, 22, TB_HTYPE_ANY, 0x40000010, 0, 28);
    /* module 0 has its own entry (no extra PCR); every other module goes to 17 */
    assert_ptr_equal(tb_policy_find(&pol, 0), &pol.entries[0]);
    assert_ptr_equal(tb_policy_find(&pol, 1), &pol.entries[1]);
    assert_ptr_equal(tb_policy_find(&pol, 127), &pol.entries[1]);

    memset(&pol, 0xa5, sizeof(pol));
    tb_policy_default(&pol, PCR_MAP_LEGACY);
    assert_int_equal(pol.size, 36);
    assert_hex(pol.bytes, pol.size,
               "02000b01000000000000000300ff00000000000081130000000000008316001000004000");
    assert_int_equal(pol.nr_entries, 3);
    assert_entry(1, TB_POL_MOD_NUM_ANY, 19, TB_HTYPE_ANY, 0, 0, 20);
    assert_entry(2, TB_POL_MOD_NUM_NV_RAW, 22, TB_HTYPE_ANY, 0x40000010, 0, 28);
}

/* ---- lookup and matching ---- */

static void find_order(void **state)
{
    (void)state;
    struct pb p;
    /* ANY first: it wins even over an exact entry later on (tboot's find_policy_entry) */
    pb_header(&p, 2, 0, 0x0b, 1, 2);
    pb_entry(&p, TB_POL_MOD_NUM_ANY, 19, 0, 0, 0);
    pb_entry(&p, 1, 17, 0, 0, 0);
    assert_int_equal(parse(&p), 0);
    assert_ptr_equal(tb_policy_find(&pol, 1), &pol.entries[0]);
    assert_ptr_equal(tb_policy_find(&pol, 0), &pol.entries[0]);
    /* exact first */
    pb_header(&p, 2, 0, 0x0b, 1, 3);
    pb_entry(&p, 3, 18, 0, 0, 0);
    pb_entry(&p, 1, 17, 0, 0, 0);
    pb_entry(&p, TB_POL_MOD_NUM_ANY, 19, 0, 0, 0);
    assert_int_equal(parse(&p), 0);
    assert_ptr_equal(tb_policy_find(&pol, 1), &pol.entries[1]);
    assert_ptr_equal(tb_policy_find(&pol, 3), &pol.entries[0]);
    assert_ptr_equal(tb_policy_find(&pol, 2), &pol.entries[2]);
    /* NV entries are not modules, but their numbers are what they are */
    pb_header(&p, 2, 0, 0x0b, 1, 2);
    pb_entry(&p, TB_POL_MOD_NUM_NV, 22, 0, 0x40000010, 0);
    pb_entry(&p, 0, 17, 0, 0, 0);
    assert_int_equal(parse(&p), 0);
    assert_ptr_equal(tb_policy_find(&pol, 0), &pol.entries[1]);
    assert_null(tb_policy_find(&pol, 1));
    assert_ptr_equal(tb_policy_find(&pol, TB_POL_MOD_NUM_NV), &pol.entries[0]);
}

static void accepts(void **state)
{
    (void)state;
    struct pb p;
    pb_header(&p, 2, 0, 0x0c, 1, 3);
    pb_entry(&p, 0, 17, TB_HTYPE_IMAGE, 0, 3);
    pb_hash(&p, 0x00, 48);
    pb_hash(&p, 0x40, 48);
    pb_hash(&p, 0x80, 48);
    pb_entry(&p, 1, 17, TB_HTYPE_IMAGE, 0, 0);       /* image, but no hash: nothing passes */
    pb_entry(&p, 2, 17, TB_HTYPE_ANY, 0, 1);         /* any, with a hash: ignored */
    pb_hash(&p, 0x00, 48);
    assert_int_equal(parse(&p), 0);
    uint8_t d[48];
    for (unsigned k = 0; k < 3; k++) {
        for (unsigned i = 0; i < 48; i++)
            d[i] = (uint8_t)(0x40 * k + i);
        assert_true(tb_policy_entry_accepts(&pol, &pol.entries[0], d));
        assert_false(tb_policy_entry_accepts(&pol, &pol.entries[1], d));
        assert_true(tb_policy_entry_accepts(&pol, &pol.entries[2], d));
        d[47] ^= 0x80;                               /* the whole digest is compared */
        assert_false(tb_policy_entry_accepts(&pol, &pol.entries[0], d));
        d[47] ^= 0x80;
        d[0] ^= 1;
        assert_false(tb_policy_entry_accepts(&pol, &pol.entries[0], d));
    }
    /* a digest straddling two hashes is not one of them */
    for (unsigned i = 0; i < 48; i++)
        d[i] = (uint8_t)(0x18 + i);
    assert_false(tb_policy_entry_accepts(&pol, &pol.entries[0], d));
}

/* ---- tboot 1.10's policy map ---- */

static void action_map(void **state)
{
    (void)state;
    enum { C = TB_ACT_CONTINUE, U = TB_ACT_UNMEASURED_LAUNCH, H = TB_ACT_HALT };
    static const struct { enum tb_error err; int nonfatal, cont, halt; } map[] = {
        { TB_ERR_NONE, C, C, C },
        { TB_ERR_FATAL, H, H, H },
        { TB_ERR_TPM_NOT_READY, U, H, H },
        { TB_ERR_TXT_NOT_SUPPORTED, U, H, H },
        { TB_ERR_POLICY_NOT_PRESENT, C, C, H },
        { TB_ERR_POLICY_INVALID, C, C, H },
        { TB_ERR_MODULE_VERIFICATION_FAILED, C, C, H },
        { TB_ERR_MODULES_NOT_IN_POLICY, C, H, H },
        { TB_ERR_S3_INTEGRITY, C, H, H },
    };
    assert_int_equal(sizeof(map) / sizeof(map[0]), TB_ERR_S3_INTEGRITY + 1);
    for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        assert_int_equal(tb_policy_action(TB_POLTYPE_CONT_NON_FATAL, map[i].err), map[i].nonfatal);
        assert_int_equal(tb_policy_action(TB_POLTYPE_CONT_VERIFY_FAIL, map[i].err), map[i].cont);
        assert_int_equal(tb_policy_action(TB_POLTYPE_HALT, map[i].err), map[i].halt);
        /* a type tboot has no map for: its default, halt, except for no error */
        for (unsigned t = TB_POLTYPE_MAX; t < 256; t += 63)
            assert_int_equal(tb_policy_action((uint8_t)t, map[i].err),
                             map[i].err == TB_ERR_NONE ? C : H);
    }
}

static void names(void **state)
{
    (void)state;
    assert_string_equal(tb_policy_type_name(0), "nonfatal");
    assert_string_equal(tb_policy_type_name(1), "continue");
    assert_string_equal(tb_policy_type_name(2), "halt");
    assert_string_equal(tb_policy_type_name(3), "invalid");
    assert_string_equal(tb_action_name(TB_ACT_CONTINUE), "continue");
    assert_string_equal(tb_action_name(TB_ACT_UNMEASURED_LAUNCH), "unmeasured launch");
    assert_string_equal(tb_action_name(TB_ACT_HALT), "halt");
    assert_string_equal(tb_error_name(TB_ERR_NONE), "none");
    assert_string_equal(tb_error_name(TB_ERR_TXT_NOT_SUPPORTED),
                        "no dynamic launch (TXT not supported)");
    assert_string_equal(tb_error_name(TB_ERR_MODULES_NOT_IN_POLICY), "module not in policy");
    assert_string_equal(tb_error_name(TB_ERR_S3_INTEGRITY), "S3 integrity check failed");
    assert_string_equal(tb_error_name((enum tb_error)(TB_ERR_S3_INTEGRITY + 1)), "unknown error");
}

/* Where the policy comes from: only an index that does not exist (TPM_RC_HANDLE for handle 1,
 * what NV_ReadPublic answers) means "tboot's default"; once it exists, nothing falls back. */
static void policy_source_fails_closed(void **state)
{
    (void)state;
    struct tb_policy_nv_read r = { 0 };
    assert_int_equal(tb_policy_source(&r), TB_POLICY_FROM_NV);

    r = (struct tb_policy_nv_read){ .public_rc = 0x18b };            /* TPM_RC_HANDLE + 1 */
    assert_int_equal(tb_policy_source(&r), TB_POLICY_DEFAULT);
    r.public_rc = 0x08b;                                              /* no handle number */
    assert_int_equal(tb_policy_source(&r), TB_POLICY_DEFAULT);
    /* other answers to NV_ReadPublic: whether the index exists is unknown */
    static const int unknown[] = { -1, 0x101 /* FAILURE */, 0x921 /* LOCKOUT */,
                                   0x922 /* RETRY */, 0x1c4 /* VALUE, parameter 1 */,
                                   0x98b /* HANDLE for session 1 */, 0x18a /* not HANDLE */ };
    for (unsigned i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        r = (struct tb_policy_nv_read){ .public_rc = unknown[i] };
        assert_int_equal(tb_policy_source(&r), TB_POLICY_HALT);
    }
    /* the index exists: PPWRITE, a failed read (DA lockout, a transport error), a bad policy */
    r = (struct tb_policy_nv_read){ .attributes = TPMA_NV_PPWRITE };
    assert_int_equal(tb_policy_source(&r), TB_POLICY_HALT);
    r = (struct tb_policy_nv_read){ .read_rc = 0x921 };
    assert_int_equal(tb_policy_source(&r), TB_POLICY_HALT);
    r = (struct tb_policy_nv_read){ .read_rc = -1 };
    assert_int_equal(tb_policy_source(&r), TB_POLICY_HALT);
    r = (struct tb_policy_nv_read){ .parse_rc = -1 };
    assert_int_equal(tb_policy_source(&r), TB_POLICY_HALT);
    /* other attributes do not matter */
    r = (struct tb_policy_nv_read){ .attributes = ~TPMA_NV_PPWRITE };
    assert_int_equal(tb_policy_source(&r), TB_POLICY_FROM_NV);
}

/* The reason line the launch logs before halting on an unusable index: the first failing
 * step's, with the TPM's or the parser's reason. */
static void policy_nv_problem(void **state)
{
    (void)state;
    char out[256];
    struct tb_policy_nv_read r = { .public_rc = 0x101 };
    tb_policy_nv_problem(&r, "TPM_RC_FAILURE", "unused", out, sizeof(out));
    assert_string_equal(out, "policy: cannot tell whether NV index 0x01200001 exists: "
                             "TPM_RC_FAILURE");
    /* a failed NV_ReadPublic decides even with every later field set */
    r = (struct tb_policy_nv_read){ -1, TPMA_NV_PPWRITE, 0x921, -1 };
    tb_policy_nv_problem(&r, "transport: timeout", "bad", out, sizeof(out));
    assert_string_equal(out, "policy: cannot tell whether NV index 0x01200001 exists: "
                             "transport: timeout");

    r = (struct tb_policy_nv_read){ .attributes = TPMA_NV_PPWRITE | 0x00040000u };
    tb_policy_nv_problem(&r, "unused", "unused", out, sizeof(out));
    assert_string_equal(out, "policy: NV index 0x01200001 is platform-writable (PPWRITE), "
                             "not trusted");
    r = (struct tb_policy_nv_read){ 0, TPMA_NV_PPWRITE, 0x921, -1 };
    tb_policy_nv_problem(&r, "unused", "unused", out, sizeof(out));
    assert_string_equal(out, "policy: NV index 0x01200001 is platform-writable (PPWRITE), "
                             "not trusted");

    r = (struct tb_policy_nv_read){ .attributes = ~TPMA_NV_PPWRITE, .read_rc = 0x921 };
    tb_policy_nv_problem(&r, "TPM_RC_LOCKOUT", "unused", out, sizeof(out));
    assert_string_equal(out, "policy: NV index 0x01200001 exists but cannot be read: "
                             "TPM_RC_LOCKOUT");
    r = (struct tb_policy_nv_read){ .read_rc = -1, .parse_rc = -1 };
    tb_policy_nv_problem(&r, "", "unused", out, sizeof(out));
    assert_string_equal(out, "policy: NV index 0x01200001 exists but cannot be read: ");

    r = (struct tb_policy_nv_read){ .parse_rc = -1 };
    tb_policy_nv_problem(&r, "unused", "policy version 3, not 2", out, sizeof(out));
    assert_string_equal(out, "policy in NV index 0x01200001 is invalid: policy version 3, not 2");
    /* cut to the buffer, terminated */
    char small[20];
    tb_policy_nv_problem(&r, "unused", "x", small, sizeof(small));
    assert_string_equal(small, "policy in NV index ");
}

int main(void)
{
#define P(fn) cmocka_unit_test_setup_teardown(fn, polgen_setup, polgen_teardown)
    const struct CMUnitTest tests[] = {
        P(polgen_halt_sha256),
        P(polgen_nonfatal_sha1_any),
        P(polgen_continue_sha384_several),
        P(polgen_nonfatal_sha512_two_hashes),
        cmocka_unit_test(sha1_legacy_id_and_trailing_bytes),
        cmocka_unit_test(every_valid_field_value),
        cmocka_unit_test(rejections),
        cmocka_unit_test(size_limit),
        cmocka_unit_test(default_policies),
        cmocka_unit_test(find_order),
        cmocka_unit_test(accepts),
        cmocka_unit_test(action_map),
        cmocka_unit_test(names),
        cmocka_unit_test(policy_source_fails_closed),
        cmocka_unit_test(policy_nv_problem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
