/* SPDX-License-Identifier: MIT */
/*
 * src/tpm/tpm2_seal.c against a scripted TPM (support/fake_tpm): the exact bytes of each
 * command, written here by hand from TPM 2.0 Part 2 and 3 (rev 1.59), the handles parsed out
 * of well-formed responses (laid out as swtpm 0.7.1 answers), and each malformed response
 * refused. The PolicyPCR digest is checked against OpenSSL, computed here from its
 * definition (Part 3, 23.7). tpm/seal_swtpm_test.c runs the same functions against swtpm.
 */
#include "test_common.h"

#include "fake_tpm.h"
#include "openssl_ref.h"
#include "tpm/tpm2_seal.h"

static struct tpm2 tpm;

/* ---- hex composition: every string lives in an arena until the next test starts, so
 * tables of cases can be built from nested calls ---- */

static char arena[1024 * 1024];
static size_t arena_used;

static char *alloc(size_t n)
{
    if (arena_used + n > sizeof(arena))
        fail_msg("test arena full");
    char *p = arena + arena_used;
    arena_used += n;
    return p;
}

static int reset(void **state)
{
    (void)state;
    fake_tpm_reset(&tpm);
    arena_used = 0;
    return 0;
}

static const char *F(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *F(const char *fmt, ...)
{
    static char tmp[4 * TPM2_BUFFER_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof(tmp));
    return memcpy(alloc((size_t)n + 1), tmp, (size_t)n + 1);
}

/* n bytes of value v, as hex */
static const char *rep(uint8_t v, unsigned n)
{
    char *b = alloc(2 * n + 1);
    for (unsigned i = 0; i < n; i++)
        sprintf(b + 2 * i, "%02x", v);
    b[2 * n] = 0;
    return b;
}

/* n bytes counting up from v, as hex */
static const char *seq(uint8_t v, unsigned n)
{
    char *b = alloc(2 * n + 1);
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

/* Bytes in a hex string (spaces and '|' ignored). */
static unsigned nbytes(const char *hex)
{
    unsigned digits = 0;
    for (; *hex; hex++)
        digits += *hex != ' ' && *hex != '|' && *hex != '\n';
    assert_int_equal(digits % 2, 0);
    return digits / 2;
}

/* A session command's success: [handle], parameterSize, the parameters, the session area. */
#define PW_SESSION_RSP "0000 01 0000"             /* password session: nonce, attrs, hmac */
static const char *ok_sessions(const char *handle, const char *params, const char *sess)
{
    return F("8002 SZ 00000000 %s %08x | %s | %s", handle, nbytes(params), params, sess);
}

#define OK_HDR "8001 SZ 00000000"
#define PW_AUTH "00000009 40000009 0000 00 0000"  /* TPM_RS_PW, empty nonce, attrs, password */

static void expect_fail_msg(int rc, const char *msg)
{
    assert_int_equal(rc, -1);
    assert_contains(tpm.err, msg);
    FAKE_TPM_DONE();
}

/* ================================ the policy digest ================================ */

/*
 * TPM2_PolicyPCR from an empty policy, built here byte by byte:
 * SHA-256(00*32 || TPM_CC_PolicyPCR (0000017f) || TPML_PCR_SELECTION {count 00000001,
 * hash, sizeofSelect 03, pcrSelect[3]} || SHA-256(the values, in PCR order)).
 */
static void ref_policy_pcr(uint16_t bank, const uint8_t sel[3], const uint8_t *values,
                           size_t values_len, uint8_t out[32])
{
    uint8_t buf[32 + 4 + 10 + 32] = { 0 };
    size_t n = 32;
    buf[n++] = 0x00;
    buf[n++] = 0x00;
    buf[n++] = 0x01;
    buf[n++] = 0x7f;
    buf[n++] = 0;
    buf[n++] = 0;
    buf[n++] = 0;
    buf[n++] = 1;
    buf[n++] = (uint8_t)(bank >> 8);
    buf[n++] = (uint8_t)bank;
    buf[n++] = 3;
    buf[n++] = sel[0];
    buf[n++] = sel[1];
    buf[n++] = sel[2];
    ref_hash(TPM_ALG_SHA256, values, values_len, buf + n);
    n += 32;
    assert_int_equal(n, sizeof(buf));
    ref_hash(TPM_ALG_SHA256, buf, n, out);
}

static void assert_hex(const uint8_t *b, size_t n, const char *hex)
{
    char got[200];
    for (size_t i = 0; i < n; i++)
        sprintf(got + 2 * i, "%02x", b[i]);
    got[2 * n] = 0;
    assert_string_equal(got, hex);
}

static void policy_digest_pcr17_18(void **state)
{
    (void)state;
    static const unsigned pcrs[] = { 17, 18 };
    static const uint8_t sel[3] = { 0x00, 0x00, 0x06 };
    uint8_t values[64], got[32], want[32];
    /* as they are before any launch (all ones) ... */
    memset(values, 0xff, sizeof(values));
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, pcrs, 2, values, got);
    ref_policy_pcr(TPM_ALG_SHA256, sel, values, 64, want);
    assert_memory_equal(got, want, 32);
    /* and what tpm2-tools 5.4 computes for them: `tpm2_createpolicy --policy-pcr
     * -l sha256:17,18` on a fresh swtpm (a trial session) */
    assert_hex(got, 32, "423263242caa015440ade995c4b973ca5926efbd68923b63b38f7e0aba00a836");
}

static void policy_digest_values_and_banks(void **state)
{
    (void)state;
    uint8_t values[3 * 64], got[32], want[32];
    for (unsigned i = 0; i < sizeof(values); i++)
        values[i] = (uint8_t)(i * 37 + 5);
    static const struct {
        uint16_t bank;
        unsigned n, pcrs[3];
        uint8_t sel[3];
    } c[] = {
        { TPM_ALG_SHA256, 2, { 17, 18 }, { 0x00, 0x00, 0x06 } },
        { TPM_ALG_SHA256, 2, { 16, 23 }, { 0x00, 0x00, 0x81 } },
        { TPM_ALG_SHA256, 1, { 0 }, { 0x01, 0x00, 0x00 } },
        { TPM_ALG_SHA256, 3, { 0, 7, 8 }, { 0x81, 0x01, 0x00 } },
        /* other banks: the values have the bank's size, the digest stays SHA-256 (the
         * session's hash) */
        { TPM_ALG_SHA1, 2, { 17, 18 }, { 0x00, 0x00, 0x06 } },
        { TPM_ALG_SHA384, 2, { 17, 18 }, { 0x00, 0x00, 0x06 } },
        { TPM_ALG_SHA512, 3, { 15, 16, 17 }, { 0x00, 0x80, 0x03 } },
    };
    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        size_t len = c[i].n * ref_digest_size(c[i].bank);
        memset(got, 0, sizeof(got));
        tpm2_policy_pcr_digest(c[i].bank, c[i].pcrs, c[i].n, values, got);
        ref_policy_pcr(c[i].bank, c[i].sel, values, len, want);
        if (memcmp(got, want, 32))
            fail_msg("case %u: the policy digest differs from OpenSSL's", i);
    }
    /* every value byte counts, and the order of the values does */
    uint8_t a[32], b[32];
    static const unsigned two[] = { 17, 18 };
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, two, 2, values, a);
    values[63] ^= 1;
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, two, 2, values, b);
    assert_memory_not_equal(a, b, 32);
    values[63] ^= 1;
    uint8_t swapped[64];
    memcpy(swapped, values + 32, 32);
    memcpy(swapped + 32, values, 32);
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, two, 2, swapped, b);
    assert_memory_not_equal(a, b, 32);
    /* the bank is part of the digest even when the values are the same bytes */
    uint8_t s384[32];
    tpm2_policy_pcr_digest(TPM_ALG_SHA1, (const unsigned[]){ 17 }, 1, values, a);
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, (const unsigned[]){ 17 }, 1, values, b);
    tpm2_policy_pcr_digest(TPM_ALG_SHA384, (const unsigned[]){ 17 }, 1, values, s384);
    assert_memory_not_equal(a, b, 32);
    assert_memory_not_equal(b, s384, 32);
}

