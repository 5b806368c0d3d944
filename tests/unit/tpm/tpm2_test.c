/* SPDX-License-Identifier: MIT */
/*
 * TPM 2.0 commands against a scripted TPM (support/fake_tpm): the exact bytes each function
 * sends, written here by hand from TPM 2.0 Part 3 (rev 1.59), the values it parses out of
 * well-formed responses, and each malformed response it must refuse. tpm/swtpm_test.c runs the
 * same functions against a real TPM.
 */
#include "test_common.h"

#include "fake_tpm.h"
#include "tpm/tpm2.h"

static struct tpm2 tpm;

static int reset(void **state)
{
    (void)state;
    fake_tpm_reset(&tpm);
    return 0;
}

/* ---- hex composition: a few rotating buffers, so calls can nest in one expression ---- */

static char *ring(void)
{
    static char bufs[8][4 * TPM2_BUFFER_MAX];
    static unsigned i;
    return bufs[i++ % 8];
}

static const char *F(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *F(const char *fmt, ...)
{
    char *b = ring();
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, 4 * TPM2_BUFFER_MAX, fmt, ap);
    va_end(ap);
    return b;
}

/* n bytes of value v, as hex */
static const char *rep(uint8_t v, unsigned n)
{
    char *b = ring();
    for (unsigned i = 0; i < n; i++)
        sprintf(b + 2 * i, "%02x", v);
    b[2 * n] = 0;
    return b;
}

/* n bytes counting up from v, as hex */
static const char *seq(uint8_t v, unsigned n)
{
    char *b = ring();
    for (unsigned i = 0; i < n; i++)
        sprintf(b + 2 * i, "%02x", (uint8_t)(v + i));
    b[2 * n] = 0;
    return b;
}

static void fill_seq(uint8_t *p, uint8_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v + i);
}

#define OK_HDR "8001 SZ 00000000"            /* no-sessions success header */
#define SESS_OK "0000 01 0000"                /* password session response: nonce, attrs, hmac */

static void expect_fail_msg(int rc, const char *msg)
{
    assert_int_equal(rc, -1);
    assert_contains(tpm.err, msg);
    FAKE_TPM_DONE();
}

/* ================================ names and sizes ================================ */

static void digest_sizes_and_names(void **state)
{
    (void)state;
    assert_int_equal(tpm_hash_size(TPM_ALG_SHA1), 20);
    assert_int_equal(tpm_hash_size(TPM_ALG_SHA256), 32);
    assert_int_equal(tpm_hash_size(TPM_ALG_SHA384), 48);
    assert_int_equal(tpm_hash_size(TPM_ALG_SHA512), 64);
    assert_int_equal(tpm_hash_size(TPM2_ALG_SM3_256), 0);
    assert_int_equal(tpm_hash_size(TPM2_ALG_NULL), 0);
    assert_int_equal(tpm_hash_size(0), 0);
    assert_string_equal(tpm_hash_name(TPM_ALG_SHA1), "sha1");
    assert_string_equal(tpm_hash_name(TPM_ALG_SHA256), "sha256");
    assert_string_equal(tpm_hash_name(TPM_ALG_SHA384), "sha384");
    assert_string_equal(tpm_hash_name(TPM_ALG_SHA512), "sha512");
    /* banks vtboot cannot hash are not in the table: no name, so callers say so themselves */
    assert_null(tpm_hash_name(TPM2_ALG_SM3_256));
    assert_null(tpm_hash_name(0x1234));
}

/* ================================ Startup / Shutdown and the header ================================ */

static void startup_clear_and_state(void **state)
{
    (void)state;
    fake_tpm_expect("8001 0000000c 00000144 0000", "8001 0000000a 00000000");
    assert_int_equal(tpm2_startup(&tpm, TPM2_SU_CLEAR), 0);
    FAKE_TPM_DONE();
    fake_tpm_reset(&tpm);
    fake_tpm_expect("8001 0000000c 00000144 0001", OK_HDR);
    assert_int_equal(tpm2_startup(&tpm, TPM2_SU_STATE), 0);
    FAKE_TPM_DONE();
}

static void startup_already_done(void **state)
{
    (void)state;
    /* what a TPM the firmware started says: TPM_RC_INITIALIZE, returned as such */
    fake_tpm_expect("8001 0000000c 00000144 0000", "8001 0000000a 00000100");
    assert_int_equal(tpm2_startup(&tpm, TPM2_SU_CLEAR), TPM2_RC_INITIALIZE);
    assert_contains(tpm.err, "TPM2_Startup: TPM returned 0x100");
    FAKE_TPM_DONE();
}

static void shutdown_clear(void **state)
{
    (void)state;
    fake_tpm_expect("8001 0000000c 00000145 0000", OK_HDR);
    assert_int_equal(tpm2_shutdown(&tpm, TPM2_SU_CLEAR), 0);
    FAKE_TPM_DONE();
    fake_tpm_reset(&tpm);
    fake_tpm_expect("8001 0000000c 00000145 0001", "8001 0000000a 00000101");
    assert_int_equal(tpm2_shutdown(&tpm, TPM2_SU_STATE), TPM2_RC_FAILURE);
    assert_contains(tpm.err, "TPM2_Shutdown: TPM returned 0x101");
    FAKE_TPM_DONE();
}

static void header_short(void **state)
{
    (void)state;
    fake_tpm_expect(NULL, "8001 0000000a 0000");
    expect_fail_msg(tpm2_startup(&tpm, TPM2_SU_CLEAR),
                    "TPM2_Startup: response of 8 bytes is shorter than a header");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, "");
    expect_fail_msg(tpm2_startup(&tpm, TPM2_SU_CLEAR), "response of 0 bytes is shorter");
}

