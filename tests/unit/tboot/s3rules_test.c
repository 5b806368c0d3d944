/* SPDX-License-Identifier: MIT */
/* src/tboot/s3rules.c: what S3 accepts of the state it left in RAM, and of the sealed key. */
#include "test_common.h"

#include "crypto/hash.h"
#include "tboot/s3rules.h"

static struct s3_state st;

static void ours(struct s3_state *s)
{
    memset(s, 0, sizeof(*s));
    s->magic = S3_STATE_MAGIC;
    s->version = S3_STATE_VERSION;
    s->size = sizeof(*s);
}

static void is_ours(void **state)
{
    (void)state;
    ours(&st);
    assert_true(s3_state_is_ours(&st));
    assert_int_equal(S3_STATE_MAGIC, 0x53335456u);
    st.magic ^= 1;
    assert_false(s3_state_is_ours(&st));
    ours(&st);
    st.version = S3_STATE_VERSION - 1;
    assert_false(s3_state_is_ours(&st));
    st.version = S3_STATE_VERSION + 1;
    assert_false(s3_state_is_ours(&st));
    ours(&st);
    st.size = sizeof(st) - 1;
    assert_false(s3_state_is_ours(&st));
    st.size = sizeof(st) + 1;
    assert_false(s3_state_is_ours(&st));
    memset(&st, 0, sizeof(st));
    assert_false(s3_state_is_ours(&st));
    /* the rest of the state does not matter to it */
    ours(&st);
    st.regions.n = 0xffffffffu;
    assert_true(s3_state_is_ours(&st));
}

static void expect_state(const struct s3_state *s, const char *msg)
{
    char err[128];
    memset(err, 0x5a, sizeof(err));
    if (!msg) {
        strcpy(err, "untouched");
        assert_int_equal(s3_state_check(s, err, sizeof(err)), 0);
        assert_string_equal(err, "untouched");
        return;
    }
    assert_int_equal(s3_state_check(s, err, sizeof(err)), -1);
    assert_string_equal(err, msg);
}

#define NOT_OURS "no S3 state of vtboot's to resume"
#define MALFORMED "the resume state is malformed"

static void check_header_first(void **state)
{
    (void)state;
    ours(&st);
    expect_state(&st, NULL);
    st.magic = 0;
    expect_state(&st, NOT_OURS);
    ours(&st);
    st.version = 1;
    expect_state(&st, NOT_OURS);
    ours(&st);
    st.size = 0;
    expect_state(&st, NOT_OURS);
    /* not ours and malformed: not ours */
    st.regions.n = TBOOT_MAX_MAC_REGIONS + 1;
    st.rsdp_len = 0xffffffffu;
    expect_state(&st, NOT_OURS);
}

/* Every count at its array's size is fine; one more is malformed. */
static void check_bounds(void **state)
{
    (void)state;
    ours(&st);
    st.regions.n = TBOOT_MAX_MAC_REGIONS;
    st.vl.n = VL_MAX;
    st.acpi.n = ACPI_DIGESTS_MAX;
    st.rsdp_len = BOOT_RSDP_MAX;
    expect_state(&st, NULL);
    assert_int_equal(TBOOT_MAX_MAC_REGIONS, 32);
    assert_int_equal(VL_MAX, 32);
    assert_int_equal(ACPI_DIGESTS_MAX, 32);
    assert_int_equal(BOOT_RSDP_MAX, 36);

    st.regions.n = TBOOT_MAX_MAC_REGIONS + 1;
    expect_state(&st, MALFORMED);
    st.regions.n = 0xffffffffu;
    expect_state(&st, MALFORMED);
    st.regions.n = 0;

    st.vl.n = VL_MAX + 1;
    expect_state(&st, MALFORMED);
    st.vl.n = 0;

    st.acpi.n = ACPI_DIGESTS_MAX + 1;
    expect_state(&st, MALFORMED);
    st.acpi.n = 0;

    st.rsdp_len = BOOT_RSDP_MAX + 1;
    expect_state(&st, MALFORMED);
    st.rsdp_len = 20;                /* an ACPI 1.0 RSDP */
    expect_state(&st, NULL);

    /* the message is cut to the buffer, terminated */
    char small[8];
    st.vl.n = VL_MAX + 1;
    assert_int_equal(s3_state_check(&st, small, sizeof(small)), -1);
    assert_string_equal(small, "the res");
}