/* ================================ CreatePrimary ================================ */

/*
 * TPM2_CreatePrimary(TPM_RH_ENDORSEMENT, password session): inSensitive {size 4, empty userAuth,
 * empty data}; inPublic {size 0x1a, TPM_ALG_ECC, nameAlg SHA-256, fixedTPM | fixedParent |
 * sensitiveDataOrigin | userWithAuth | noDA | restricted | decrypt (0x00030472), empty
 * authPolicy, symmetric AES 128 CFB, scheme NULL, curve NIST P-256, kdf NULL, unique empty x
 * and y}; empty outsideInfo; creationPCR count 0.
 */
#define CREATE_PRIMARY "8002 00000043 00000131 | 4000000b | " PW_AUTH " | 0004 0000 0000 |"    \
                       "001a 0023 000b 00030472 0000 0006 0080 0043 0010 0003 0010 0000 0000 |" \
                       "0000 | 00000000"

/* outPublic of an ECC P-256 storage key, as swtpm returns it (x and y filled in) */
static const char *ecc_public(void)
{
    return F("005a 0023 000b 00030472 0000 0006 0080 0043 0010 0003 0010 0020 %s 0020 %s",
             seq(0x10, 32), seq(0x30, 32));
}

/* creationData (swtpm's layout: no PCRs, locality 0, parent name TPM_RH_ENDORSEMENT), creationHash
 * and creationTicket (swtpm's ticket digest is 64 bytes) */
static const char *creation(void)
{
    return F("0037 00000000 0020 %s 01 0010 0004 4000000b 0004 4000000b 0000 | 0020 %s |"
             "8021 4000000b 0040 %s", rep(0xc1, 32), rep(0xc2, 32), rep(0xc3, 64));
}

static const char *key_name(void)
{
    return F("0022 000b %s", seq(0x90, 32));
}

static void create_primary_exact(void **state)
{
    (void)state;
    fake_tpm_expect(CREATE_PRIMARY,
                    ok_sessions("80000000", F("%s | %s | %s", ecc_public(), creation(),
                                              key_name()), PW_SESSION_RSP));
    uint32_t h = 0xdeadbeef;
    assert_int_equal(tpm2_create_storage_primary(&tpm, &h), 0);
    assert_int_equal(h, 0x80000000);
    FAKE_TPM_DONE();
    /* the handle is whatever the TPM says */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(CREATE_PRIMARY,
                    ok_sessions("80fffffe", F("%s | %s | %s", ecc_public(), creation(),
                                              key_name()), PW_SESSION_RSP));
    assert_int_equal(tpm2_create_storage_primary(&tpm, &h), 0);
    assert_int_equal(h, 0x80fffffe);
    FAKE_TPM_DONE();
}

static void create_primary_swtpm_answer(void **state)
{
    (void)state;
    /* swtpm 0.7.1's whole answer, recorded (tpm/seal_swtpm_test.c makes the same call) */
    fake_tpm_expect(CREATE_PRIMARY,
        "80020000013a000000008000000000000123005a0023000b00030472000000060080004300100003001000"
        "2063883c1da89d5a8d173ecaa996a56f473e255c0234691460b1349fd2d960809b002073fe4bd56ac5039e"
        "f3c109b6680226d1335e3932e4d8f2489ac2809751dc0a2e0037000000000020e3b0c44298fc1c149afbf4"
        "c8996fb92427ae41e4649b934ca495991b7852b85501001000044000000b00044000000b0000002028d026"
        "fafd749106743e27c4280551585e5d17668eb521835ed60127effc05d480214000000b004007d489f03050"
        "0d4bb6e5d858a1e4114185918e65db42ffc64209aa3c33105972979bf60640328928b88418c0400c257f14"
        "1a767f86ce1514a688c11a73dc28380022000b1cf2db184bfb1d43e00c45c451c41cfe51e030c39fc58de9"
        "be69535bf2bd15be0000010000");
    uint32_t h = 0;
    assert_int_equal(tpm2_create_storage_primary(&tpm, &h), 0);
    assert_int_equal(h, 0x80000000);
    FAKE_TPM_DONE();
}