static void header_size_mismatch(void **state)
{
    (void)state;
    fake_tpm_expect(NULL, "8001 0000000b 00000000");
    expect_fail_msg(tpm2_startup(&tpm, TPM2_SU_CLEAR),
                    "TPM2_Startup: response size field 11 but 10 bytes arrived");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, "8001 0000000a 00000000 00");
    expect_fail_msg(tpm2_startup(&tpm, TPM2_SU_CLEAR), "size field 10 but 11 bytes arrived");
    /* checked before the response code */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, "8001 00000000 00000100");
    expect_fail_msg(tpm2_startup(&tpm, TPM2_SU_CLEAR), "size field 0 but 10 bytes arrived");
}

static void error_with_extra_bytes(void **state)
{
    (void)state;
    fake_tpm_expect(NULL, "8001 SZ 00000101 0000");
    expect_fail_msg(tpm2_startup(&tpm, TPM2_SU_CLEAR),
                    "TPM2_Startup: error response 0x101 carries 12 bytes");
}

static void error_code_out_of_int_range(void **state)
{
    (void)state;
    /* a response code with the top bit set cannot be returned as a positive int */
    fake_tpm_expect(NULL, "8001 SZ 80000001");
    assert_int_equal(tpm2_startup(&tpm, TPM2_SU_CLEAR), -1);
    assert_contains(tpm.err, "TPM returned 0x80000001");
    FAKE_TPM_DONE();
    /* the largest one that can */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, "8001 SZ 7fffffff");
    assert_int_equal(tpm2_startup(&tpm, TPM2_SU_CLEAR), 0x7fffffff);
    FAKE_TPM_DONE();
}

static void error_tag_not_checked(void **state)
{
    (void)state;
    /* TPMs answer errors with TPM_ST_NO_SESSIONS, also to session commands */
    fake_tpm_expect(NULL, "8001 SZ 00000907");
    struct tpm_digest_list d = { 1, { { TPM_ALG_SHA1, { 0 } } } };
    assert_int_equal(tpm2_pcr_extend(&tpm, 17, &d), TPM2_RC_LOCALITY);
    assert_contains(tpm.err, "TPM2_PCR_Extend: TPM returned 0x907");
    FAKE_TPM_DONE();
}

static void tag_mismatch(void **state)
{
    (void)state;
    fake_tpm_expect(NULL, "8002 SZ 00000000");
    expect_fail_msg(tpm2_startup(&tpm, TPM2_SU_CLEAR),
                    "TPM2_Startup: response tag 0x8002 for command tag 0x8001");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, "00c4 SZ 00000000");  /* a TPM 1.2 answer */
    expect_fail_msg(tpm2_startup(&tpm, TPM2_SU_CLEAR), "response tag 0x00c4");
}

static void extra_parameters(void **state)
{
    (void)state;
    fake_tpm_expect(NULL, OK_HDR "0000");
    expect_fail_msg(tpm2_startup(&tpm, TPM2_SU_CLEAR),
                    "TPM2_Startup: 2 unexpected bytes after the response parameters");
}

static void transport_failure(void **state)
{
    (void)state;
    fake_tpm_expect_fail("8001 0000000c 00000144 0000", "TIS: timeout waiting for stsValid");
    assert_int_equal(tpm2_startup(&tpm, TPM2_SU_CLEAR), -1);
    assert_string_equal(tpm.err, "TIS: timeout waiting for stsValid");
    FAKE_TPM_DONE();
    /* every command passes the transport's failure on */
    struct tpm_banks b = { 1, { TPM_ALG_SHA256 } };
    struct tpm_digest_list d = { 1, { { TPM_ALG_SHA256, { 0 } } } };
    uint8_t buf[8];
    uint32_t attrs;
    uint16_t size;
    fake_tpm_reset(&tpm);
    for (unsigned i = 0; i < 7; i++)
        fake_tpm_expect_fail(NULL, "no TPM");
    assert_int_equal(tpm2_shutdown(&tpm, TPM2_SU_CLEAR), -1);
    assert_int_equal(tpm2_get_pcr_banks(&tpm, &b), -1);
    assert_int_equal(tpm2_pcr_read(&tpm, 0, &b, &d), -1);
    assert_int_equal(tpm2_pcr_extend(&tpm, 0, &d), -1);
    assert_int_equal(tpm2_get_random(&tpm, buf, 8), -1);
    assert_int_equal(tpm2_nv_read_public(&tpm, 1, &attrs, &size), -1);
    assert_int_equal(tpm2_nv_read(&tpm, 1, buf, 8), -1);
    assert_string_equal(tpm.err, "no TPM");
    FAKE_TPM_DONE();
}

/* ================================ GetCapability(PCRS) ================================ */

#define GETCAP_PCRS "8001 00000016 0000017a 00000005 00000000 00000001"

static void banks_swtpm_default(void **state)
{
    (void)state;
    /* what swtpm 0.7 answers: all four banks, all 24 PCRs */
    fake_tpm_expect(GETCAP_PCRS, OK_HDR "00 00000005 00000004 | 0004 03 ffffff | 000b 03 ffffff"
                                 "| 000c 03 ffffff | 000d 03 ffffff");
    struct tpm_banks b;
    memset(&b, 0xa5, sizeof(b));
    assert_int_equal(tpm2_get_pcr_banks(&tpm, &b), 0);
    assert_int_equal(b.count, 4);
    assert_int_equal(b.alg[0], TPM_ALG_SHA1);
    assert_int_equal(b.alg[1], TPM_ALG_SHA256);
    assert_int_equal(b.alg[2], TPM_ALG_SHA384);
    assert_int_equal(b.alg[3], TPM_ALG_SHA512);
    FAKE_TPM_DONE();
}