/* SHA-256 of the bytes before `sealed`: they all count, the sealed blob and creation do not. */
static void digest_covers_up_to_sealed(void **state)
{
    (void)state;
    uint8_t d0[32], d1[32], want[32];
    ours(&st);
    st.restart_count = 42;
    s3_state_digest(&st, d0);
    assert_int_equal(hash_buffer(TPM_ALG_SHA256, &st, offsetof(struct s3_state, sealed), want), 0);
    assert_memory_equal(d0, want, 32);

    uint8_t *b = (uint8_t *)&st;
    size_t end = offsetof(struct s3_state, sealed);
    static const size_t covered[] = { 0, 12, offsetof(struct s3_state, seal_bank),
                                      offsetof(struct s3_state, restart_count) + 3 };
    for (unsigned i = 0; i < sizeof(covered) / sizeof(covered[0]); i++) {
        b[covered[i]] ^= 0x80;
        s3_state_digest(&st, d1);
        assert_memory_not_equal(d0, d1, 32);
        b[covered[i]] ^= 0x80;
    }
    assert_true(end <= sizeof(st));
    for (size_t i = end; i < sizeof(st); i++)
        b[i] = (uint8_t)i;           /* the sealed blob and its creation data */
    s3_state_digest(&st, d1);
    assert_memory_equal(d0, d1, 32);
}

static void counts_for_resume(void **state)
{
    (void)state;
    assert_int_equal(RESUME_RESTARTS, 2);
    struct tpm2_clock now = { .reset_count = 7, .restart_count = 40 };
    uint32_t reset = 0, restart = 0;
    s3_counts_for_resume(&now, &reset, &restart);
    assert_int_equal(reset, 7);
    assert_int_equal(restart, 42);
    now = (struct tpm2_clock){ .time = 1, .clock = 2, .reset_count = 0, .restart_count = 0 };
    s3_counts_for_resume(&now, &reset, &restart);
    assert_int_equal(reset, 0);
    assert_int_equal(restart, 2);
    now.reset_count = 0xffffffffu;
    now.restart_count = 0xffffffffu;     /* the TPM's counter wraps; so does the expectation */
    s3_counts_for_resume(&now, &reset, &restart);
    assert_int_equal(reset, 0xffffffffu);
    assert_int_equal(restart, 1);
}

static void counts_check(void **state)
{
    (void)state;
    char err[200];
    ours(&st);
    struct tpm2_clock at_suspend = { .reset_count = 3, .restart_count = 10 };
    s3_counts_for_resume(&at_suspend, &st.reset_count, &st.restart_count);

    struct tpm2_clock now = { .reset_count = 3, .restart_count = 12, .time = 99 };
    strcpy(err, "untouched");
    assert_int_equal(s3_counts_check(&st, &now, err, sizeof(err)), 0);
    assert_string_equal(err, "untouched");

    now.restart_count = 14;                  /* an older suspend's state, replayed */
    assert_int_equal(s3_counts_check(&st, &now, err, sizeof(err)), -1);
    assert_string_equal(err, "the S3 state is not for this resume: the TPM is at reset 3, "
                             "restart 14, the state was sealed for reset 3, restart 12 (an older "
                             "suspend's state?)");
    now.restart_count = 11;
    assert_int_equal(s3_counts_check(&st, &now, err, sizeof(err)), -1);
    assert_string_equal(err, "the S3 state is not for this resume: the TPM is at reset 3, "
                             "restart 11, the state was sealed for reset 3, restart 12 (an older "
                             "suspend's state?)");
    now = (struct tpm2_clock){ .reset_count = 4, .restart_count = 12 };   /* a reboot between */
    assert_int_equal(s3_counts_check(&st, &now, err, sizeof(err)), -1);
    assert_string_equal(err, "the S3 state is not for this resume: the TPM is at reset 4, "
                             "restart 12, the state was sealed for reset 3, restart 12 (an older "
                             "suspend's state?)");
    st.reset_count = st.restart_count = 0xffffffffu;
    now = (struct tpm2_clock){ 0 };
    assert_int_equal(s3_counts_check(&st, &now, err, sizeof(err)), -1);
    assert_string_equal(err, "the S3 state is not for this resume: the TPM is at reset 0, "
                             "restart 0, the state was sealed for reset 4294967295, restart "
                             "4294967295 (an older suspend's state?)");
    char small[16];
    assert_int_equal(s3_counts_check(&st, &now, small, sizeof(small)), -1);
    assert_string_equal(small, "the S3 state is");
}

#define R_PCR "the sealed key was created outside this launch (PCR 17/18 at its creation are " \
              "not the launch's)"
#define R_PARENT "the sealed key was created under another parent key"
#define R_LOCALITY "the sealed key was created at another locality than the launch's"
#define R_OUTSIDE "the S3 state is not the one sealed with the key (changed while suspended)"

static uint8_t pcr_digest[32], parent[34], state_digest[32];