static void create_primary_malformed(void **state)
{
    (void)state;
    const char *pub = ecc_public(), *cre = creation(), *name = key_name();
    const char *cases[][2] = {
        /* no handle, no parameterSize */
        { "8002 SZ 00000000", "TPM2_CreatePrimary: response has no handle" },
        { "8002 SZ 00000000 8000", "TPM2_CreatePrimary: response has no handle" },
        { "8002 SZ 00000000 80000000", "TPM2_CreatePrimary: parameterSize 0 does not fit" },
        /* outPublic longer than what follows */
        { ok_sessions("80000000", "005b 0023 000b 00030472", PW_SESSION_RSP),
          "TPM2_CreatePrimary: response parameters are truncated or malformed" },
        { ok_sessions("80000000", F("%s", pub), PW_SESSION_RSP), "truncated or malformed" },
        /* creation data cut: in its size, in its body, no creationHash, ticket cut at each
         * field, ticket digest short */
        { ok_sessions("80000000", F("%s 00", pub), PW_SESSION_RSP), "truncated or malformed" },
        { ok_sessions("80000000", F("%s 0037 00000000 0020", pub), PW_SESSION_RSP),
          "truncated or malformed" },
        { ok_sessions("80000000", F("%s 0037 00000000 0020 %s 01 0010 0004 4000000b 0004 "
                                    "4000000b 0000", pub, rep(0xc1, 32)), PW_SESSION_RSP),
          "truncated or malformed" },
        { ok_sessions("80000000", F("%s 0037 00000000 0020 %s 01 0010 0004 4000000b 0004 "
                                    "4000000b 0000 0020 %s 80", pub, rep(0xc1, 32),
                                    rep(0xc2, 32)), PW_SESSION_RSP), "truncated or malformed" },
        { ok_sessions("80000000", F("%s 0037 00000000 0020 %s 01 0010 0004 4000000b 0004 "
                                    "4000000b 0000 0020 %s 8021 400000", pub, rep(0xc1, 32),
                                    rep(0xc2, 32)), PW_SESSION_RSP), "truncated or malformed" },
        { ok_sessions("80000000", F("%s 0037 00000000 0020 %s 01 0010 0004 4000000b 0004 "
                                    "4000000b 0000 0020 %s 8021 4000000b 0040 %s", pub,
                                    rep(0xc1, 32), rep(0xc2, 32), rep(0xc3, 63)),
                      PW_SESSION_RSP), "truncated or malformed" },
        /* no name, a name cut short */
        { ok_sessions("80000000", F("%s %s", pub, cre), PW_SESSION_RSP),
          "truncated or malformed" },
        { ok_sessions("80000000", F("%s %s 0022 000b %s", pub, cre, seq(0x90, 31)),
                      PW_SESSION_RSP), "truncated or malformed" },
        /* a byte after the name */
        { ok_sessions("80000000", F("%s %s %s 00", pub, cre, name), PW_SESSION_RSP),
          "TPM2_CreatePrimary: 1 unexpected bytes after the response parameters" },
        /* the session area */
        { F("8002 SZ 00000000 80000000 %08x %s %s %s 0000 01", nbytes(pub) + nbytes(cre) +
            nbytes(name), pub, cre, name),
          "TPM2_CreatePrimary: malformed session area after" },
        { F("8001 SZ 00000000 80000000 %s %s %s", pub, cre, name),
          "TPM2_CreatePrimary: response tag 0x8001 for command tag 0x8002" },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fake_tpm_reset(&tpm);
        fake_tpm_expect(CREATE_PRIMARY, cases[i][0]);
        uint32_t h;
        assert_int_equal(tpm2_create_storage_primary(&tpm, &h), -1);
        if (!strstr(tpm.err, cases[i][1]))
            fail_msg("case %u: \"%s\" does not contain \"%s\"", i, tpm.err, cases[i][1]);
        FAKE_TPM_DONE();
    }
}

static void create_primary_refused(void **state)
{
    (void)state;
    /* TPM_RC_BAD_AUTH for session 1 (an endorsement password is set): the TPM's code */
    fake_tpm_expect(CREATE_PRIMARY, "8001 SZ 000009a2");
    uint32_t h = 7;
    assert_int_equal(tpm2_create_storage_primary(&tpm, &h), 0x9a2);
    assert_string_equal(tpm.err, "TPM2_CreatePrimary: TPM returned 0x9a2");
    assert_int_equal(h, 7);
    FAKE_TPM_DONE();
}

/* ================================ Create (seal) ================================ */

/*
 * TPM2_Create(parent, password session): inSensitive {size 4 + len, empty userAuth, data};
 * inPublic {size 0x2e, TPM_ALG_KEYEDHASH, nameAlg SHA-256, fixedTPM | fixedParent | noDA
 * (0x00000412: no userWithAuth, no sensitiveDataOrigin), authPolicy (32 bytes), scheme NULL,
 * unique empty}; empty outsideInfo; creationPCR count 0.
 */
static const char *create_cmd(uint32_t parent, const char *policy_hex, const char *data_hex,
                              unsigned len)
{
    return F("8002 %08x 00000153 | %08x | " PW_AUTH " | %04x 0000 %04x %s |"
             "002e 0008 000b 00000412 0020 %s 0010 0000 | 0000 | 00000000",
             87 + len, parent, 4 + len, len, data_hex, policy_hex);
}

/* outPublic of the sealed object as the TPM returns it (unique = a 32-byte digest) */
static const char *sealed_public(const char *policy_hex)
{
    return F("004e 0008 000b 00000412 0020 %s 0010 0020 %s", policy_hex, rep(0x77, 32));
}

static const char *create_rsp(const char *private_hex, unsigned private_len,
                              const char *public_hex)
{
    return ok_sessions("", F("%04x %s | %s | %s", private_len, private_hex, public_hex,
                             creation()), PW_SESSION_RSP);
}

static void seal_exact(void **state)
{
    (void)state;
    uint8_t policy[32], data[TPM2_SEAL_MAX];
    fill_seq(policy, 0xa0, 32);
    fill_seq(data, 0, sizeof(data));
    static struct tpm2_sealed s;
    /* 128 bytes (the most), swtpm's private area size for them (254) */
    fake_tpm_expect(create_cmd(0x80000000, seq(0xa0, 32), seq(0, 128), 128),
                    create_rsp(seq(0x40, 254), 254, sealed_public(seq(0xa0, 32))));
    memset(&s, 0xee, sizeof(s));
    assert_int_equal(tpm2_seal(&tpm, 0x80000000, policy, data, 128, &s), 0);
    FAKE_TPM_DONE();
    uint8_t want[254];
    fill_seq(want, 0x40, 254);
    assert_int_equal(s.private_size, 254);
    assert_memory_equal(s.private_area, want, 254);
    assert_int_equal(s.public_size, 0x4e);
    uint8_t pub[0x50];
    assert_int_equal(fake_tpm_unhex(sealed_public(seq(0xa0, 32)), pub, sizeof(pub)), 0x50);
    assert_memory_equal(s.public_area, pub + 2, 0x4e);
    /* one byte, another parent */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(create_cmd(0x80000003, seq(0xa0, 32), "5a", 1),
                    create_rsp(seq(0x40, 0x7f), 0x7f, sealed_public(seq(0xa0, 32))));
    assert_int_equal(tpm2_seal(&tpm, 0x80000003, policy, "\x5a", 1, &s), 0);
    assert_int_equal(s.private_size, 0x7f);
    FAKE_TPM_DONE();
}