static void banks_filtered(void **state)
{
    (void)state;
    /* SM3 (not hashable here), an unallocated SHA-1 bank, an empty selection, and moreData */
    fake_tpm_expect(GETCAP_PCRS, OK_HDR "01 00000005 00000005 | 0012 03 ffffff | 0004 03 000000"
                                 "| 000b 03 000080 | 000c 00 | 000d 04 00000001");
    struct tpm_banks b;
    assert_int_equal(tpm2_get_pcr_banks(&tpm, &b), 0);
    assert_int_equal(b.count, 2);
    assert_int_equal(b.alg[0], TPM_ALG_SHA256);
    assert_int_equal(b.alg[1], TPM_ALG_SHA512);
    FAKE_TPM_DONE();
    /* no banks at all is a valid answer */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(GETCAP_PCRS, OK_HDR "00 00000005 00000000");
    assert_int_equal(tpm2_get_pcr_banks(&tpm, &b), 0);
    assert_int_equal(b.count, 0);
    FAKE_TPM_DONE();
}

static void banks_more_than_max(void **state)
{
    (void)state;
    /* 16 selections (the most accepted), 6 usable: the first TPM_MAX_BANKS are kept */
    char body[2048] = "";
    for (unsigned i = 0; i < 16; i++) {
        static const uint16_t algs[] = { 0x000d, 0x0004, 0x0012, 0x000b, 0x000c, 0x000b,
                                         0x0004 };
        strcat(body, F("%04x 03 010000", i < 7 ? algs[i] : 0x0027));
    }
    fake_tpm_expect(GETCAP_PCRS, F(OK_HDR "00 00000005 00000010 %s", body));
    struct tpm_banks b;
    assert_int_equal(tpm2_get_pcr_banks(&tpm, &b), 0);
    assert_int_equal(b.count, TPM_MAX_BANKS);
    assert_int_equal(b.alg[0], TPM_ALG_SHA512);
    assert_int_equal(b.alg[1], TPM_ALG_SHA1);
    assert_int_equal(b.alg[2], TPM_ALG_SHA256);
    assert_int_equal(b.alg[3], TPM_ALG_SHA384);
    FAKE_TPM_DONE();
}

static void banks_malformed(void **state)
{
    (void)state;
    struct tpm_banks b;
    /* more than 16 selections */
    fake_tpm_expect(GETCAP_PCRS, OK_HDR "00 00000005 00000011");
    expect_fail_msg(tpm2_get_pcr_banks(&tpm, &b), "TPM2_GetCapability(PCRS): 17 banks");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(GETCAP_PCRS, OK_HDR "00 00000005 ffffffff");
    expect_fail_msg(tpm2_get_pcr_banks(&tpm, &b), "4294967295 banks");
    /* another capability */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(GETCAP_PCRS, OK_HDR "00 00000006 00000000");
    expect_fail_msg(tpm2_get_pcr_banks(&tpm, &b),
                    "TPM2_GetCapability(PCRS): wrong capability in response");
    /* truncated: no selection count, a cut selection, a selection bitmap past the end */
    static const char *const cut[] = { "00 00000005", "00 00000005 00000001 000b",
                                       "00 00000005 00000001 000b 03 ffff", "00", "" };
    for (unsigned i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
        fake_tpm_reset(&tpm);
        fake_tpm_expect(GETCAP_PCRS, F(OK_HDR "%s", cut[i]));
        expect_fail_msg(tpm2_get_pcr_banks(&tpm, &b),
                        "TPM2_GetCapability(PCRS): response parameters are truncated");
    }
    /* a count larger than the selections that follow */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(GETCAP_PCRS, OK_HDR "00 00000005 00000002 000b 03 ffffff");
    expect_fail_msg(tpm2_get_pcr_banks(&tpm, &b), "truncated or malformed");
    /* more than the selections */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(GETCAP_PCRS, OK_HDR "00 00000005 00000001 000b 03 ffffff 00");
    expect_fail_msg(tpm2_get_pcr_banks(&tpm, &b),
                    "1 unexpected bytes after the response parameters");
}

/* ================================ PCR_Read ================================ */

static const struct tpm_banks two_banks = { 2, { TPM_ALG_SHA1, TPM_ALG_SHA256 } };

/* PCR_Read(pcr 16) over sha1 + sha256: count 2, then {hash, sizeofSelect 3, pcrSelect} */
#define PCR_READ_16 "8001 0000001a 0000017e 00000002 | 0004 03 000001 | 000b 03 000001"
#define SEL_16 "00000002 | 0004 03 000001 | 000b 03 000001"

static void pcr_read_two_banks(void **state)
{
    (void)state;
    fake_tpm_expect(PCR_READ_16, F(OK_HDR "00000011 " SEL_16 "| 00000002 | 0014 %s | 0020 %s",
                                   seq(0x10, 20), seq(0x80, 32)));
    struct tpm_digest_list d;
    memset(&d, 0xa5, sizeof(d));
    assert_int_equal(tpm2_pcr_read(&tpm, 16, &two_banks, &d), 0);
    FAKE_TPM_DONE();
    uint8_t want[32];
    assert_int_equal(d.count, 2);
    assert_int_equal(d.d[0].alg, TPM_ALG_SHA1);
    fill_seq(want, 0x10, 20);
    assert_memory_equal(d.d[0].bytes, want, 20);
    assert_int_equal(d.d[1].alg, TPM_ALG_SHA256);
    fill_seq(want, 0x80, 32);
    assert_memory_equal(d.d[1].bytes, want, 32);
}

static void pcr_read_selection_bits(void **state)
{
    (void)state;
    /* PCR 0, 7, 8, 23 in one bank each: the bit lands in byte pcr / 8, bit pcr % 8 */
    static const struct { unsigned pcr; const char *sel; } c[] = {
        { 0, "010000" }, { 7, "800000" }, { 8, "000100" }, { 17, "000002" }, { 23, "000080" },
    };
    const struct tpm_banks one = { 1, { TPM_ALG_SHA384 } };
    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        fake_tpm_reset(&tpm);
        fake_tpm_expect(F("8001 00000014 0000017e 00000001 000c 03 %s", c[i].sel),
                        F(OK_HDR "00000000 00000001 000c 03 %s 00000001 0030 %s", c[i].sel,
                          rep((uint8_t)i, 48)));
        struct tpm_digest_list d;
        assert_int_equal(tpm2_pcr_read(&tpm, c[i].pcr, &one, &d), 0);
        FAKE_TPM_DONE();
        assert_int_equal(d.count, 1);
        assert_int_equal(d.d[0].alg, TPM_ALG_SHA384);
        assert_int_equal(d.d[0].bytes[47], i);
    }
    /* a selection reply longer than ours, with other bits set too, is still ours */
    fake_tpm_reset(&tpm);
    fake_tpm_expect("8001 00000014 0000017e 00000001 000c 03 000080",
                    F(OK_HDR "00000000 00000001 000c 04 ffffffff 00000001 0030 %s",
                      rep(7, 48)));
    struct tpm_digest_list d;
    assert_int_equal(tpm2_pcr_read(&tpm, 23, &one, &d), 0);
    FAKE_TPM_DONE();
}