/* Creation data as the seal in this launch records it: PCR 17/18 of SHA-256, locality 2. */
static struct tpm2_creation_info good(void)
{
    struct tpm2_creation_info i;
    memset(&i, 0, sizeof(i));
    for (unsigned k = 0; k < 32; k++) {
        pcr_digest[k] = (uint8_t)(0x10 + k);
        state_digest[k] = (uint8_t)(0xa0 + k);
    }
    parent[0] = 0x00;
    parent[1] = 0x0b;
    for (unsigned k = 2; k < sizeof(parent); k++)
        parent[k] = (uint8_t)(0x50 + k);
    i.pcr_banks = 1;
    i.pcr_bank = TPM_ALG_SHA256;
    i.pcr_mask = (1u << 17) | (1u << 18);
    i.pcr_digest_size = 32;
    memcpy(i.pcr_digest, pcr_digest, 32);
    i.locality = 1u << 2;
    i.parent_name_alg = TPM_ALG_SHA256;
    i.parent_name_size = sizeof(parent);
    memcpy(i.parent_name, parent, sizeof(parent));
    i.outside_size = 32;
    memcpy(i.outside, state_digest, 32);
    return i;
}

static const char *verdict(const struct tpm2_creation_info *i)
{
    return s3_creation_verdict(i, TPM_ALG_SHA256, pcr_digest, parent, sizeof(parent), 2,
                               state_digest);
}

static void expect_verdict(const struct tpm2_creation_info *i, const char *want)
{
    const char *got = verdict(i);
    if (!want && got)
        fail_msg("refused: %s", got);
    if (want && !got)
        fail_msg("accepted, want \"%s\"", want);
    if (want)
        assert_string_equal(got, want);
}

static void creation_accepted(void **state)
{
    (void)state;
    struct tpm2_creation_info i = good();
    expect_verdict(&i, NULL);
    /* what the rules do not look at */
    i.parent_name_alg = 0;
    i.parent_qname_size = 5;
    memset(i.pcr_digest + 32, 0xee, sizeof(i.pcr_digest) - 32);
    expect_verdict(&i, NULL);
    /* an empty parent name compares as such */
    i.parent_name_size = 0;
    assert_null(s3_creation_verdict(&i, TPM_ALG_SHA256, pcr_digest, parent, 0, 2, state_digest));
    /* another bank and locality when the caller says so */
    i = good();
    i.pcr_bank = TPM_ALG_SHA384;
    i.locality = 1u << 4;
    assert_null(s3_creation_verdict(&i, TPM_ALG_SHA384, pcr_digest, parent, sizeof(parent), 4,
                                    state_digest));
}

static void creation_pcrs(void **state)
{
    (void)state;
    struct tpm2_creation_info i;
    static const uint32_t banks[] = { 0, 2 };
    for (unsigned k = 0; k < 2; k++) {
        i = good();
        i.pcr_banks = banks[k];
        expect_verdict(&i, R_PCR);
    }
    i = good();
    i.pcr_bank = TPM_ALG_SHA1;
    expect_verdict(&i, R_PCR);
    static const uint32_t masks[] = { 0, 1u << 17, 1u << 18, (1u << 17) | (1u << 18) | (1u << 16),
                                      (1u << 17) | (1u << 18) | (1u << 0), 0xffffffu };
    for (unsigned k = 0; k < sizeof(masks) / sizeof(masks[0]); k++) {
        i = good();
        i.pcr_mask = masks[k];
        expect_verdict(&i, R_PCR);
    }
    static const uint16_t sizes[] = { 0, 20, 31, 33, 48, 64 };
    for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        i = good();
        i.pcr_digest_size = sizes[k];
        expect_verdict(&i, R_PCR);
    }
    i = good();
    i.pcr_digest[0] ^= 1;
    expect_verdict(&i, R_PCR);
    i = good();
    i.pcr_digest[31] ^= 0x80;
    expect_verdict(&i, R_PCR);
    /* the seal bank the state names must be the creation's */
    i = good();
    assert_string_equal(s3_creation_verdict(&i, TPM_ALG_SHA384, pcr_digest, parent,
                                            sizeof(parent), 2, state_digest), R_PCR);
}

static void creation_parent(void **state)
{
    (void)state;
    struct tpm2_creation_info i = good();
    i.parent_name_size = sizeof(parent) - 1;
    expect_verdict(&i, R_PARENT);
    i.parent_name_size = 0;
    expect_verdict(&i, R_PARENT);
    i = good();
    i.parent_name[0] ^= 1;
    expect_verdict(&i, R_PARENT);
    i = good();
    i.parent_name[sizeof(parent) - 1] ^= 1;
    expect_verdict(&i, R_PARENT);
    i = good();
    i.parent_name_size = sizeof(parent) + 1;
    expect_verdict(&i, R_PARENT);
}