static void seal_sizes_refused_locally(void **state)
{
    (void)state;
    uint8_t policy[32] = { 0 }, data[TPM2_SEAL_MAX + 1] = { 0 };
    static struct tpm2_sealed s;
    expect_fail_msg(tpm2_seal(&tpm, 0x80000000, policy, data, 0, &s),
                    "TPM2_Create: 0 bytes to seal (1..128)");
    expect_fail_msg(tpm2_seal(&tpm, 0x80000000, policy, data, TPM2_SEAL_MAX + 1, &s),
                    "TPM2_Create: 129 bytes to seal (1..128)");
    expect_fail_msg(tpm2_seal(&tpm, 0x80000000, policy, data, 0xffff, &s),
                    "TPM2_Create: 65535 bytes to seal");
    assert_int_equal(fake_tpm_calls(), 0);
}

static void seal_output_sizes(void **state)
{
    (void)state;
    uint8_t policy[32] = { 0 };
    struct tpm2_sealed *s = malloc(sizeof(*s));
    const char *pol = rep(0, 32);
    const char *cmd = create_cmd(0x80000000, pol, "01", 1);
    /* the largest areas that fit the blob */
    fake_tpm_expect(cmd, create_rsp(rep(0x11, TPM2_SEALED_PRIVATE_MAX), TPM2_SEALED_PRIVATE_MAX,
                                    F("0100 %s", rep(0x22, TPM2_SEALED_PUBLIC_MAX))));
    assert_int_equal(tpm2_seal(&tpm, 0x80000000, policy, "\x01", 1, s), 0);
    assert_int_equal(s->private_size, TPM2_SEALED_PRIVATE_MAX);
    assert_int_equal(s->public_size, TPM2_SEALED_PUBLIC_MAX);
    assert_int_equal(s->private_area[TPM2_SEALED_PRIVATE_MAX - 1], 0x11);
    assert_int_equal(s->public_area[TPM2_SEALED_PUBLIC_MAX - 1], 0x22);
    FAKE_TPM_DONE();
    /* a byte more in either: refused, nothing written past the area */
    memset(s, 0, sizeof(*s));
    fake_tpm_reset(&tpm);
    fake_tpm_expect(cmd, create_rsp(rep(0x11, TPM2_SEALED_PRIVATE_MAX + 1),
                                    TPM2_SEALED_PRIVATE_MAX + 1, sealed_public(pol)));
    expect_fail_msg(tpm2_seal(&tpm, 0x80000000, policy, "\x01", 1, s),
                    "TPM2_Create: response parameters are truncated or malformed");
    assert_int_equal(s->private_size, 0);
    assert_int_equal(s->public_size, 0);
    fake_tpm_reset(&tpm);
    fake_tpm_expect(cmd, create_rsp(rep(0x11, 16), 16,
                                    F("0101 %s", rep(0x22, TPM2_SEALED_PUBLIC_MAX + 1))));
    expect_fail_msg(tpm2_seal(&tpm, 0x80000000, policy, "\x01", 1, s),
                    "TPM2_Create: response parameters are truncated or malformed");
    assert_int_equal(s->public_size, 0);
    free(s);
}

static void seal_malformed(void **state)
{
    (void)state;
    uint8_t policy[32] = { 0 };
    static struct tpm2_sealed s;
    const char *pol = rep(0, 32), *pub = sealed_public(pol);
    const char *priv = F("0010 %s", rep(0x11, 16));
    const char *cases[][2] = {
        /* nothing, a private area cut short, no public area, public cut short */
        { ok_sessions("", "", PW_SESSION_RSP), "TPM2_Create: response parameters are truncated" },
        { ok_sessions("", F("0010 %s", rep(0x11, 15)), PW_SESSION_RSP), "truncated" },
        { ok_sessions("", priv, PW_SESSION_RSP), "truncated or malformed" },
        { ok_sessions("", F("%s 004e 0008 000b", priv), PW_SESSION_RSP), "truncated" },
        /* creation data missing, cut, creationHash missing, ticket cut */
        { ok_sessions("", F("%s %s", priv, pub), PW_SESSION_RSP), "truncated or malformed" },
        { ok_sessions("", F("%s %s 0037 0000", priv, pub), PW_SESSION_RSP), "truncated" },
        { ok_sessions("", F("%s %s 0000", priv, pub), PW_SESSION_RSP), "truncated" },
        { ok_sessions("", F("%s %s 0000 0000", priv, pub), PW_SESSION_RSP), "truncated" },
        { ok_sessions("", F("%s %s 0000 0000 8021 4000000b", priv, pub), PW_SESSION_RSP),
          "truncated or malformed" },
        { ok_sessions("", F("%s %s 0000 0000 8021 4000000b 0040 %s", priv, pub, rep(0, 63)),
                      PW_SESSION_RSP), "truncated or malformed" },
        /* after the ticket */
        { ok_sessions("", F("%s %s 0000 0000 8021 4000000b 0000 0000", priv, pub),
                      PW_SESSION_RSP),
          "TPM2_Create: 2 unexpected bytes after the response parameters" },
        /* no session area */
        { F("8002 SZ 00000000 %08x %s %s 0000 0000 8021 4000000b 0000", 18 + 0x50 + 12,
            priv, pub), "TPM2_Create: malformed session area after 110 parameter bytes" },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fake_tpm_reset(&tpm);
        fake_tpm_expect(create_cmd(0x80000000, pol, "01", 1), cases[i][0]);
        assert_int_equal(tpm2_seal(&tpm, 0x80000000, policy, "\x01", 1, &s), -1);
        if (!strstr(tpm.err, cases[i][1]))
            fail_msg("case %u: \"%s\" does not contain \"%s\"", i, tpm.err, cases[i][1]);
        FAKE_TPM_DONE();
    }
    /* the smallest well-formed answer (empty creation data, empty ticket) is fine */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(create_cmd(0x80000000, pol, "01", 1),
                    ok_sessions("", F("%s %s 0000 0000 8021 4000000b 0000", priv, pub),
                                PW_SESSION_RSP));
    assert_int_equal(tpm2_seal(&tpm, 0x80000000, policy, "\x01", 1, &s), 0);
    FAKE_TPM_DONE();
    /* the TPM's refusal: TPM_RC_HANDLE for handle 1 (no such parent) */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(create_cmd(0x80000000, pol, "01", 1), "8001 SZ 0000018b");
    assert_int_equal(tpm2_seal(&tpm, 0x80000000, policy, "\x01", 1, &s), 0x18b);
    assert_string_equal(tpm.err, "TPM2_Create: TPM returned 0x18b");
    FAKE_TPM_DONE();
}