static void pcr_read_bad_request(void **state)
{
    (void)state;
    struct tpm_digest_list d;
    expect_fail_msg(tpm2_pcr_read(&tpm, 24, &two_banks, &d), "TPM2_PCR_Read: no PCR 24");
    /* more banks than a digest list holds (a caller's mistake): refused, not overrun */
    struct tpm_banks five = { TPM_MAX_BANKS + 1, { TPM_ALG_SHA1, TPM_ALG_SHA256,
                                                   TPM_ALG_SHA384, TPM_ALG_SHA512 } };
    expect_fail_msg(tpm2_pcr_read(&tpm, 16, &five, &d), "TPM2_PCR_Read: 5 banks");
    assert_int_equal(fake_tpm_calls(), 0);
}

static void pcr_read_different_selection(void **state)
{
    (void)state;
    struct tpm_digest_list d;
    char digests[256];
    snprintf(digests, sizeof(digests), "00000002 0014 %s 0020 %s", rep(1, 20), rep(2, 32));
    static const char *const sels[] = {
        "00000002 | 000b 03 000001 | 0004 03 000001",   /* banks swapped */
        "00000002 | 0004 03 000001 | 000b 03 000002",   /* PCR 17 instead of 16 */
        "00000002 | 0004 03 000001 | 000b 03 000000",   /* PCR 16 not allocated in sha256 */
        "00000002 | 0004 02 0000   | 000b 03 000001",   /* selection too short for PCR 16 */
        "00000002 | 0004 00        | 000b 03 000001",   /* empty selection */
    };
    for (unsigned i = 0; i < sizeof(sels) / sizeof(sels[0]); i++) {
        fake_tpm_reset(&tpm);
        fake_tpm_expect(PCR_READ_16, F(OK_HDR "00000000 %s %s", sels[i], digests));
        assert_int_equal(tpm2_pcr_read(&tpm, 16, &two_banks, &d), -1);
        assert_contains(tpm.err, F("TPM2_PCR_Read: bank %u selection came back different",
                                   i == 0 ? 0u : i == 3 || i == 4 ? 0u : 1u));
        FAKE_TPM_DONE();
    }
    /* fewer or more selections than banks */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(PCR_READ_16, F(OK_HDR "00000000 00000001 0004 03 000001 00000001 0014 %s",
                                   rep(1, 20)));
    expect_fail_msg(tpm2_pcr_read(&tpm, 16, &two_banks, &d),
                    "TPM2_PCR_Read: 2 banks selected, 1 returned");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(PCR_READ_16, OK_HDR "00000000 00000003");
    expect_fail_msg(tpm2_pcr_read(&tpm, 16, &two_banks, &d), "2 banks selected, 3 returned");
}

static void pcr_read_digest_problems(void **state)
{
    (void)state;
    struct tpm_digest_list d;
    /* fewer digests than banks (a TPM leaves out PCRs it does not have) */
    fake_tpm_expect(PCR_READ_16, F(OK_HDR "00000000 " SEL_16 " 00000001 0014 %s", rep(1, 20)));
    expect_fail_msg(tpm2_pcr_read(&tpm, 16, &two_banks, &d),
                    "TPM2_PCR_Read: 1 digests for 2 banks");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(PCR_READ_16, OK_HDR "00000000 " SEL_16 " 00000000");
    expect_fail_msg(tpm2_pcr_read(&tpm, 16, &two_banks, &d), "0 digests for 2 banks");
    /* a digest of the wrong size for its bank */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(PCR_READ_16, F(OK_HDR "00000000 " SEL_16 " 00000002 0014 %s 0014 %s",
                                   rep(1, 20), rep(2, 20)));
    expect_fail_msg(tpm2_pcr_read(&tpm, 16, &two_banks, &d),
                    "TPM2_PCR_Read: sha256 digest of 20 bytes");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(PCR_READ_16, F(OK_HDR "00000000 " SEL_16 " 00000002 0000 0020 %s",
                                   rep(2, 32)));
    expect_fail_msg(tpm2_pcr_read(&tpm, 16, &two_banks, &d), "sha1 digest of 0 bytes");
    /* larger than any digest: refused by the TPM2B cap */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(PCR_READ_16, F(OK_HDR "00000000 " SEL_16 " 00000002 0014 %s 0041 %s",
                                   rep(1, 20), rep(2, 65)));
    expect_fail_msg(tpm2_pcr_read(&tpm, 16, &two_banks, &d),
                    "TPM2_PCR_Read: response parameters are truncated or malformed");
    /* truncated digest, truncated everywhere */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(PCR_READ_16, F(OK_HDR "00000000 " SEL_16 " 00000002 0014 %s 0020 %s",
                                   rep(1, 20), rep(2, 31)));
    expect_fail_msg(tpm2_pcr_read(&tpm, 16, &two_banks, &d), "truncated or malformed");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(PCR_READ_16, OK_HDR "000000");
    expect_fail_msg(tpm2_pcr_read(&tpm, 16, &two_banks, &d), "truncated or malformed");
    /* a byte too many */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(PCR_READ_16, F(OK_HDR "00000000 " SEL_16 " 00000002 0014 %s 0020 %s ff",
                                   rep(1, 20), rep(2, 32)));
    expect_fail_msg(tpm2_pcr_read(&tpm, 16, &two_banks, &d), "1 unexpected bytes");
}