static void creation_locality(void **state)
{
    (void)state;
    static const uint8_t bad[] = { 0, 1u << 0, 1u << 1, 1u << 3, 1u << 4, (1u << 2) | 1u,
                                   0xff, 2 };
    for (unsigned k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        struct tpm2_creation_info i = good();
        i.locality = bad[k];
        expect_verdict(&i, R_LOCALITY);
    }
}

static void creation_outside(void **state)
{
    (void)state;
    struct tpm2_creation_info i = good();
    i.outside_size = 0;
    expect_verdict(&i, R_OUTSIDE);
    i.outside_size = 31;
    expect_verdict(&i, R_OUTSIDE);
    i.outside_size = 64;                 /* the digest and more */
    expect_verdict(&i, R_OUTSIDE);
    i = good();
    i.outside[0] ^= 1;
    expect_verdict(&i, R_OUTSIDE);
    i = good();
    i.outside[31] ^= 1;
    expect_verdict(&i, R_OUTSIDE);
}

/* The rules in today's order: the first failing one is the one said. */
static void creation_order(void **state)
{
    (void)state;
    struct tpm2_creation_info i = good();
    i.pcr_banks = 0;
    i.parent_name_size = 0;
    i.locality = 0;
    i.outside_size = 0;
    expect_verdict(&i, R_PCR);
    i.pcr_banks = 1;
    expect_verdict(&i, R_PARENT);
    i.parent_name_size = sizeof(parent);
    expect_verdict(&i, R_LOCALITY);
    i.locality = 1u << 2;
    expect_verdict(&i, R_OUTSIDE);
    i.outside_size = 32;
    expect_verdict(&i, NULL);
}

/* The bytes the TPM records (TPMS_CREATION_DATA), through tpm2_creation_parse, as the resume
 * reads them from the state. */
static size_t creation_bytes(uint8_t *b, uint8_t locality, const uint8_t *outside, uint16_t olen)
{
    size_t n = 0;
    static const uint8_t head[] = { 0, 0, 0, 1, 0x00, 0x0b, 3, 0x00, 0x00, 0x06, 0, 32 };
    memcpy(b, head, sizeof(head));
    n = sizeof(head);
    memcpy(b + n, pcr_digest, 32);
    n += 32;
    b[n++] = locality;
    b[n++] = 0x00;                        /* parentNameAlg SHA-256 */
    b[n++] = 0x0b;
    b[n++] = 0;
    b[n++] = sizeof(parent);
    memcpy(b + n, parent, sizeof(parent));
    n += sizeof(parent);
    b[n++] = 0;                           /* parentQualifiedName */
    b[n++] = 2;
    b[n++] = 0x40;
    b[n++] = 0x00;
    b[n++] = (uint8_t)(olen >> 8);
    b[n++] = (uint8_t)olen;
    memcpy(b + n, outside, olen);
    return n + olen;
}

static void creation_parsed(void **state)
{
    (void)state;
    (void)good();                         /* fills the expected values */
    uint8_t b[TPM2_CREATION_DATA_MAX];
    struct tpm2_creation_info i;
    char why[128];
    size_t n = creation_bytes(b, 1u << 2, state_digest, 32);
    assert_int_equal(tpm2_creation_parse(b, n, &i, why, sizeof(why)), 0);
    expect_verdict(&i, NULL);
    n = creation_bytes(b, 1u << 3, state_digest, 32);
    assert_int_equal(tpm2_creation_parse(b, n, &i, why, sizeof(why)), 0);
    expect_verdict(&i, R_LOCALITY);
    n = creation_bytes(b, 1u << 2, state_digest, 20);
    assert_int_equal(tpm2_creation_parse(b, n, &i, why, sizeof(why)), 0);
    expect_verdict(&i, R_OUTSIDE);
    n = creation_bytes(b, 1u << 2, state_digest, 32);
    b[9] = 0x02;                          /* PCR 17 alone */
    assert_int_equal(tpm2_creation_parse(b, n, &i, why, sizeof(why)), 0);
    expect_verdict(&i, R_PCR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(is_ours),
        cmocka_unit_test(check_header_first),
        cmocka_unit_test(check_bounds),
        cmocka_unit_test(digest_covers_up_to_sealed),
        cmocka_unit_test(counts_for_resume),
        cmocka_unit_test(counts_check),
        cmocka_unit_test(creation_accepted),
        cmocka_unit_test(creation_pcrs),
        cmocka_unit_test(creation_parent),
        cmocka_unit_test(creation_locality),
        cmocka_unit_test(creation_outside),
        cmocka_unit_test(creation_order),
        cmocka_unit_test(creation_parsed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