/* ================================ Load ================================ */

static const char *load_cmd(uint32_t parent, const char *priv, unsigned priv_len,
                            const char *pub, unsigned pub_len)
{
    return F("8002 %08x 00000157 | %08x | " PW_AUTH " | %04x %s | %04x %s",
             10 + 4 + 13 + 2 + priv_len + 2 + pub_len, parent, priv_len, priv, pub_len, pub);
}

static void load_exact(void **state)
{
    (void)state;
    struct tpm2_sealed *s = malloc(sizeof(*s));
    memset(s, 0xee, sizeof(*s));
    s->private_size = 254;
    fill_seq(s->private_area, 0x40, 254);
    s->public_size = 0x4e;
    fill_seq(s->public_area, 0x80, 0x4e);
    fake_tpm_expect(load_cmd(0x80000000, seq(0x40, 254), 254, seq(0x80, 0x4e), 0x4e),
                    ok_sessions("80000001", F("0022 000b %s", seq(0x55, 32)), PW_SESSION_RSP));
    uint32_t h = 0;
    assert_int_equal(tpm2_load(&tpm, 0x80000000, s, &h), 0);
    assert_int_equal(h, 0x80000001);
    FAKE_TPM_DONE();
    /* the largest areas; only the stated sizes are sent */
    s->private_size = TPM2_SEALED_PRIVATE_MAX;
    s->public_size = TPM2_SEALED_PUBLIC_MAX;
    memset(s->private_area, 0x12, TPM2_SEALED_PRIVATE_MAX);
    memset(s->public_area, 0x34, TPM2_SEALED_PUBLIC_MAX);
    fake_tpm_reset(&tpm);
    fake_tpm_expect(load_cmd(0x81000001, rep(0x12, 512), 512, rep(0x34, 256), 256),
                    ok_sessions("80000002", F("0022 000b %s", seq(0x55, 32)), PW_SESSION_RSP));
    assert_int_equal(tpm2_load(&tpm, 0x81000001, s, &h), 0);
    assert_int_equal(h, 0x80000002);
    FAKE_TPM_DONE();
    free(s);
}

static void load_bad(void **state)
{
    (void)state;
    static struct tpm2_sealed s;
    uint32_t h = 5;
    /* sizes the blob cannot hold (a corrupted blob): refused before anything is sent */
    s.private_size = TPM2_SEALED_PRIVATE_MAX + 1;
    s.public_size = 0x4e;
    expect_fail_msg(tpm2_load(&tpm, 0x80000000, &s, &h),
                    "TPM2_Load: sealed object sizes 513/78 are out of range");
    s.private_size = 0xfe;
    s.public_size = TPM2_SEALED_PUBLIC_MAX + 1;
    expect_fail_msg(tpm2_load(&tpm, 0x80000000, &s, &h),
                    "TPM2_Load: sealed object sizes 254/257 are out of range");
    assert_int_equal(fake_tpm_calls(), 0);
    assert_int_equal(h, 5);

    s.private_size = 4;
    s.public_size = 2;
    const char *cmd = load_cmd(0x80000000, "00000000", 4, "0000", 2);
    const char *cases[][2] = {
        { "8002 SZ 00000000", "TPM2_Load: response has no handle" },
        { "8002 SZ 00000000 800000", "TPM2_Load: response has no handle" },
        { ok_sessions("80000001", "", PW_SESSION_RSP),
          "TPM2_Load: response parameters are truncated or malformed" },
        { ok_sessions("80000001", F("0022 000b %s", seq(0x55, 31)), PW_SESSION_RSP),
          "truncated or malformed" },
        { ok_sessions("80000001", F("0022 000b %s 00", seq(0x55, 32)), PW_SESSION_RSP),
          "TPM2_Load: 1 unexpected bytes after the response parameters" },
        { F("8002 SZ 00000000 80000001 00000024 0022 000b %s", seq(0x55, 32)),
          "TPM2_Load: malformed session area after 36 parameter bytes" },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fake_tpm_reset(&tpm);
        fake_tpm_expect(cmd, cases[i][0]);
        assert_int_equal(tpm2_load(&tpm, 0x80000000, &s, &h), -1);
        if (!strstr(tpm.err, cases[i][1]))
            fail_msg("case %u: \"%s\" does not contain \"%s\"", i, tpm.err, cases[i][1]);
        FAKE_TPM_DONE();
    }
    /* a blob that does not belong to this parent (or was changed): TPM_RC_INTEGRITY for
     * parameter 1, what swtpm answers (tpm/seal_swtpm_test.c) */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(cmd, "8001 SZ 000001df");
    assert_int_equal(tpm2_load(&tpm, 0x80000000, &s, &h), 0x1df);
    assert_string_equal(tpm.err, "TPM2_Load: TPM returned 0x1df");
    FAKE_TPM_DONE();
}

/* ================================ StartAuthSession ================================ */

/* tpmKey TPM_RH_NULL, bind TPM_RH_NULL, nonceCaller 16 zero bytes, no salt, TPM_SE_POLICY,
 * symmetric TPM_ALG_NULL, authHash SHA-256 */
#define START_POLICY_SESSION "8001 0000002b 00000176 | 40000007 40000007 |"                 \
                             "0010 00000000000000000000000000000000 | 0000 | 01 | 0010 | 000b"

static void start_policy_session_exact(void **state)
{
    (void)state;
    fake_tpm_expect(START_POLICY_SESSION, F(OK_HDR "03000000 0010 %s", seq(0xd0, 16)));
    uint32_t h = 0;
    assert_int_equal(tpm2_start_policy_session(&tpm, &h), 0);
    assert_int_equal(h, 0x03000000);
    FAKE_TPM_DONE();
    /* a larger nonceTPM (a TPM may give the digest size) */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(START_POLICY_SESSION, F(OK_HDR "03000002 0020 %s", seq(0xd0, 32)));
    assert_int_equal(tpm2_start_policy_session(&tpm, &h), 0);
    assert_int_equal(h, 0x03000002);
    FAKE_TPM_DONE();
}