/* ================================ PCR_Extend ================================ */

/* PCR_Extend(16): handle, the 9-byte password session, TPML_DIGEST_VALUES */
#define PCR_EXTEND_16_HEAD "8002 00000057 00000182 00000010 | 00000009 40000009 0000 00 0000"

static struct tpm_digest_list two_digests(void)
{
    struct tpm_digest_list d = { 2, { { TPM_ALG_SHA1, { 0 } }, { TPM_ALG_SHA256, { 0 } } } };
    fill_seq(d.d[0].bytes, 0x20, 20);
    fill_seq(d.d[1].bytes, 0x40, 32);
    return d;
}

static void pcr_extend_exact_bytes(void **state)
{
    (void)state;
    struct tpm_digest_list d = two_digests();
    fake_tpm_expect(F(PCR_EXTEND_16_HEAD "| 00000002 | 0004 %s | 000b %s", seq(0x20, 20),
                      seq(0x40, 32)),
                    "8002 00000013 00000000 | 00000000 | " SESS_OK);
    assert_int_equal(tpm2_pcr_extend(&tpm, 16, &d), 0);
    FAKE_TPM_DONE();

    /* one SHA-512 digest into PCR 23 */
    fake_tpm_reset(&tpm);
    struct tpm_digest_list one = { 1, { { TPM_ALG_SHA512, { 0 } } } };
    fill_seq(one.d[0].bytes, 0, 64);
    fake_tpm_expect(F("8002 00000061 00000182 00000017 00000009 40000009 0000 00 0000"
                      "00000001 000d %s", seq(0, 64)),
                    "8002 SZ 00000000 00000000 0000 00 0000");
    assert_int_equal(tpm2_pcr_extend(&tpm, 23, &one), 0);
    FAKE_TPM_DONE();
}

static void pcr_extend_bad_request(void **state)
{
    (void)state;
    struct tpm_digest_list d = two_digests();
    expect_fail_msg(tpm2_pcr_extend(&tpm, 24, &d),
                    "TPM2_PCR_Extend: bad request (PCR 24, 2 digests)");
    d.count = 0;
    expect_fail_msg(tpm2_pcr_extend(&tpm, 16, &d), "bad request (PCR 16, 0 digests)");
    d.count = TPM_MAX_BANKS + 1;
    expect_fail_msg(tpm2_pcr_extend(&tpm, 16, &d), "bad request (PCR 16, 5 digests)");
    d = two_digests();
    d.d[1].alg = TPM2_ALG_SM3_256;
    expect_fail_msg(tpm2_pcr_extend(&tpm, 16, &d),
                    "TPM2_PCR_Extend: unknown algorithm 0x0012");
    assert_int_equal(fake_tpm_calls(), 0);
}

static void pcr_extend_session_area(void **state)
{
    (void)state;
    struct tpm_digest_list d = two_digests();
    const struct { const char *rsp, *msg; } c[] = {
        /* the success tag of a no-session response */
        { "8001 SZ 00000000", "response tag 0x8001 for command tag 0x8002" },
        /* no parameterSize at all */
        { "8002 SZ 00000000", "parameterSize 0 does not fit a 10-byte response" },
        { "8002 SZ 00000000 0000", "parameterSize 0 does not fit a 12-byte response" },
        /* parameterSize past the end */
        { "8002 SZ 00000000 00000006 0000 01 0000", "parameterSize 6 does not fit a 19-byte" },
        { "8002 SZ 00000000 ffffffff 0000 01 0000", "parameterSize 4294967295 does not fit" },
        /* no session area, a cut one, one byte too many */
        { "8002 SZ 00000000 00000000", "malformed session area after 0 parameter bytes" },
        { "8002 SZ 00000000 00000000 0000 01 00", "malformed session area after 0 parameter" },
        { "8002 SZ 00000000 00000000 0000 01 0000 00", "malformed session area after 0" },
        /* parameterSize reaching into the session area: what is left is no session */
        { "8002 SZ 00000000 00000002 0000 01 0000", "malformed session area after 2" },
        /* a nonce or an HMAC larger than any digest */
        { F("8002 SZ 00000000 00000000 0041 %s 01 0000", rep(1, 65)), "malformed session area" },
        { F("8002 SZ 00000000 00000000 0000 01 0041 %s", rep(1, 65)), "malformed session area" },
        /* parameters where PCR_Extend has none */
        { "8002 SZ 00000000 00000001 ff 0000 01 0000", "1 unexpected bytes after" },
    };
    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        fake_tpm_reset(&tpm);
        fake_tpm_expect(NULL, c[i].rsp);
        assert_int_equal(tpm2_pcr_extend(&tpm, 16, &d), -1);
        assert_contains(tpm.err, "TPM2_PCR_Extend: ");
        assert_contains(tpm.err, c[i].msg);
        FAKE_TPM_DONE();
    }
    /* any well-formed session area: a nonce and an HMAC, as a policy or HMAC session has */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, F("8002 SZ 00000000 00000000 0010 %s 01 0020 %s", rep(1, 16),
                            rep(2, 32)));
    assert_int_equal(tpm2_pcr_extend(&tpm, 16, &d), 0);
    FAKE_TPM_DONE();
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, F("8002 SZ 00000000 00000000 0040 %s 00 0040 %s", rep(1, 64),
                            rep(2, 64)));
    assert_int_equal(tpm2_pcr_extend(&tpm, 16, &d), 0);
    FAKE_TPM_DONE();
}

/* ================================ resending ================================ */

