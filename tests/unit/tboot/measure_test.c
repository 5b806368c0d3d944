/* SPDX-License-Identifier: MIT */
/*
 * What a launch extends where (tboot 1.10's order, every bank), checked against OpenSSL:
 * the policy measurement, module measurements, and measure_launch's whole list with the
 * verdict for each module.
 */
#include "test_common.h"

#include "openssl_ref.h"
#include "tboot/measure.h"

static const struct tpm_banks sha1_sha256 = { 2, { TPM_ALG_SHA1, TPM_ALG_SHA256 } };
static const struct tpm_banks all_banks = { 4, { TPM_ALG_SHA1, TPM_ALG_SHA256,
                                                 TPM_ALG_SHA384, TPM_ALG_SHA512 } };
static struct tb_policy pol;
static struct launch_measurements lm;

static void assert_hex(const uint8_t *b, size_t n, const char *hex)
{
    char got[300];
    for (size_t i = 0; i < n; i++)
        sprintf(got + 2 * i, "%02x", b[i]);
    got[2 * n] = 0;
    assert_string_equal(got, hex);
}

/* H(policy_control as 4 LE bytes || H(policy) or zeros) */
static void ref_policy(const struct tb_policy *p, uint16_t alg, uint8_t *out)
{
    uint8_t buf[4 + 64] = { 0 };
    size_t n = ref_digest_size(alg);
    put32(buf, 0, p->control);
    if (p->control & TB_POLCTL_EXTEND_PCR17)
        ref_hash(alg, p->bytes, p->size, buf + 4);
    ref_hash(alg, buf, 4 + n, out);
}

static void ref_module(uint16_t alg, const struct module_ref *m, uint8_t *out)
{
    uint8_t hc[64], hi[64];
    size_t n = ref_digest_size(alg);
    ref_hash(alg, m->cmdline, strlen(m->cmdline), hc);
    ref_hash(alg, m->image, m->size, hi);
    ref_hash2(alg, hc, n, hi, n, out);
}

static void assert_list(const struct tpm_digest_list *d, const struct tpm_banks *b,
                        const uint8_t want[][64])
{
    assert_int_equal(d->count, b->count);
    for (unsigned i = 0; i < b->count; i++) {
        assert_int_equal(d->d[i].alg, b->alg[i]);
        assert_memory_equal(d->d[i].bytes, want[i], ref_digest_size(b->alg[i]));
    }
}

static void assert_module_list(const struct tpm_digest_list *d, const struct tpm_banks *b,
                               const struct module_ref *m)
{
    uint8_t want[TPM_MAX_BANKS][64];
    for (unsigned i = 0; i < b->count; i++)
        ref_module(b->alg[i], m, want[i]);
    assert_list(d, b, (const uint8_t (*)[64])want);
}

static void assert_policy_list(const struct tpm_digest_list *d, const struct tpm_banks *b,
                               const struct tb_policy *p)
{
    uint8_t want[TPM_MAX_BANKS][64];
    for (unsigned i = 0; i < b->count; i++)
        ref_policy(p, b->alg[i], want[i]);
    assert_list(d, b, (const uint8_t (*)[64])want);
}

/* ---- measure_policy ---- */

static void policy_default_da(void **state)
{
    (void)state;
    tb_policy_default(&pol, PCR_MAP_DA);
    const struct tpm_banks b = { 1, { TPM_ALG_SHA256 } };
    struct tpm_digest_list d;
    measure_policy(&pol, &b, &d);
    assert_int_equal(d.count, 1);
    assert_int_equal(d.d[0].alg, TPM_ALG_SHA256);
    assert_hex(d.d[0].bytes, 32, "71be5852a14eabefebf0df0e1acc5da291883b6d4c5ab20914ed987c1daf3f91");
    /* = sha256(01000000 || sha256(policy)) */
    uint8_t hp[32], buf[36], want[32];
    ref_hash(TPM_ALG_SHA256, pol.bytes, 36, hp);
    memcpy(buf, "\x01\x00\x00\x00", 4);
    memcpy(buf + 4, hp, 32);
    ref_hash(TPM_ALG_SHA256, buf, 36, want);
    assert_memory_equal(d.d[0].bytes, want, 32);
    /* every bank, in the order given */
    measure_policy(&pol, &all_banks, &d);
    assert_policy_list(&d, &all_banks, &pol);
    assert_memory_equal(d.d[1].bytes, want, 32);
    /* legacy: another policy, another value */
    tb_policy_default(&pol, PCR_MAP_LEGACY);
    measure_policy(&pol, &b, &d);
    assert_memory_not_equal(d.d[0].bytes, want, 32);
    assert_policy_list(&d, &b, &pol);
}

