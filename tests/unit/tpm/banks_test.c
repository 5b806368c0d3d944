/* SPDX-License-Identifier: MIT */
/* src/tpm/banks.c: the extpol= bank filter (the launch's find_tpm) and S3's seal bank. */
#include "test_common.h"

#include "tpm/banks.h"

#define SHA1 TPM_ALG_SHA1
#define SHA256 TPM_ALG_SHA256
#define SHA384 TPM_ALG_SHA384
#define SHA512 TPM_ALG_SHA512
#define SM3 0x0012u                      /* an algorithm vtboot cannot hash */

static void assert_banks(const struct tpm_banks *b, unsigned count, const uint16_t *algs)
{
    assert_int_equal(b->count, count);
    for (unsigned i = 0; i < count; i++)
        assert_int_equal(b->alg[i], algs[i]);
}

/* extpol 0: every active bank stays, in its order; err is not touched. */
static void select_all(void **state)
{
    (void)state;
    struct tpm_banks b = { 4, { SHA1, SHA256, SHA384, SHA512 } };
    char err[128] = "untouched";
    assert_int_equal(tpm_banks_select(&b, 0, err, sizeof(err)), 0);
    assert_banks(&b, 4, (const uint16_t[]){ SHA1, SHA256, SHA384, SHA512 });
    assert_string_equal(err, "untouched");

    struct tpm_banks one = { 1, { SHA384 } };
    assert_int_equal(tpm_banks_select(&one, 0, err, sizeof(err)), 0);
    assert_banks(&one, 1, (const uint16_t[]){ SHA384 });
}

/* extpol=<bank> the TPM has: only that bank, wherever it was among the others. */
static void select_one(void **state)
{
    (void)state;
    static const uint16_t all[4] = { SHA1, SHA256, SHA384, SHA512 };
    char err[128] = "untouched";
    for (unsigned k = 0; k < 4; k++) {
        struct tpm_banks b = { 4, { SHA1, SHA256, SHA384, SHA512 } };
        assert_int_equal(tpm_banks_select(&b, all[k], err, sizeof(err)), 0);
        assert_banks(&b, 1, &all[k]);
    }
    struct tpm_banks b = { 2, { SHA256, SHA1 } };
    assert_int_equal(tpm_banks_select(&b, SHA1, err, sizeof(err)), 0);
    assert_banks(&b, 1, (const uint16_t[]){ SHA1 });
    assert_string_equal(err, "untouched");
}

/* extpol=<bank> the TPM lacks: -1, today's message (the launch prints "TPM: " before it),
 * the banks unchanged. */
static void select_missing(void **state)
{
    (void)state;
    char err[128];
    struct tpm_banks b = { 2, { SHA1, SHA256 } };
    assert_int_equal(tpm_banks_select(&b, SHA384, err, sizeof(err)), -1);
    assert_string_equal(err, "extpol=sha384 but the TPM has no active sha384 bank");
    assert_banks(&b, 2, (const uint16_t[]){ SHA1, SHA256 });

    assert_int_equal(tpm_banks_select(&b, SHA512, err, sizeof(err)), -1);
    assert_string_equal(err, "extpol=sha512 but the TPM has no active sha512 bank");

    struct tpm_banks s = { 1, { SHA256 } };
    assert_int_equal(tpm_banks_select(&s, SHA1, err, sizeof(err)), -1);
    assert_string_equal(err, "extpol=sha1 but the TPM has no active sha1 bank");
    assert_banks(&s, 1, (const uint16_t[]){ SHA256 });

    struct tpm_banks none = { 0, { SHA256 } };   /* alg[0] past count is not a bank */
    assert_int_equal(tpm_banks_select(&none, SHA256, err, sizeof(err)), -1);
    assert_string_equal(err, "extpol=sha256 but the TPM has no active sha256 bank");
    assert_int_equal(none.count, 0);

    /* the message is cut to the buffer and terminated */
    char small[12];
    assert_int_equal(tpm_banks_select(&b, SHA384, small, sizeof(small)), -1);
    assert_string_equal(small, "extpol=sha3");
}

/* S3's seal bank: SHA-256, then SHA-384, SHA-512, SHA-1, whatever the banks' order. */
static void seal_bank(void **state)
{
    (void)state;
    struct tpm_banks b = { 4, { SHA1, SHA512, SHA384, SHA256 } };
    assert_int_equal(tpm_banks_seal_bank(&b), SHA256);
    b = (struct tpm_banks){ 3, { SHA1, SHA512, SHA384 } };
    assert_int_equal(tpm_banks_seal_bank(&b), SHA384);
    b = (struct tpm_banks){ 2, { SHA1, SHA512 } };
    assert_int_equal(tpm_banks_seal_bank(&b), SHA512);
    b = (struct tpm_banks){ 2, { SM3, SHA1 } };
    assert_int_equal(tpm_banks_seal_bank(&b), SHA1);
    b = (struct tpm_banks){ 1, { SHA256 } };
    assert_int_equal(tpm_banks_seal_bank(&b), SHA256);
    b = (struct tpm_banks){ 2, { SHA384, SHA256 } };
    assert_int_equal(tpm_banks_seal_bank(&b), SHA256);
    b = (struct tpm_banks){ 2, { SHA512, SHA384 } };
    assert_int_equal(tpm_banks_seal_bank(&b), SHA384);
}

/* No bank of the four: 0 (S3 refuses to seal). Entries past count do not count. */
static void seal_bank_none(void **state)
{
    (void)state;
    struct tpm_banks b = { 0, { SHA256, SHA1 } };
    assert_int_equal(tpm_banks_seal_bank(&b), 0);
    b = (struct tpm_banks){ 1, { SM3, SHA256 } };
    assert_int_equal(tpm_banks_seal_bank(&b), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(select_all),
        cmocka_unit_test(select_one),
        cmocka_unit_test(select_missing),
        cmocka_unit_test(seal_bank),
        cmocka_unit_test(seal_bank_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