static void resend_on_retry(void **state)
{
    (void)state;
    /* RETRY, YIELDED and TESTING: the same command again, until it is answered */
    fake_tpm_expect("8001 0000000c 00000144 0000", "8001 SZ 00000922");
    fake_tpm_expect("8001 0000000c 00000144 0000", "8001 SZ 00000908");
    fake_tpm_expect("8001 0000000c 00000144 0000", "8001 SZ 0000090a");
    fake_tpm_expect("8001 0000000c 00000144 0000", "8001 SZ 00000000");
    assert_int_equal(tpm2_startup(&tpm, TPM2_SU_CLEAR), 0);
    assert_int_equal(fake_tpm_calls(), 4);
    FAKE_TPM_DONE();
    /* a session command: the error comes with the no-sessions tag, the answer with its own */
    fake_tpm_reset(&tpm);
    uint8_t out[4];
    fake_tpm_expect(F("8002 00000023 0000014e 01200001 01200001 00000009 40000009 0000 00 0000"
                      "0004 0000"), "8001 SZ 00000922");
    fake_tpm_expect(F("8002 00000023 0000014e 01200001 01200001 00000009 40000009 0000 00 0000"
                      "0004 0000"), "8002 SZ 00000000 00000006 0004 01020304 0000 01 0000");
    assert_int_equal(tpm2_nv_read(&tpm, 0x01200001, out, 4), 0);
    assert_memory_equal(out, "\x01\x02\x03\x04", 4);
    FAKE_TPM_DONE();
    /* the answer after a RETRY is checked like any other */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, "8001 SZ 00000922");
    fake_tpm_expect(NULL, "8001 0000000b 00000000");
    expect_fail_msg(tpm2_startup(&tpm, TPM2_SU_CLEAR), "size field 11 but 10 bytes arrived");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, "8001 SZ 00000922");
    fake_tpm_expect_fail(NULL, "TIS: gone");
    expect_fail_msg(tpm2_startup(&tpm, TPM2_SU_CLEAR), "TIS: gone");
    /* other codes are not retried */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, "8001 SZ 00000923");
    assert_int_equal(tpm2_startup(&tpm, TPM2_SU_CLEAR), 0x923);
    FAKE_TPM_DONE();
}

static void resend_gives_up(void **state)
{
    (void)state;
    /* TPM2_MAX_RETRIES sends in all, then the TPM's code */
    for (unsigned i = 0; i < TPM2_MAX_RETRIES; i++)
        fake_tpm_expect("8001 0000000c 0000017b 0010", "8001 SZ 00000922");
    uint8_t out[16];
    assert_int_equal(tpm2_get_random(&tpm, out, 16), TPM2_RC_RETRY);
    assert_contains(tpm.err, "TPM2_GetRandom: TPM returned 0x922");
    assert_int_equal(fake_tpm_calls(), TPM2_MAX_RETRIES);
    FAKE_TPM_DONE();
    /* the last try may still succeed */
    fake_tpm_reset(&tpm);
    for (unsigned i = 0; i + 1 < TPM2_MAX_RETRIES; i++)
        fake_tpm_expect(NULL, "8001 SZ 0000090a");
    fake_tpm_expect(NULL, F(OK_HDR "0010 %s", rep(9, 16)));
    assert_int_equal(tpm2_get_random(&tpm, out, 16), 0);
    assert_int_equal(out[15], 9);
    FAKE_TPM_DONE();
}

/* ================================ GetRandom ================================ */

static void get_random_exact(void **state)
{
    (void)state;
    fake_tpm_expect("8001 0000000c 0000017b 0010", F(OK_HDR "0010 %s", seq(0x61, 16)));
    uint8_t *out = malloc(16);                  /* exactly n: ASan sees any write past it */
    uint8_t want[16];
    fill_seq(want, 0x61, 16);
    assert_int_equal(tpm2_get_random(&tpm, out, 16), 0);
    assert_memory_equal(out, want, 16);
    free(out);
    FAKE_TPM_DONE();
}

static void get_random_chunks(void **state)
{
    (void)state;
    /* 100 bytes: 64 (a digest's worth) and 36; a TPM giving less is asked again */
    fake_tpm_expect("8001 0000000c 0000017b 0040", F(OK_HDR "0040 %s", seq(0, 64)));
    fake_tpm_expect("8001 0000000c 0000017b 0024", F(OK_HDR "0010 %s", seq(64, 16)));
    fake_tpm_expect("8001 0000000c 0000017b 0014", F(OK_HDR "0014 %s", seq(80, 20)));
    uint8_t *out = malloc(100), want[100];
    fill_seq(want, 0, 100);
    assert_int_equal(tpm2_get_random(&tpm, out, 100), 0);
    assert_memory_equal(out, want, 100);
    free(out);
    FAKE_TPM_DONE();
    /* nothing asked: nothing sent */
    fake_tpm_reset(&tpm);
    assert_int_equal(tpm2_get_random(&tpm, NULL, 0), 0);
    assert_int_equal(fake_tpm_calls(), 0);
}

static void get_random_bad(void **state)
{
    (void)state;
    uint8_t out[16];
    fake_tpm_expect(NULL, OK_HDR "0000");
    expect_fail_msg(tpm2_get_random(&tpm, out, 16), "TPM2_GetRandom: 0 bytes for 16 asked");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, F(OK_HDR "0011 %s", rep(1, 17)));
    memset(out, 0xee, sizeof(out));
    expect_fail_msg(tpm2_get_random(&tpm, out, 16), "TPM2_GetRandom: 17 bytes for 16 asked");
    assert_int_equal(out[0], 0xee);             /* nothing copied */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, F(OK_HDR "0041 %s", rep(1, 65)));
    expect_fail_msg(tpm2_get_random(&tpm, out, 16), "response parameters are truncated");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, F(OK_HDR "0010 %s", rep(1, 15)));
    expect_fail_msg(tpm2_get_random(&tpm, out, 16), "truncated or malformed");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NULL, F(OK_HDR "0010 %s 00", rep(1, 16)));
    expect_fail_msg(tpm2_get_random(&tpm, out, 16), "1 unexpected bytes");
    /* a failure in a later chunk: the TPM's code */
    fake_tpm_reset(&tpm);
    uint8_t big[80];
    fake_tpm_expect(NULL, F(OK_HDR "0040 %s", rep(1, 64)));
    fake_tpm_expect("8001 0000000c 0000017b 0010", "8001 SZ 00000101");
    assert_int_equal(tpm2_get_random(&tpm, big, 80), TPM2_RC_FAILURE);
    assert_contains(tpm.err, "TPM2_GetRandom: TPM returned 0x101");
    FAKE_TPM_DONE();
}