static void start_policy_session_bad(void **state)
{
    (void)state;
    uint32_t h;
    const char *cases[][2] = {
        { OK_HDR, "TPM2_StartAuthSession: response has no handle" },
        { OK_HDR "0300", "TPM2_StartAuthSession: response has no handle" },
        { OK_HDR "03000000", "TPM2_StartAuthSession: response parameters are truncated" },
        { F(OK_HDR "03000000 0010 %s", seq(0, 15)), "truncated or malformed" },
        { F(OK_HDR "03000000 0010 %s 00", seq(0, 16)),
          "TPM2_StartAuthSession: 1 unexpected bytes after the response parameters" },
        { F("8002 SZ 00000000 03000000 00000012 0010 %s 0000 01 0000", seq(0, 16)),
          "TPM2_StartAuthSession: response tag 0x8002 for command tag 0x8001" },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fake_tpm_reset(&tpm);
        fake_tpm_expect(START_POLICY_SESSION, cases[i][0]);
        assert_int_equal(tpm2_start_policy_session(&tpm, &h), -1);
        if (!strstr(tpm.err, cases[i][1]))
            fail_msg("case %u: \"%s\" does not contain \"%s\"", i, tpm.err, cases[i][1]);
        FAKE_TPM_DONE();
    }
    /* out of session slots: TPM_RC_SESSION_HANDLES (0x905), a warning, not resent */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(START_POLICY_SESSION, "8001 SZ 00000905");
    assert_int_equal(tpm2_start_policy_session(&tpm, &h), 0x905);
    assert_string_equal(tpm.err, "TPM2_StartAuthSession: TPM returned 0x905");
    FAKE_TPM_DONE();
}

/* ================================ PolicyPCR ================================ */

/* policySession, pcrDigest empty (the TPM's current values), TPML_PCR_SELECTION */
static const char *policy_pcr_cmd(uint32_t session, uint16_t bank, const char *sel)
{
    return F("8001 0000001a 0000017f | %08x | 0000 | 00000001 %04x 03 %s", session, bank, sel);
}

static void policy_pcr_exact(void **state)
{
    (void)state;
    static const unsigned p1718[] = { 17, 18 }, p1623[] = { 16, 23 }, p078[] = { 0, 7, 8 };
    fake_tpm_expect(policy_pcr_cmd(0x03000000, TPM_ALG_SHA256, "000006"), OK_HDR);
    assert_int_equal(tpm2_policy_pcr(&tpm, 0x03000000, TPM_ALG_SHA256, p1718, 2), 0);
    FAKE_TPM_DONE();
    fake_tpm_reset(&tpm);
    fake_tpm_expect(policy_pcr_cmd(0x03000001, TPM_ALG_SHA1, "000081"), OK_HDR);
    assert_int_equal(tpm2_policy_pcr(&tpm, 0x03000001, TPM_ALG_SHA1, p1623, 2), 0);
    FAKE_TPM_DONE();
    fake_tpm_reset(&tpm);
    fake_tpm_expect(policy_pcr_cmd(0x03000000, TPM_ALG_SHA384, "810100"), OK_HDR);
    assert_int_equal(tpm2_policy_pcr(&tpm, 0x03000000, TPM_ALG_SHA384, p078, 3), 0);
    FAKE_TPM_DONE();
}

static void policy_pcr_bad(void **state)
{
    (void)state;
    static const unsigned p1718[] = { 17, 18 };
    const char *cmd = policy_pcr_cmd(0x03000000, TPM_ALG_SHA256, "000006");
    fake_tpm_expect(cmd, OK_HDR "00");
    expect_fail_msg(tpm2_policy_pcr(&tpm, 0x03000000, TPM_ALG_SHA256, p1718, 2),
                    "TPM2_PolicyPCR: 1 unexpected bytes after the response parameters");
    fake_tpm_reset(&tpm);
    fake_tpm_expect(cmd, "8002 SZ 00000000 00000000 0000 01 0000");
    expect_fail_msg(tpm2_policy_pcr(&tpm, 0x03000000, TPM_ALG_SHA256, p1718, 2),
                    "TPM2_PolicyPCR: response tag 0x8002 for command tag 0x8001");
    /* a bank the TPM does not have: TPM_RC_HASH for parameter 2 */
    fake_tpm_reset(&tpm);
    fake_tpm_expect(cmd, "8001 SZ 000002c3");
    assert_int_equal(tpm2_policy_pcr(&tpm, 0x03000000, TPM_ALG_SHA256, p1718, 2), 0x2c3);
    assert_string_equal(tpm.err, "TPM2_PolicyPCR: TPM returned 0x2c3");
    FAKE_TPM_DONE();
}

static void policy_pcr_out_of_range(void **state)
{
    (void)state;
    /* there is no PCR 24 (or 255) to select: refused, never written past the 3-byte bitmap */
    static const unsigned p24[] = { 17, 24 }, p255[] = { 255 };
    expect_fail_msg(tpm2_policy_pcr(&tpm, 0x03000000, TPM_ALG_SHA256, p24, 2),
                    "TPM2_PolicyPCR: no PCR 24");
    expect_fail_msg(tpm2_policy_pcr(&tpm, 0x03000000, TPM_ALG_SHA256, p255, 1),
                    "TPM2_PolicyPCR: no PCR 255");
    /* nothing selected would bind the secret to nothing */
    expect_fail_msg(tpm2_policy_pcr(&tpm, 0x03000000, TPM_ALG_SHA256, p24, 0),
                    "TPM2_PolicyPCR: no PCRs selected");
    assert_int_equal(fake_tpm_calls(), 0);
    /* the digest function leaves such PCRs out of the selection instead of overrunning */
    uint8_t values[64] = { 0 }, got[32], want[32];
    static const unsigned p17[] = { 17 };
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, p255, 1, values, got);
    ref_policy_pcr(TPM_ALG_SHA256, (const uint8_t[3]){ 0, 0, 0 }, values, 32, want);
    assert_memory_equal(got, want, 32);
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, p17, 1, values, got);
    assert_memory_not_equal(got, want, 32);
}

/* ================================ Unseal ================================ */

/* itemHandle, then the policy session in the authorisation area (no nonce, no attributes:
 * continueSession clear, empty hmac) */
#define UNSEAL "8002 0000001b 0000015e | 80000001 | 00000009 03000000 0000 00 0000"
/* a policy session's response: nonceTPM (16 bytes), attributes 0, empty hmac */
static const char *policy_session_rsp(void)
{
    return F("0010 %s 00 0000", seq(0xe0, 16));
}