static void policy_without_extend_pcr17(void **state)
{
    (void)state;
    /* control 0: H(00000000 || zeros), whatever the policy says */
    static const uint8_t raw[] = { 2, 2, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                                   0x81, 19, 0, 0, 0, 0, 0, 0 };
    char err[128];
    assert_int_equal(tb_policy_parse(raw, sizeof(raw), &pol, err, sizeof(err)), 0);
    struct tpm_digest_list d;
    measure_policy(&pol, &all_banks, &d);
    assert_policy_list(&d, &all_banks, &pol);
    uint8_t zeros[4 + 64] = { 0 }, want[64];
    ref_hash(TPM_ALG_SHA1, zeros, 24, want);
    assert_memory_equal(d.d[0].bytes, want, 20);
    ref_hash(TPM_ALG_SHA512, zeros, 68, want);
    assert_memory_equal(d.d[3].bytes, want, 64);
    /* other control bits are measured as they are */
    static const uint8_t raw2[] = { 2, 2, 0x0c, 0x02, 0x01, 0, 0x80, 0, 0, 0, 0, 0 };
    assert_int_equal(tb_policy_parse(raw2, sizeof(raw2), &pol, err, sizeof(err)), 0);
    assert_int_equal(pol.control, 0x80000102);
    measure_policy(&pol, &all_banks, &d);
    uint8_t buf[4 + 64] = { 0x02, 0x01, 0x00, 0x80 };
    ref_hash(TPM_ALG_SHA256, buf, 36, want);
    assert_memory_equal(d.d[1].bytes, want, 32);
}

/* ---- measure_module ---- */

static void module_against_openssl(void **state)
{
    (void)state;
    enum { N = 3 * 65536 + 17 };             /* more than a few 64 KiB chunks, and a tail */
    uint8_t *img = malloc(N);
    for (unsigned i = 0; i < N; i++)
        img[i] = (uint8_t)(i * 2654435761u >> 24);
    static const struct { const char *cmdline; uint32_t size; } c[] = {
        { "bzImage console=ttyS0 panic=-1", N },
        { "", N },
        { "initrd.img", 0 },                 /* an empty module */
        { "/boot/vmlinuz  root=/dev/vda1 ro quiet", 65536 },
        { "x", 1 },
    };
    for (unsigned k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
        struct module_ref m = { c[k].cmdline, img, c[k].size };
        struct tpm_digest_list d;
        memset(&d, 0xa5, sizeof(d));
        measure_module(&m, &all_banks, &d, NULL, 0);
        assert_module_list(&d, &all_banks, &m);
        /* a bank subset, another order: the same digests per algorithm */
        const struct tpm_banks b = { 2, { TPM_ALG_SHA512, TPM_ALG_SHA1 } };
        struct tpm_digest_list d2;
        measure_module(&m, &b, &d2, NULL, 0);
        assert_memory_equal(d2.d[0].bytes, d.d[3].bytes, 64);
        assert_memory_equal(d2.d[1].bytes, d.d[0].bytes, 20);
    }
    /* the string is measured verbatim: the file name counts (as GRUB vs QEMU differ) */
    struct module_ref a = { "bzImage console=ttyS0", img, 100 }, b = { "console=ttyS0", img, 100 };
    struct tpm_digest_list da, db;
    measure_module(&a, &sha1_sha256, &da, NULL, 0);
    measure_module(&b, &sha1_sha256, &db, NULL, 0);
    assert_memory_not_equal(da.d[1].bytes, db.d[1].bytes, 32);
    assert_module_list(&db, &sha1_sha256, &b);
    free(img);
}

static void digest_of_lookup(void **state)
{
    (void)state;
    struct tpm_digest_list d = { 2, { { TPM_ALG_SHA256, { 1 } }, { TPM_ALG_SHA1, { 2 } } } };
    assert_ptr_equal(digest_of(&d, TPM_ALG_SHA256), d.d[0].bytes);
    assert_ptr_equal(digest_of(&d, TPM_ALG_SHA1), d.d[1].bytes);
    assert_null(digest_of(&d, TPM_ALG_SHA384));
    d.count = 1;
    assert_null(digest_of(&d, TPM_ALG_SHA1));
}

/* ---- measure_launch ---- */

