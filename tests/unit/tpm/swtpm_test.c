/* SPDX-License-Identifier: MIT */
/*
 * src/tpm/tpm2.c against a real TPM: swtpm (support/swtpm_sim), one instance for the whole
 * file, the tests in order. PCR values are checked against OpenSSL; the policy in NV is put
 * there by Debian's tb_polgen and tpm2-tools, as an administrator would, and read back and
 * parsed by vtboot's code. Skipped, saying so, when swtpm is not installed; the NV tests also
 * when tb_polgen or tpm2-tools are missing.
 */
#include "test_common.h"

#include "openssl_ref.h"
#include "swtpm_sim.h"
#include "tboot/policy.h"
#include "tool_check.h"
#include "tpm/tpm2.h"

static struct swtpm_sim sim;
static bool have_sim;
static char why[256];
static struct tpm2 tpm;
static struct tpm_banks banks;

/* The response codes swtpm gave, in order: what the TPM said before tpm2.c resent. */
static uint32_t rcs[64];
static unsigned nrcs;

static int recording_transmit(void *ctx, const uint8_t *cmd, size_t cmd_len, uint8_t *rsp,
                              size_t rsp_cap, size_t *rsp_len, char *err, size_t errlen)
{
    int rc = swtpm_sim_transmit(ctx, cmd, cmd_len, rsp, rsp_cap, rsp_len, err, errlen);
    if (rc == 0 && *rsp_len >= 10 && nrcs < sizeof(rcs) / sizeof(rcs[0]))
        rcs[nrcs++] = (uint32_t)rsp[6] << 24 | (uint32_t)rsp[7] << 16 | rsp[8] << 8 | rsp[9];
    return rc;
}

static int group_setup(void **state)
{
    (void)state;
    have_sim = swtpm_sim_start(&sim, why, sizeof(why)) == 0;
    if (!have_sim)
        print_message("swtpm: %s: skipping the real-TPM tests (Debian package swtpm)\n", why);
    tpm = (struct tpm2){ recording_transmit, &sim, { 0 } };
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    swtpm_sim_stop(&sim);
    return 0;
}

/* Skips without swtpm; otherwise makes sure the test's connection is up. */
static void need_tpm(void)
{
    if (!have_sim)
        skip();
    assert_int_equal(swtpm_sim_connect(&sim), 0);
}

static void need_tools(const char *const *names)
{
    for (unsigned i = 0; names[i]; i++)
        if (!tool_path(names[i])) {
            print_message("%s is not installed: skipping\n", names[i]);
            skip();
        }
}

static void startup_already_done(void **state)
{
    (void)state;
    need_tpm();
    /* swtpm was started with startup-clear, as firmware would have */
    assert_int_equal(tpm2_startup(&tpm, TPM2_SU_CLEAR), TPM2_RC_INITIALIZE);
    assert_contains(tpm.err, "TPM2_Startup: TPM returned 0x100");
}

static void pcr_banks(void **state)
{
    (void)state;
    need_tpm();
    assert_int_equal(tpm2_get_pcr_banks(&tpm, &banks), 0);
    /* swtpm's default allocation (no swtpm_setup): every bank it has, all 24 PCRs */
    assert_int_equal(banks.count, 4);
    assert_int_equal(banks.alg[0], TPM_ALG_SHA1);
    assert_int_equal(banks.alg[1], TPM_ALG_SHA256);
    assert_int_equal(banks.alg[2], TPM_ALG_SHA384);
    assert_int_equal(banks.alg[3], TPM_ALG_SHA512);
}

static void assert_pcr_all(const struct tpm_digest_list *d, uint8_t v)
{
    assert_int_equal(d->count, banks.count);
    for (unsigned i = 0; i < d->count; i++) {
        assert_int_equal(d->d[i].alg, banks.alg[i]);
        for (unsigned b = 0; b < tpm_hash_size(banks.alg[i]); b++)
            if (d->d[i].bytes[b] != v)
                fail_msg("bank %s byte %u is 0x%02x, want 0x%02x", tpm_hash_name(banks.alg[i]),
                         b, d->d[i].bytes[b], v);
    }
}