static void unseal_exact(void **state)
{
    (void)state;
    uint8_t *out = malloc(TPM2_SEAL_MAX), want[TPM2_SEAL_MAX];
    fill_seq(want, 0x20, TPM2_SEAL_MAX);
    fake_tpm_expect(UNSEAL, ok_sessions("", F("0080 %s", seq(0x20, 128)), policy_session_rsp()));
    uint16_t len = 0;
    assert_int_equal(tpm2_unseal(&tpm, 0x80000001, 0x03000000, out, TPM2_SEAL_MAX, &len), 0);
    assert_int_equal(len, 128);
    assert_memory_equal(out, want, 128);
    FAKE_TPM_DONE();
    /* less than the buffer holds */
    fake_tpm_reset(&tpm);
    fake_tpm_expect("8002 0000001b 0000015e | 80000002 | 00000009 03000001 0000 00 0000",
                    ok_sessions("", F("0003 %s", seq(0x20, 3)), policy_session_rsp()));
    assert_int_equal(tpm2_unseal(&tpm, 0x80000002, 0x03000001, out, TPM2_SEAL_MAX, &len), 0);
    assert_int_equal(len, 3);
    assert_memory_equal(out, want, 3);
    FAKE_TPM_DONE();
    free(out);
}

static void unseal_larger_than_cap(void **state)
{
    (void)state;
    /* exactly cap bytes (ASan sees any write past them) ... */
    uint8_t *out = malloc(16);
    uint16_t len = 0;
    fake_tpm_expect(UNSEAL, ok_sessions("", F("0010 %s", seq(1, 16)), policy_session_rsp()));
    assert_int_equal(tpm2_unseal(&tpm, 0x80000001, 0x03000000, out, 16, &len), 0);
    assert_int_equal(len, 16);
    assert_int_equal(out[15], 16);
    FAKE_TPM_DONE();
    /* ... one more is refused, nothing copied */
    memset(out, 0xee, 16);
    len = 99;
    fake_tpm_reset(&tpm);
    fake_tpm_expect(UNSEAL, ok_sessions("", F("0011 %s", seq(1, 17)), policy_session_rsp()));
    expect_fail_msg(tpm2_unseal(&tpm, 0x80000001, 0x03000000, out, 16, &len),
                    "TPM2_Unseal: response parameters are truncated or malformed");
    assert_int_equal(out[0], 0xee);
    assert_int_equal(len, 0);
    /* as is the most a TPM2B_SENSITIVE_DATA can be, into a 128-byte buffer */
    uint8_t *big = malloc(TPM2_SEAL_MAX);
    fake_tpm_reset(&tpm);
    fake_tpm_expect(UNSEAL, ok_sessions("", F("0081 %s", rep(9, 129)), policy_session_rsp()));
    expect_fail_msg(tpm2_unseal(&tpm, 0x80000001, 0x03000000, big, TPM2_SEAL_MAX, &len),
                    "truncated or malformed");
    free(big);
    free(out);
}

static void unseal_bad(void **state)
{
    (void)state;
    uint8_t out[TPM2_SEAL_MAX];
    uint16_t len;
    const char *cases[][2] = {
        { ok_sessions("", "", policy_session_rsp()),
          "TPM2_Unseal: response parameters are truncated or malformed" },
        { ok_sessions("", F("0080 %s", rep(1, 127)), policy_session_rsp()),
          "truncated or malformed" },
        { ok_sessions("", F("0004 %s 00", rep(1, 4)), policy_session_rsp()),
          "TPM2_Unseal: 1 unexpected bytes after the response parameters" },
        /* the session area: missing, nonce cut, hmac missing */
        { F("8002 SZ 00000000 00000006 0004 %s", rep(1, 4)),
          "TPM2_Unseal: malformed session area after 6 parameter bytes" },
        { F("8002 SZ 00000000 00000006 0004 %s 0010 %s", rep(1, 4), rep(2, 15)),
          "malformed session area" },
        { F("8002 SZ 00000000 00000006 0004 %s 0010 %s 00", rep(1, 4), rep(2, 16)),
          "malformed session area" },
        { F("8002 SZ 00000000 00000007 0004 %s 0010 %s 00 0000", rep(1, 4), rep(2, 16)),
          "malformed session area after 7 parameter bytes" },
        { F("8002 SZ 00000000 00000100 0004 %s 0010 %s 00 0000", rep(1, 4), rep(2, 16)),
          "TPM2_Unseal: parameterSize 256 does not fit a 41-byte response" },
        { F("8001 SZ 00000000 0004 %s", rep(1, 4)),
          "TPM2_Unseal: response tag 0x8001 for command tag 0x8002" },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fake_tpm_reset(&tpm);
        fake_tpm_expect(UNSEAL, cases[i][0]);
        assert_int_equal(tpm2_unseal(&tpm, 0x80000001, 0x03000000, out, sizeof(out), &len), -1);
        if (!strstr(tpm.err, cases[i][1]))
            fail_msg("case %u: \"%s\" does not contain \"%s\"", i, tpm.err, cases[i][1]);
        FAKE_TPM_DONE();
    }
}

static void unseal_policy_fail(void **state)
{
    (void)state;
    /* the PCRs differ from the sealed ones: TPM_RC_POLICY_FAIL for session 1, exactly what
     * swtpm answers (tpm/seal_swtpm_test.c) */
    uint8_t out[TPM2_SEAL_MAX];
    uint16_t len = 77;
    fake_tpm_expect(UNSEAL, "8001 SZ 0000099d");
    assert_int_equal(tpm2_unseal(&tpm, 0x80000001, 0x03000000, out, sizeof(out), &len),
                     TPM2_RC_POLICY_FAIL);
    assert_string_equal(tpm.err, "TPM2_Unseal: TPM returned 0x99d");
    assert_int_equal(len, 77);
    FAKE_TPM_DONE();
}

/* ============================ GetCapability(HANDLES) ============================ */

#define GET_HANDLES(cap) "8001 00000016 0000017a 00000001 80000000 " cap