static uint8_t img_a[5000], img_b[3000], img_c[10];
static const struct module_ref mods[] = {
    { "bzImage console=ttyS0", img_a, sizeof(img_a) },
    { "initrd.img", img_b, sizeof(img_b) },
    { "extra module", img_c, sizeof(img_c) },
};

static int fill_images(void **state)
{
    (void)state;
    for (unsigned i = 0; i < sizeof(img_a); i++)
        img_a[i] = (uint8_t)i;
    for (unsigned i = 0; i < sizeof(img_b); i++)
        img_b[i] = (uint8_t)(i * 7);
    memset(img_c, 'c', sizeof(img_c));
    return 0;
}

static void assert_vl(unsigned i, uint8_t pcr, const char *what)
{
    if (i >= lm.vl.n)
        fail_msg("vl entry %u of %u", i, lm.vl.n);
    assert_int_equal(lm.vl.e[i].pcr, pcr);
    assert_string_equal(lm.vl.e[i].what, what);
}

static void launch_default_da(void **state)
{
    (void)state;
    tb_policy_default(&pol, PCR_MAP_DA);
    memset(&lm, 0xa5, sizeof(lm));
    assert_int_equal(measure_launch(&pol, &sha1_sha256, PCR_MAP_DA, mods, 2, &lm, NULL), 0);
    /* policy into 17 and 18; module 0 into 17; its entry says "none"; module 1 into 17 */
    assert_int_equal(lm.vl.n, 4);
    assert_vl(0, 17, "vtboot: policy control and policy hash");
    assert_vl(1, 18, "vtboot: policy control and policy hash");
    assert_vl(2, 17, "vtboot: module 0: bzImage console=ttyS0");
    assert_vl(3, 17, "vtboot: module 1: initrd.img");
    assert_policy_list(&lm.vl.e[0].digests, &sha1_sha256, &pol);
    assert_policy_list(&lm.vl.e[1].digests, &sha1_sha256, &pol);
    assert_module_list(&lm.vl.e[2].digests, &sha1_sha256, &mods[0]);
    assert_module_list(&lm.vl.e[3].digests, &sha1_sha256, &mods[1]);
    assert_int_equal(lm.nr_modules, 2);
    assert_int_equal(lm.verdict[0], MODULE_ACCEPTED_ANY);
    assert_int_equal(lm.verdict[1], MODULE_ACCEPTED_ANY);
    /* the verification digests are in the policy's algorithm, SHA-256 */
    uint8_t want[64];
    ref_module(TPM_ALG_SHA256, &mods[0], want);
    assert_memory_equal(lm.policy_digest[0], want, 32);
    ref_module(TPM_ALG_SHA256, &mods[1], want);
    assert_memory_equal(lm.policy_digest[1], want, 32);

    /* three modules: 17, 18, 17, 17, 17 */
    assert_int_equal(measure_launch(&pol, &all_banks, PCR_MAP_DA, mods, 3, &lm, NULL), 0);
    assert_int_equal(lm.vl.n, 5);
    static const uint8_t pcrs[] = { 17, 18, 17, 17, 17 };
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(lm.vl.e[i].pcr, pcrs[i]);
    assert_vl(4, 17, "vtboot: module 2: extra module");
    assert_module_list(&lm.vl.e[4].digests, &all_banks, &mods[2]);
    assert_int_equal(lm.verdict[2], MODULE_ACCEPTED_ANY);
}

static void launch_default_legacy(void **state)
{
    (void)state;
    tb_policy_default(&pol, PCR_MAP_LEGACY);
    assert_int_equal(measure_launch(&pol, &sha1_sha256, PCR_MAP_LEGACY, mods, 2, &lm, NULL), 0);
    /* policy into 17 only; module 0 into 18; module 1 into 19 */
    assert_int_equal(lm.vl.n, 3);
    assert_vl(0, 17, "vtboot: policy control and policy hash");
    assert_vl(1, 18, "vtboot: module 0: bzImage console=ttyS0");
    assert_vl(2, 19, "vtboot: module 1: initrd.img");
    assert_policy_list(&lm.vl.e[0].digests, &sha1_sha256, &pol);
    assert_module_list(&lm.vl.e[1].digests, &sha1_sha256, &mods[0]);
    assert_module_list(&lm.vl.e[2].digests, &sha1_sha256, &mods[1]);
    /* no modules at all: only the policy */
    assert_int_equal(measure_launch(&pol, &sha1_sha256, PCR_MAP_LEGACY, mods, 0, &lm, NULL), 0);
    assert_int_equal(lm.vl.n, 1);
    assert_int_equal(lm.nr_modules, 0);
}