static void pcr_read_initial(void **state)
{
    (void)state;
    need_tpm();
    struct tpm_digest_list d;
    assert_int_equal(tpm2_pcr_read(&tpm, 16, &banks, &d), 0);
    assert_pcr_all(&d, 0x00);
    assert_int_equal(tpm2_pcr_read(&tpm, 23, &banks, &d), 0);
    assert_pcr_all(&d, 0x00);
    assert_int_equal(tpm2_pcr_read(&tpm, 0, &banks, &d), 0);
    assert_pcr_all(&d, 0x00);
    /* D-RTM PCRs without a dynamic launch: all ones (what "not launched" looks like) */
    for (unsigned pcr = 17; pcr <= 22; pcr++) {
        assert_int_equal(tpm2_pcr_read(&tpm, pcr, &banks, &d), 0);
        assert_pcr_all(&d, 0xff);
    }
    /* one bank alone */
    struct tpm_banks one = { 1, { TPM_ALG_SHA384 } };
    assert_int_equal(tpm2_pcr_read(&tpm, 18, &one, &d), 0);
    assert_int_equal(d.count, 1);
    assert_int_equal(d.d[0].alg, TPM_ALG_SHA384);
    assert_int_equal(d.d[0].bytes[47], 0xff);
}

static void pcr_extend_and_read_back(void **state)
{
    (void)state;
    need_tpm();
    static const char *const what[] = { "vtboot: first", "vtboot: second", "vtboot: third" };
    uint8_t model16[TPM_MAX_BANKS][TPM2_MAX_DIGEST], model23[TPM_MAX_BANKS][TPM2_MAX_DIGEST];
    memset(model16, 0, sizeof(model16));
    memset(model23, 0, sizeof(model23));
    for (unsigned k = 0; k < 3; k++) {
        struct tpm_digest_list d = { banks.count, { { 0 } } };
        for (unsigned i = 0; i < banks.count; i++) {
            d.d[i].alg = banks.alg[i];
            ref_hash(banks.alg[i], what[k], strlen(what[k]), d.d[i].bytes);
            ref_extend(banks.alg[i], model16[i], d.d[i].bytes);
            if (k == 1)
                ref_extend(banks.alg[i], model23[i], d.d[i].bytes);
        }
        assert_int_equal(tpm2_pcr_extend(&tpm, 16, &d), 0);
        if (k == 1)
            assert_int_equal(tpm2_pcr_extend(&tpm, 23, &d), 0);
        struct tpm_digest_list got;
        assert_int_equal(tpm2_pcr_read(&tpm, 16, &banks, &got), 0);
        assert_int_equal(got.count, banks.count);
        for (unsigned i = 0; i < banks.count; i++)
            assert_memory_equal(got.d[i].bytes, model16[i], tpm_hash_size(banks.alg[i]));
    }
    struct tpm_digest_list got;
    assert_int_equal(tpm2_pcr_read(&tpm, 23, &banks, &got), 0);
    for (unsigned i = 0; i < banks.count; i++)
        assert_memory_equal(got.d[i].bytes, model23[i], tpm_hash_size(banks.alg[i]));

    /* an extend of one bank only changes that bank */
    struct tpm_digest_list one = { 1, { { TPM_ALG_SHA256, { 0 } } } };
    memset(one.d[0].bytes, 0x5a, 32);
    assert_int_equal(tpm2_pcr_extend(&tpm, 16, &one), 0);
    ref_extend(TPM_ALG_SHA256, model16[1], one.d[0].bytes);
    assert_int_equal(tpm2_pcr_read(&tpm, 16, &banks, &got), 0);
    for (unsigned i = 0; i < banks.count; i++)
        assert_memory_equal(got.d[i].bytes, model16[i], tpm_hash_size(banks.alg[i]));
}

static void pcr_extend_locality(void **state)
{
    (void)state;
    need_tpm();
    /* PCR 17-22 are not extendable from locality 0: that is what makes D-RTM PCRs trustworthy */
    struct tpm_digest_list d = { 1, { { TPM_ALG_SHA256, { 0 } } } };
    assert_int_equal(tpm2_pcr_extend(&tpm, 17, &d), TPM2_RC_LOCALITY);
    assert_contains(tpm.err, "TPM2_PCR_Extend: TPM returned 0x907");
    struct tpm_digest_list got;
    assert_int_equal(tpm2_pcr_read(&tpm, 17, &banks, &got), 0);
    assert_pcr_all(&got, 0xff);
}