/* ================================ NV_ReadPublic ================================ */

#define NV_READ_PUBLIC "8001 0000000e 00000169 01200001"
/* swtpm's answer for a 64-byte ownerwrite|authread|no_da|written index */
#define NV_NAME "0022 000b 53d32fa32d9386c6d1a687bb38914116fca8f7b0d235fdb13370ac7dfd4e419c"

static void nv_read_public_ok(void **state)
{
    (void)state;
    fake_tpm_expect(NV_READ_PUBLIC,
                    OK_HDR "000e | 01200001 000b 22040002 0000 0040 | " NV_NAME);
    uint32_t attrs = 0;
    uint16_t size = 0;
    assert_int_equal(tpm2_nv_read_public(&tpm, 0x01200001, &attrs, &size), 0);
    assert_int_equal(attrs, 0x22040002);
    assert_true(attrs & TPMA_NV_AUTHREAD);
    assert_false(attrs & TPMA_NV_PPWRITE);
    assert_int_equal(size, 64);
    FAKE_TPM_DONE();
    /* with an authPolicy and a SHA-1 name */
    fake_tpm_reset(&tpm);
    fake_tpm_expect("8001 0000000e 00000169 01500010",
                    F(OK_HDR "002e | 01500010 0004 00040001 0020 %s 0804 | 0016 0004 %s",
                      rep(0xaa, 32), rep(0xbb, 20)));
    assert_int_equal(tpm2_nv_read_public(&tpm, 0x01500010, &attrs, &size), 0);
    assert_int_equal(attrs, 0x00040001);
    assert_int_equal(size, 0x804);
    FAKE_TPM_DONE();
}

static void nv_read_public_bad(void **state)
{
    (void)state;
    uint32_t attrs;
    uint16_t size;
    static const struct { const char *rsp, *msg; } c[] = {
        { OK_HDR "000f | 01200001 000b 22040002 0000 0040 | " NV_NAME,
          "public area size 15 does not match its fields" },
        { OK_HDR "000d | 01200001 000b 22040002 0000 0040 | " NV_NAME,
          "public area size 13 does not match" },
        { OK_HDR "000e | 01200002 000b 22040002 0000 0040 | " NV_NAME,
          "asked for 0x01200001, got 0x01200002" },
        { OK_HDR "000e | 01200001 0012 22040002 0000 0040 | " NV_NAME,
          "name algorithm 0x0012" },
        { OK_HDR "000e | 01200001 0010 22040002 0000 0040 | " NV_NAME,
          "name algorithm 0x0010" },
        /* an authPolicy larger than any digest */
        { OK_HDR "004f | 01200001 000b 22040002 0041 " /* 65 bytes follow */
          "0000000000000000000000000000000000000000000000000000000000000000"
          "0000000000000000000000000000000000000000000000000000000000000000 00"
          " 0040 | " NV_NAME, "response parameters are truncated or malformed" },
        /* truncated public area, truncated name, no name */
        { OK_HDR "000e | 01200001 000b 2204", "truncated or malformed" },
        { OK_HDR "000e | 01200001 000b 22040002 0000 0040 | 0022 000b 53d3", "truncated" },
        { OK_HDR "000e | 01200001 000b 22040002 0000 0040", "truncated or malformed" },
        /* a name larger than TPM2B_NAME */
        { OK_HDR "000e | 01200001 000b 22040002 0000 0040 | 0043", "truncated or malformed" },
        { OK_HDR "000e | 01200001 000b 22040002 0000 0040 | " NV_NAME " 00",
          "1 unexpected bytes after the response parameters" },
    };
    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        fake_tpm_reset(&tpm);
        fake_tpm_expect(NV_READ_PUBLIC, c[i].rsp);
        assert_int_equal(tpm2_nv_read_public(&tpm, 0x01200001, &attrs, &size), -1);
        assert_contains(tpm.err, "TPM2_NV_ReadPublic: ");
        assert_contains(tpm.err, c[i].msg);
        FAKE_TPM_DONE();
    }
    /* an index that is not defined: TPM_RC_HANDLE for handle 1 */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(NV_READ_PUBLIC, "8001 0000000a 0000018b");
    assert_int_equal(tpm2_nv_read_public(&tpm, 0x01200001, &attrs, &size), 0x18b);
    assert_contains(tpm.err, "TPM2_NV_ReadPublic: TPM returned 0x18b");
    FAKE_TPM_DONE();
}

/* ================================ NV_Read ================================ */

/* NV_Read(index, auth = the index, password session, size, offset) */
static const char *nv_read_cmd(uint32_t index, uint16_t size, uint16_t off)
{
    return F("8002 00000023 0000014e %08x %08x | 00000009 40000009 0000 00 0000 | %04x %04x",
             index, index, size, off);
}

static const char *nv_read_rsp(const char *data_hex, unsigned n)
{
    return F("8002 SZ 00000000 %08x | %04x %s | " SESS_OK, n + 2, n, data_hex);
}

static void nv_read_one_chunk(void **state)
{
    (void)state;
    fake_tpm_expect(nv_read_cmd(0x01200001, 52, 0), nv_read_rsp(seq(0, 52), 52));
    uint8_t *out = malloc(52), want[52];
    fill_seq(want, 0, 52);
    assert_int_equal(tpm2_nv_read(&tpm, 0x01200001, out, 52), 0);
    assert_memory_equal(out, want, 52);
    free(out);
    FAKE_TPM_DONE();
    /* nothing to read: nothing sent */
    fake_tpm_reset(&tpm);
    assert_int_equal(tpm2_nv_read(&tpm, 0x01200001, NULL, 0), 0);
    assert_int_equal(fake_tpm_calls(), 0);
}