/* A policy in SHA-384, which is not one of the banks {sha1, sha256}: module 0 matches its
 * hash, module 1 does not, module 2 has no entry. */
static void build_sha384_policy(uint8_t *raw, size_t *len, const uint8_t h0[48],
                                const uint8_t h1_wrong[48])
{
    size_t n = 0;
    static const uint8_t hdr[] = { 2, TB_POLTYPE_CONT_VERIFY_FAIL, 0x0c, 1, 0, 0, 0, 0, 0, 0, 0,
                                   2 };
    memcpy(raw, hdr, 12), n = 12;
    static const uint8_t e0[] = { 0, TB_POL_PCR_NONE, TB_HTYPE_IMAGE, 0, 0, 0, 0, 2 };
    memcpy(raw + n, e0, 8), n += 8;
    memcpy(raw + n, h1_wrong, 48), n += 48;  /* a hash that is not module 0's first */
    memcpy(raw + n, h0, 48), n += 48;
    static const uint8_t e1[] = { 1, 19, TB_HTYPE_IMAGE, 0, 0, 0, 0, 1 };
    memcpy(raw + n, e1, 8), n += 8;
    memcpy(raw + n, h1_wrong, 48), n += 48;
    *len = n;
}

static void launch_verdicts(void **state)
{
    (void)state;
    uint8_t h0[48], h1[48], wrong[48], raw[512];
    ref_module(TPM_ALG_SHA384, &mods[0], h0);
    ref_module(TPM_ALG_SHA384, &mods[1], h1);
    memcpy(wrong, h1, 48);
    wrong[0] ^= 0xff;
    size_t len;
    build_sha384_policy(raw, &len, h0, wrong);
    char err[128];
    assert_int_equal(tb_policy_parse(raw, (uint32_t)len, &pol, err, sizeof(err)), 0);

    assert_int_equal(measure_launch(&pol, &sha1_sha256, PCR_MAP_DA, mods, 3, &lm, NULL), 0);
    assert_int_equal(lm.nr_modules, 3);
    assert_int_equal(lm.verdict[0], MODULE_MATCHED);
    assert_int_equal(lm.verdict[1], MODULE_MISMATCHED);
    assert_int_equal(lm.verdict[2], MODULE_NOT_IN_POLICY);
    /* verification used SHA-384 though no bank has it ... */
    assert_memory_equal(lm.policy_digest[0], h0, 48);
    assert_memory_equal(lm.policy_digest[1], h1, 48);
    uint8_t h2[48];
    ref_module(TPM_ALG_SHA384, &mods[2], h2);
    assert_memory_equal(lm.policy_digest[2], h2, 48);
    /* ... and extends only the banks: policy 17, 18; module 0 17 (entry: none); module 1 19
     * (extended though it does not match: what the verdict does is the caller's business);
     * module 2 nowhere */
    assert_int_equal(lm.vl.n, 4);
    assert_vl(0, 17, "vtboot: policy control and policy hash");
    assert_vl(1, 18, "vtboot: policy control and policy hash");
    assert_vl(2, 17, "vtboot: module 0: bzImage console=ttyS0");
    assert_vl(3, 19, "vtboot: module 1: initrd.img");
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(lm.vl.e[i].digests.count, 2);
        assert_null(digest_of(&lm.vl.e[i].digests, TPM_ALG_SHA384));
    }
    assert_policy_list(&lm.vl.e[0].digests, &sha1_sha256, &pol);
    assert_module_list(&lm.vl.e[2].digests, &sha1_sha256, &mods[0]);
    assert_module_list(&lm.vl.e[3].digests, &sha1_sha256, &mods[1]);

    /* the same with the legacy mapping: module 0 into 18, no policy copy in 18 */
    assert_int_equal(measure_launch(&pol, &sha1_sha256, PCR_MAP_LEGACY, mods, 3, &lm, NULL), 0);
    assert_int_equal(lm.vl.n, 3);
    assert_vl(0, 17, "vtboot: policy control and policy hash");
    assert_vl(1, 18, "vtboot: module 0: bzImage console=ttyS0");
    assert_vl(2, 19, "vtboot: module 1: initrd.img");

    /* when SHA-384 is a bank, nothing is added for it */
    const struct tpm_banks b = { 1, { TPM_ALG_SHA384 } };
    assert_int_equal(measure_launch(&pol, &b, PCR_MAP_DA, mods, 2, &lm, NULL), 0);
    assert_int_equal(lm.vl.e[2].digests.count, 1);
    assert_memory_equal(lm.vl.e[2].digests.d[0].bytes, h0, 48);
    assert_int_equal(lm.verdict[0], MODULE_MATCHED);
}