static void get_random(void **state)
{
    (void)state;
    need_tpm();
    uint8_t *a = malloc(100), *b = malloc(100), zero[100] = { 0 };
    assert_int_equal(tpm2_get_random(&tpm, a, 100), 0);
    assert_int_equal(tpm2_get_random(&tpm, b, 100), 0);
    assert_memory_not_equal(a, zero, 100);
    assert_memory_not_equal(a, b, 100);
    /* the second 64-byte chunk is not a copy of the first */
    assert_memory_not_equal(a, a + 64, 36);
    free(a);
    free(b);
}

static void nv_undefined(void **state)
{
    (void)state;
    need_tpm();
    uint32_t attrs;
    uint16_t size;
    /* TPM_RC_HANDLE for handle 1 */
    assert_int_equal(tpm2_nv_read_public(&tpm, TB_POLICY_NV_INDEX_TPM2, &attrs, &size), 0x18b);
    assert_contains(tpm.err, "TPM2_NV_ReadPublic: TPM returned 0x18b");
}

static void nv_policy_from_tb_polgen(void **state)
{
    (void)state;
    need_tpm();
    static const char *const tools[] = { "tb_polgen", "tpm2_nvdefine", "tpm2_nvwrite", NULL };
    need_tools(tools);
    char pol[300], img[300];
    snprintf(pol, sizeof(pol), "%s/p.pol", sim.dir);
    snprintf(img, sizeof(img), "%s/image", sim.dir);
    static const char image[] = "a kernel image, as far as tb_polgen can tell\n";
    assert_int_equal(file_write(img, image, strlen(image)), 0);
    const char *create[] = { "tb_polgen", "--create", "--type", "halt", "--alg", "sha256", pol,
                             NULL };
    const char *add[] = { "tb_polgen", "--add", "--num", "0", "--pcr", "none", "--hash", "image",
                          "--cmdline", "x", "--image", img, pol, NULL };
    tool_must_run_on_sim(&sim, create);
    tool_must_run_on_sim(&sim, add);
    size_t pol_len;
    uint8_t *pol_bytes = file_read(pol, &pol_len);
    assert_non_null(pol_bytes);
    assert_int_equal(pol_len, 12 + 8 + 32);

    /* the index as vtboot-qemu --policy defines it (host/lib/tpmprov.h): owner-written,
     * readable with its own empty auth, subject to dictionary-attack protection; and larger
     * than the policy (tboot ignores what follows the policy) */
    const char *define[] = { "tpm2_nvdefine", "0x01200001", "-C", "o", "-s", "64", "-a",
                             "ownerwrite|authread|ownerread", NULL };
    const char *write[] = { "tpm2_nvwrite", "0x01200001", "-C", "o", "-i", pol, NULL };
    tool_must_run_on_sim(&sim, define);
    tool_must_run_on_sim(&sim, write);

    need_tpm();
    uint32_t attrs = 0;
    uint16_t size = 0;
    assert_int_equal(tpm2_nv_read_public(&tpm, TB_POLICY_NV_INDEX_TPM2, &attrs, &size), 0);
    assert_int_equal(attrs, 0x20060002);     /* ownerwrite|ownerread|authread|written */
    assert_true(attrs & TPMA_NV_AUTHREAD);
    assert_false(attrs & TPMA_NV_PPWRITE);
    assert_int_equal(size, 64);
    uint8_t *nv = malloc(size);
    nrcs = 0;
    assert_int_equal(tpm2_nv_read(&tpm, TB_POLICY_NV_INDEX_TPM2, nv, size), 0);
    assert_memory_equal(nv, pol_bytes, pol_len);
    /* the first DA-protected authorisation since Startup: swtpm says RETRY, tpm2.c resends */
    assert_int_equal(nrcs, 2);
    assert_int_equal(rcs[0], TPM2_RC_RETRY);
    assert_int_equal(rcs[1], TPM2_RC_SUCCESS);
    /* and only that once */
    nrcs = 0;
    assert_int_equal(tpm2_nv_read(&tpm, TB_POLICY_NV_INDEX_TPM2, nv, size), 0);
    assert_int_equal(nrcs, 1);

    static struct tb_policy p;
    char err[128] = "";
    assert_int_equal(tb_policy_parse(nv, size, &p, err, sizeof(err)), 0);
    assert_int_equal(p.size, pol_len);
    assert_memory_equal(p.bytes, pol_bytes, pol_len);
    assert_int_equal(p.type, TB_POLTYPE_HALT);
    assert_int_equal(p.hash_alg, TPM_ALG_SHA256);
    assert_int_equal(p.control, TB_POLCTL_EXTEND_PCR17);
    assert_int_equal(p.nr_entries, 1);
    assert_int_equal(p.entries[0].mod_num, 0);
    assert_int_equal(p.entries[0].pcr, TB_POL_PCR_NONE);
    assert_int_equal(p.entries[0].hash_type, TB_HTYPE_IMAGE);
    assert_int_equal(p.entries[0].nv_index, 0);
    assert_int_equal(p.entries[0].num_hashes, 1);
    /* the module hash tboot computes: H(H(cmdline) || H(image)) */
    uint8_t hc[32], hi[32], want[32];
    ref_hash(TPM_ALG_SHA256, "x", 1, hc);
    ref_hash(TPM_ALG_SHA256, image, strlen(image), hi);
    ref_hash2(TPM_ALG_SHA256, hc, 32, hi, 32, want);
    assert_memory_equal(p.entries[0].hashes, want, 32);
    assert_true(tb_policy_entry_accepts(&p, &p.entries[0], want));
    free(nv);
    free(pol_bytes);
}