static void transient_handles_exact(void **state)
{
    (void)state;
    uint32_t h[4] = { 0 };
    unsigned n = 99;
    fake_tpm_expect(GET_HANDLES("00000004"),
                    "8001 SZ 00000000 00 00000001 00000002 80000000 80000002");
    assert_int_equal(tpm2_transient_handles(&tpm, h, 4, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(h[0], 0x80000000);
    assert_int_equal(h[1], 0x80000002);
    FAKE_TPM_DONE();
    fake_tpm_reset(&tpm);
    fake_tpm_expect(GET_HANDLES("00000004"), "8001 SZ 00000000 00 00000001 00000000");
    assert_int_equal(tpm2_transient_handles(&tpm, h, 4, &n), 0);
    assert_int_equal(n, 0);
    FAKE_TPM_DONE();
}

static void transient_handles_bad(void **state)
{
    (void)state;
    static const struct { const char *rsp, *err; } cases[] = {
        { "8001 SZ 00000000 00 00000001 00000003 80000000 80000001 80000002",
          "TPM2_GetCapability(HANDLES): more than 2 transient objects" },
        { "8001 SZ 00000000 01 00000001 00000002 80000000 80000001",
          "TPM2_GetCapability(HANDLES): more than 2 transient objects" },
        { "8001 SZ 00000000 00 00000005 00000000",
          "TPM2_GetCapability(HANDLES): wrong capability in response" },
        { "8001 SZ 00000000 00 00000001 00000001 03000000",
          "TPM2_GetCapability(HANDLES): handle 0x3000000 is no transient object" },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint32_t h[2];
        unsigned n = 99;
        fake_tpm_reset(&tpm);
        fake_tpm_expect(GET_HANDLES("00000002"), cases[i].rsp);
        assert_int_equal(tpm2_transient_handles(&tpm, h, 2, &n), -1);
        assert_string_equal(tpm.err, cases[i].err);
        FAKE_TPM_DONE();
    }
    /* a response cut short inside the list */
    uint32_t h[2];
    unsigned n = 99;
    fake_tpm_reset(&tpm);
    fake_tpm_expect(GET_HANDLES("00000002"), "8001 SZ 00000000 00 00000001 00000002 80000000");
    assert_int_equal(tpm2_transient_handles(&tpm, h, 2, &n), -1);
    FAKE_TPM_DONE();
}

/* ================================ FlushContext ================================ */

static void flush_context(void **state)
{
    (void)state;
    fake_tpm_expect("8001 0000000e 00000165 80000001", OK_HDR);
    assert_int_equal(tpm2_flush_context(&tpm, 0x80000001), 0);
    FAKE_TPM_DONE();
    fake_tpm_reset(&tpm);
    fake_tpm_expect("8001 0000000e 00000165 03000000", OK_HDR);
    assert_int_equal(tpm2_flush_context(&tpm, 0x03000000), 0);
    FAKE_TPM_DONE();
    /* swtpm's answers for a session that is gone (TPM_RC_HANDLE, parameter 1) and for a
     * transient handle that was never loaded (TPM_RC_VALUE, parameter 1) */
    fake_tpm_reset(&tpm);
    fake_tpm_expect("8001 0000000e 00000165 03000000", "8001 SZ 000001cb");
    assert_int_equal(tpm2_flush_context(&tpm, 0x03000000), 0x1cb);
    assert_string_equal(tpm.err, "TPM2_FlushContext: TPM returned 0x1cb");
    FAKE_TPM_DONE();
    fake_tpm_reset(&tpm);
    fake_tpm_expect("8001 0000000e 00000165 80ffffff", "8001 SZ 000001c4");
    assert_int_equal(tpm2_flush_context(&tpm, 0x80ffffff), 0x1c4);
    FAKE_TPM_DONE();
    fake_tpm_reset(&tpm);
    fake_tpm_expect("8001 0000000e 00000165 80000001", OK_HDR "0000");
    expect_fail_msg(tpm2_flush_context(&tpm, 0x80000001),
                    "TPM2_FlushContext: 2 unexpected bytes after the response parameters");
}

/* ================================ every command ================================ */

static void transport_failure(void **state)
{
    (void)state;
    static struct tpm2_sealed s;
    static const unsigned pcrs[] = { 17, 18 };
    uint8_t policy[32] = { 0 }, out[16];
    uint32_t h = 0x12345678;
    uint16_t len = 3;
    s.private_size = 1;
    s.public_size = 1;
    for (unsigned i = 0; i < 7; i++)
        fake_tpm_expect_fail(NULL, "TIS: no answer");
    assert_int_equal(tpm2_create_storage_primary(&tpm, &h), -1);
    assert_int_equal(tpm2_seal(&tpm, 0x80000000, policy, "x", 1, &s), -1);
    assert_int_equal(tpm2_load(&tpm, 0x80000000, &s, &h), -1);
    assert_int_equal(tpm2_start_policy_session(&tpm, &h), -1);
    assert_int_equal(tpm2_policy_pcr(&tpm, 0x03000000, TPM_ALG_SHA256, pcrs, 2), -1);
    assert_int_equal(tpm2_unseal(&tpm, 0x80000001, 0x03000000, out, sizeof(out), &len), -1);
    assert_int_equal(tpm2_flush_context(&tpm, 0x80000000), -1);
    assert_string_equal(tpm.err, "TIS: no answer");
    assert_int_equal(h, 0x12345678);
    assert_int_equal(len, 3);
    FAKE_TPM_DONE();
}

static void resend_on_retry(void **state)
{
    (void)state;
    /* the first DA-protected use after Startup may be answered RETRY: the same bytes again */
    fake_tpm_expect(UNSEAL, "8001 SZ 00000922");
    fake_tpm_expect(UNSEAL, ok_sessions("", F("0002 %s", seq(1, 2)), policy_session_rsp()));
    uint8_t out[2];
    uint16_t len = 0;
    assert_int_equal(tpm2_unseal(&tpm, 0x80000001, 0x03000000, out, sizeof(out), &len), 0);
    assert_int_equal(len, 2);
    FAKE_TPM_DONE();
}

int main(void)
{
#define R(fn) cmocka_unit_test_setup(fn, reset)
    const struct CMUnitTest tests[] = {
        R(policy_digest_pcr17_18),
        R(policy_digest_values_and_banks),
        R(create_primary_exact),
        R(create_primary_swtpm_answer),
        R(create_primary_malformed),
        R(create_primary_refused),
        R(seal_exact),
        R(seal_sizes_refused_locally),
        R(seal_output_sizes),
        R(seal_malformed),
        R(load_exact),
        R(load_bad),
        R(start_policy_session_exact),
        R(start_policy_session_bad),
        R(policy_pcr_exact),
        R(policy_pcr_bad),
        R(policy_pcr_out_of_range),
        R(unseal_exact),
        R(unseal_larger_than_cap),
        R(unseal_bad),
        R(unseal_policy_fail),
        R(transient_handles_exact),
        R(transient_handles_bad),
        R(flush_context),
        R(transport_failure),
        R(resend_on_retry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