static void launch_module_in_own_pcr_twice(void **state)
{
    (void)state;
    /* an entry naming PCR 17 for module 0 extends it a second time (tboot does too) */
    static const uint8_t raw[] = { 2, 0, 0x0b, 1, 0, 0, 0, 0, 0, 0, 0, 1,
                                   0, 17, TB_HTYPE_ANY, 0, 0, 0, 0, 0 };
    char err[128];
    assert_int_equal(tb_policy_parse(raw, sizeof(raw), &pol, err, sizeof(err)), 0);
    assert_int_equal(measure_launch(&pol, &sha1_sha256, PCR_MAP_DA, mods, 2, &lm, NULL), 0);
    assert_int_equal(lm.vl.n, 4);
    assert_vl(2, 17, "vtboot: module 0: bzImage console=ttyS0");
    assert_vl(3, 17, "vtboot: module 0: bzImage console=ttyS0");
    assert_memory_equal(&lm.vl.e[2].digests, &lm.vl.e[3].digests, sizeof(lm.vl.e[2].digests));
    assert_int_equal(lm.verdict[1], MODULE_NOT_IN_POLICY);
}

static void launch_long_cmdline_truncated(void **state)
{
    (void)state;
    static char cmdline[300];
    memset(cmdline, 'a', sizeof(cmdline) - 1);
    const struct module_ref m = { cmdline, img_c, sizeof(img_c) };
    tb_policy_default(&pol, PCR_MAP_DA);
    assert_int_equal(measure_launch(&pol, &sha1_sha256, PCR_MAP_DA, &m, 1, &lm, NULL), 0);
    assert_int_equal(strlen(lm.vl.e[2].what), VL_WHAT_MAX - 1);
    assert_memory_equal(lm.vl.e[2].what, "vtboot: module 0: aaaa", 22);
    /* the measurement is of the whole string */
    assert_module_list(&lm.vl.e[2].digests, &sha1_sha256, &m);
}

static void launch_refusals(void **state)
{
    (void)state;
    tb_policy_default(&pol, PCR_MAP_DA);
    static struct module_ref many[MEASURE_MAX_MODULES + 1];
    for (unsigned i = 0; i <= MEASURE_MAX_MODULES; i++)
        many[i] = (struct module_ref){ "m", img_c, sizeof(img_c) };
    /* 16 modules: fine, 2 + 1 + 16 extends */
    assert_int_equal(measure_launch(&pol, &sha1_sha256, PCR_MAP_DA, many, MEASURE_MAX_MODULES,
                                    &lm, NULL), 0);
    assert_int_equal(lm.vl.n, 2 + 1 + 15);
    /* too many modules */
    assert_int_equal(measure_launch(&pol, &sha1_sha256, PCR_MAP_DA, many,
                                    MEASURE_MAX_MODULES + 1, &lm, NULL), -1);
    /* no banks */
    const struct tpm_banks none = { 0, { 0 } };
    assert_int_equal(measure_launch(&pol, &none, PCR_MAP_DA, mods, 1, &lm, NULL), -1);
    /* no room to add the policy's algorithm to a full bank list */
    const struct tpm_banks full = { 4, { TPM_ALG_SHA1, TPM_ALG_SHA1, TPM_ALG_SHA384,
                                         TPM_ALG_SHA512 } };
    assert_int_equal(measure_launch(&pol, &full, PCR_MAP_DA, mods, 1, &lm, NULL), -1);
    /* with its algorithm among them, a full list is fine */
    assert_int_equal(measure_launch(&pol, &all_banks, PCR_MAP_DA, mods, 1, &lm, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(policy_default_da),
        cmocka_unit_test(policy_without_extend_pcr17),
        cmocka_unit_test(module_against_openssl),
        cmocka_unit_test(digest_of_lookup),
        cmocka_unit_test(launch_default_da),
        cmocka_unit_test(launch_default_legacy),
        cmocka_unit_test(launch_verdicts),
        cmocka_unit_test(launch_module_in_own_pcr_twice),
        cmocka_unit_test(launch_long_cmdline_truncated),
        cmocka_unit_test(launch_refusals),
    };
    return cmocka_run_group_tests(tests, fill_images, NULL);
}