static void nv_read_in_chunks(void **state)
{
    (void)state;
    need_tpm();
    static const char *const tools[] = { "tpm2_nvdefine", "tpm2_nvwrite", NULL };
    need_tools(tools);
    /* more than two NV_Read chunks of 512 */
    enum { N = 1300 };
    uint8_t data[N];
    for (unsigned i = 0; i < N; i++)
        data[i] = (uint8_t)(i * 131 + (i >> 8));
    char path[300];
    snprintf(path, sizeof(path), "%s/nvdata", sim.dir);
    assert_int_equal(file_write(path, data, N), 0);
    const char *define[] = { "tpm2_nvdefine", "0x01500010", "-C", "o", "-s", "1300", "-a",
                             "ownerwrite|authread|ownerread|no_da", NULL };
    const char *write[] = { "tpm2_nvwrite", "0x01500010", "-C", "o", "-i", path, NULL };
    tool_must_run_on_sim(&sim, define);
    tool_must_run_on_sim(&sim, write);
    need_tpm();
    uint32_t attrs;
    uint16_t size;
    assert_int_equal(tpm2_nv_read_public(&tpm, 0x01500010, &attrs, &size), 0);
    assert_int_equal(size, N);
    uint8_t *got = malloc(N);
    assert_int_equal(tpm2_nv_read(&tpm, 0x01500010, got, N), 0);
    assert_memory_equal(got, data, N);
    /* a read past the end of the index: the TPM refuses (TPM_RC_NV_RANGE), as a code */
    uint8_t *more = malloc(N + 1);
    int rc = tpm2_nv_read(&tpm, 0x01500010, more, N + 1);
    assert_int_equal(rc, 0x146);             /* TPM_RC_NV_RANGE */
    assert_contains(tpm.err, "TPM2_NV_Read: TPM returned 0x146");
    free(more);
    free(got);
}

static void shutdown_clear(void **state)
{
    (void)state;
    need_tpm();
    assert_int_equal(tpm2_shutdown(&tpm, TPM2_SU_CLEAR), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(startup_already_done),
        cmocka_unit_test(pcr_banks),
        cmocka_unit_test(pcr_read_initial),
        cmocka_unit_test(pcr_extend_and_read_back),
        cmocka_unit_test(pcr_extend_locality),
        cmocka_unit_test(get_random),
        cmocka_unit_test(nv_undefined),
        cmocka_unit_test(nv_policy_from_tb_polgen),
        cmocka_unit_test(nv_read_in_chunks),
        cmocka_unit_test(shutdown_clear),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