static void nv_read_chunks(void **state)
{
    (void)state;
    /* 1100 bytes: 512 at 0, 512 at 512, 76 at 1024 */
    static uint8_t want[1100];
    for (unsigned i = 0; i < sizeof(want); i++)
        want[i] = (uint8_t)(i * 7 + i / 256);
    char *hex = malloc(2 * sizeof(want) + 1);
    for (unsigned i = 0; i < sizeof(want); i++)
        sprintf(hex + 2 * i, "%02x", want[i]);
    char chunk[1025];
    memcpy(chunk, hex, 1024);
    chunk[1024] = 0;
    fake_tpm_expect(nv_read_cmd(0x01500010, 512, 0), nv_read_rsp(chunk, 512));
    memcpy(chunk, hex + 1024, 1024);
    fake_tpm_expect(nv_read_cmd(0x01500010, 512, 512), nv_read_rsp(chunk, 512));
    fake_tpm_expect(nv_read_cmd(0x01500010, 76, 1024), nv_read_rsp(hex + 2048, 76));
    free(hex);
    uint8_t *out = malloc(sizeof(want));
    assert_int_equal(tpm2_nv_read(&tpm, 0x01500010, out, sizeof(want)), 0);
    assert_memory_equal(out, want, sizeof(want));
    free(out);
    FAKE_TPM_DONE();
}

static void nv_read_bad(void **state)
{
    (void)state;
    uint8_t out[64];
    /* a short chunk */
    fake_tpm_expect(nv_read_cmd(1, 64, 0), nv_read_rsp(rep(1, 63), 63));
    expect_fail_msg(tpm2_nv_read(&tpm, 1, out, 64),
                    "TPM2_NV_Read: 63 bytes at offset 0 for 64 asked");
    /* a short chunk later on */
    fake_tpm_reset(&tpm);
    uint8_t *big = malloc(600);
    fake_tpm_expect(nv_read_cmd(1, 512, 0), nv_read_rsp(rep(1, 512), 512));
    fake_tpm_expect(nv_read_cmd(1, 88, 512), nv_read_rsp("", 0));
    expect_fail_msg(tpm2_nv_read(&tpm, 1, big, 600), "0 bytes at offset 512 for 88 asked");
    free(big);
    /* more than asked: refused before anything is copied past the request */
    fake_tpm_reset(&tpm);
    uint8_t *exact = malloc(8);
    fake_tpm_expect(nv_read_cmd(1, 8, 0), nv_read_rsp(rep(1, 9), 9));
    expect_fail_msg(tpm2_nv_read(&tpm, 1, exact, 8), "response parameters are truncated");
    free(exact);
    /* the session area */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(nv_read_cmd(1, 4, 0), "8002 SZ 00000000 00000006 0004 01020304 0000 01");
    expect_fail_msg(tpm2_nv_read(&tpm, 1, out, 4),
                    "TPM2_NV_Read: malformed session area after 6 parameter bytes");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(nv_read_cmd(1, 4, 0), "8002 SZ 00000000 0000000c 0004 01020304 0000 01 0000");
    expect_fail_msg(tpm2_nv_read(&tpm, 1, out, 4),
                    "TPM2_NV_Read: parameterSize 12 does not fit a 25-byte response");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(nv_read_cmd(1, 4, 0), "8002 SZ 00000000 00000007 0004 01020304 0000 01 0000");
    expect_fail_msg(tpm2_nv_read(&tpm, 1, out, 4),
                    "TPM2_NV_Read: malformed session area after 7 parameter bytes");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(nv_read_cmd(1, 4, 0), "8001 SZ 00000000 0004 01020304");
    expect_fail_msg(tpm2_nv_read(&tpm, 1, out, 4), "response tag 0x8001 for command tag 0x8002");
    /* the TPM says no: TPM_RC_NV_LOCKED, TPM_RC_AUTH_FAIL (session 1) */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(nv_read_cmd(1, 4, 0), "8001 SZ 00000148");
    assert_int_equal(tpm2_nv_read(&tpm, 1, out, 4), TPM2_RC_NV_LOCKED);
    assert_contains(tpm.err, "TPM2_NV_Read: TPM returned 0x148");
    FAKE_TPM_DONE();
    fake_tpm_reset(&tpm);
    fake_tpm_expect(nv_read_cmd(1, 4, 0), "8001 SZ 0000098e");
    assert_int_equal(tpm2_nv_read(&tpm, 1, out, 4), 0x98e);
    FAKE_TPM_DONE();
}

int main(void)
{
#define R(fn) cmocka_unit_test_setup(fn, reset)
    const struct CMUnitTest tests[] = {
        R(digest_sizes_and_names),
        R(startup_clear_and_state),
        R(startup_already_done),
        R(shutdown_clear),
        R(header_short),
        R(header_size_mismatch),
        R(error_with_extra_bytes),
        R(error_code_out_of_int_range),
        R(error_tag_not_checked),
        R(tag_mismatch),
        R(extra_parameters),
        R(transport_failure),
        R(banks_swtpm_default),
        R(banks_filtered),
        R(banks_more_than_max),
        R(banks_malformed),
        R(pcr_read_two_banks),
        R(pcr_read_selection_bits),
        R(pcr_read_bad_request),
        R(pcr_read_different_selection),
        R(pcr_read_digest_problems),
        R(pcr_extend_exact_bytes),
        R(pcr_extend_bad_request),
        R(pcr_extend_session_area),
        R(resend_on_retry),
        R(resend_gives_up),
        R(get_random_exact),
        R(get_random_chunks),
        R(get_random_bad),
        R(nv_read_public_ok),
        R(nv_read_public_bad),
        R(nv_read_one_chunk),
        R(nv_read_chunks),
        R(nv_read_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
