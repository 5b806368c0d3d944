/* SPDX-License-Identifier: MIT */
/*
 * src/tpm/tpm2_seal.c against a real TPM: swtpm (support/swtpm_sim), one instance for the
 * whole file, the tests in order. The policy digest vtboot computes is compared with the one
 * the TPM computes itself in a trial session (TPM_SE_TRIAL, sent here byte by byte, not with
 * vtboot's code); a secret sealed to PCR 16 and 23 (locality 0 may extend those) unseals while
 * they hold the sealed values, fails with the TPM's policy error once one changes, and unseals
 * again after a power cycle (support/swtpm_ctrl) once they are extended back to those values:
 * the storage primary comes back from the endorsement seed. The primary needs no owner
 * authorization (the host's). Skipped, saying so, without swtpm.
 */
#include "test_common.h"

#include "fake_tpm.h"
#include "openssl_ref.h"
#include "swtpm_ctrl.h"
#include "swtpm_sim.h"
#include "tool_check.h"
#include "tpm/tpm2_seal.h"

static struct swtpm_sim sim;
static bool have_sim;
static char why[256];
static struct tpm2 tpm;
static const struct tpm_banks all_banks = { 4, { TPM_ALG_SHA1, TPM_ALG_SHA256,
                                                 TPM_ALG_SHA384, TPM_ALG_SHA512 } };
static const unsigned pcr16_23[] = { 16, 23 };

/* what the round trip sealed, for the tests after it */
static struct tpm2_sealed blob;
static uint8_t secret[TPM2_SEAL_MAX];

/* The commands sent and the response codes swtpm gave. */
static unsigned ncmds;
static uint32_t last_rc;

static int recording_transmit(void *ctx, const uint8_t *cmd, size_t cmd_len, uint8_t *rsp,
                              size_t rsp_cap, size_t *rsp_len, char *err, size_t errlen)
{
    ncmds++;
    int rc = swtpm_sim_transmit(ctx, cmd, cmd_len, rsp, rsp_cap, rsp_len, err, errlen);
    if (rc == 0 && *rsp_len >= 10)
        last_rc = (uint32_t)rsp[6] << 24 | (uint32_t)rsp[7] << 16 | rsp[8] << 8 | rsp[9];
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

/* After each test, whatever it left loaded (a failed test does not flush): swtpm hands out
 * the lowest free transient and session handles. */
static int flush_leftovers(void **state)
{
    (void)state;
    if (!have_sim || swtpm_sim_connect(&sim))
        return 0;
    for (uint32_t i = 0; i < 4; i++) {
        tpm2_flush_context(&tpm, 0x80000000u + i);
        tpm2_flush_context(&tpm, 0x03000000u + i);
    }
    return 0;
}

static void need_tpm(void)
{
    if (!have_sim)
        skip();
    assert_int_equal(swtpm_sim_connect(&sim), 0);
}

/* ---- commands sent by hand (hex, SZ for the size), the response's parameters returned ---- */

static size_t raw(const char *cmd_hex, uint8_t *rsp, size_t cap)
{
    uint8_t cmd[TPM2_BUFFER_MAX];
    size_t n = fake_tpm_unhex(cmd_hex, cmd, sizeof(cmd)), len = 0;
    char err[128];
    assert_int_equal(swtpm_sim_transmit(&sim, cmd, n, rsp, cap, &len, err, sizeof(err)), 0);
    assert_true(len >= 10);
    uint32_t rc = (uint32_t)rsp[6] << 24 | (uint32_t)rsp[7] << 16 | rsp[8] << 8 | rsp[9];
    if (rc)
        fail_msg("%.40s...: swtpm answered 0x%x", cmd_hex, rc);
    assert_int_equal((size_t)rsp[2] << 24 | (size_t)rsp[3] << 16 | (size_t)rsp[4] << 8 | rsp[5],
                     len);
    return len;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * The TPM's own PolicyPCR digest: TPM2_StartAuthSession(TPM_SE_TRIAL = 03, no salt, no bind,
 * 16-byte nonceCaller, no symmetric, SHA-256), TPM2_PolicyPCR(session, empty pcrDigest,
 * {1 selection: bank, 3, sel}), TPM2_PolicyGetDigest(session), TPM2_FlushContext(session).
 */
static void trial_policy_pcr(uint16_t bank, const char *sel_hex, uint8_t out[32])
{
    uint8_t rsp[TPM2_BUFFER_MAX];
    char cmd[256];
    size_t n = raw("8001 SZ 00000176 40000007 40000007 0010 0102030405060708090a0b0c0d0e0f10"
                   "0000 03 0010 000b", rsp, sizeof(rsp));
    assert_int_equal(n, 10 + 4 + 2 + 16);
    uint32_t session = be32(rsp + 10);
    assert_int_equal(session >> 24, 0x03);       /* a policy (or trial) session handle */
    snprintf(cmd, sizeof(cmd), "8001 SZ 0000017f %08x 0000 00000001 %04x 03 %s", session, bank,
             sel_hex);
    assert_int_equal(raw(cmd, rsp, sizeof(rsp)), 10);
    snprintf(cmd, sizeof(cmd), "8001 SZ 00000189 %08x", session);
    assert_int_equal(raw(cmd, rsp, sizeof(rsp)), 10 + 2 + 32);
    assert_int_equal(rsp[10] << 8 | rsp[11], 32);
    memcpy(out, rsp + 12, 32);
    snprintf(cmd, sizeof(cmd), "8001 SZ 00000165 %08x", session);
    assert_int_equal(raw(cmd, rsp, sizeof(rsp)), 10);
}

/* ---- PCR 16 and 23 set to known values ---- */

static uint8_t model16[TPM_MAX_BANKS][TPM2_MAX_DIGEST], model23[TPM_MAX_BANKS][TPM2_MAX_DIGEST];

/* Extends PCR `pcr` in every bank with H(what) and the model with it. */
static void extend(unsigned pcr, const char *what, uint8_t model[][TPM2_MAX_DIGEST])
{
    struct tpm_digest_list d = { all_banks.count, { { 0 } } };
    for (unsigned i = 0; i < all_banks.count; i++) {
        d.d[i].alg = all_banks.alg[i];
        ref_hash(all_banks.alg[i], what, strlen(what), d.d[i].bytes);
        ref_extend(all_banks.alg[i], model[i], d.d[i].bytes);
    }
    assert_int_equal(tpm2_pcr_extend(&tpm, pcr, &d), 0);
}

/* From reset (all zero): PCR 16 and 23 get the values the secret is sealed to. */
static void set_pcrs(void)
{
    memset(model16, 0, sizeof(model16));
    memset(model23, 0, sizeof(model23));
    extend(16, "vtboot seal test: PCR 16, first", model16);
    extend(16, "vtboot seal test: PCR 16, second", model16);
    extend(23, "vtboot seal test: PCR 23", model23);
}

/* The values of PCR 16 and 23 in `bank`, read from the TPM and checked against the model. */
static unsigned read_values(uint16_t bank, uint8_t *values)
{
    struct tpm_banks one = { 1, { bank } };
    struct tpm_digest_list d;
    unsigned n = tpm_hash_size(bank), bi = 0;
    while (all_banks.alg[bi] != bank)
        bi++;
    assert_int_equal(tpm2_pcr_read(&tpm, 16, &one, &d), 0);
    memcpy(values, d.d[0].bytes, n);
    assert_int_equal(tpm2_pcr_read(&tpm, 23, &one, &d), 0);
    memcpy(values + n, d.d[0].bytes, n);
    assert_memory_equal(values, model16[bi], n);
    assert_memory_equal(values + n, model23[bi], n);
    return n;
}

/* ================================ the policy digest ================================ */

static void trial_session_digest(void **state)
{
    (void)state;
    need_tpm();
    set_pcrs();
    uint8_t values[2 * TPM2_MAX_DIGEST], want[32], got[32];
    /* PCR 16 and 23, in every bank: the selection is byte 2, bits 0 and 7 */
    for (unsigned b = 0; b < all_banks.count; b++) {
        uint16_t bank = all_banks.alg[b];
        read_values(bank, values);
        trial_policy_pcr(bank, "000081", want);
        tpm2_policy_pcr_digest(bank, pcr16_23, 2, values, got);
        if (memcmp(got, want, 32))
            fail_msg("%s: the policy digest differs from the TPM's", tpm_hash_name(bank));
    }
    /* PCR 17 and 18, what vtboot seals to, as they are without a launch (all ones) */
    static const unsigned pcr17_18[] = { 17, 18 };
    memset(values, 0xff, sizeof(values));
    trial_policy_pcr(TPM_ALG_SHA256, "000006", want);
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, pcr17_18, 2, values, got);
    assert_memory_equal(got, want, 32);
    /* one PCR alone */
    read_values(TPM_ALG_SHA256, values);
    trial_policy_pcr(TPM_ALG_SHA256, "000001", want);
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, pcr16_23, 1, values, got);
    assert_memory_equal(got, want, 32);
    /* PCR 0, 7 and 8 (all zero here): bits in the other two bytes */
    static const unsigned pcr0_7_8[] = { 0, 7, 8 };
    static const uint8_t zeros[3 * 32];
    trial_policy_pcr(TPM_ALG_SHA256, "810100", want);
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, pcr0_7_8, 3, zeros, got);
    assert_memory_equal(got, want, 32);
}

static void policy_pcr_on_a_trial_session(void **state)
{
    (void)state;
    need_tpm();
    /* tpm2_policy_pcr's command on a trial session gives the digest tpm2_policy_pcr_digest
     * predicts */
    uint8_t rsp[TPM2_BUFFER_MAX], values[64], got[32];
    raw("8001 SZ 00000176 40000007 40000007 0010 00000000000000000000000000000000 0000 03 0010"
        "000b", rsp, sizeof(rsp));
    uint32_t session = be32(rsp + 10);
    assert_int_equal(tpm2_policy_pcr(&tpm, session, TPM_ALG_SHA256, pcr16_23, 2), 0);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "8001 SZ 00000189 %08x", session);
    raw(cmd, rsp, sizeof(rsp));
    read_values(TPM_ALG_SHA256, values);
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, pcr16_23, 2, values, got);
    assert_memory_equal(rsp + 12, got, 32);
    assert_int_equal(tpm2_flush_context(&tpm, session), 0);
}

/* ================================ sealing and unsealing ================================ */

/* A policy session with PolicyPCR(16, 23, SHA-256) and Unseal; returns Unseal's result. */
static int unseal_with_policy(uint32_t item, uint8_t *out, uint16_t *len, uint32_t *session)
{
    assert_int_equal(tpm2_start_policy_session(&tpm, session), 0);
    assert_int_equal(tpm2_policy_pcr(&tpm, *session, TPM_ALG_SHA256, pcr16_23, 2), 0);
    return tpm2_unseal(&tpm, item, *session, out, TPM2_SEAL_MAX, len);
}

static void seal_round_trip(void **state)
{
    (void)state;
    need_tpm();
    uint8_t values[64], policy[32], out[TPM2_SEAL_MAX];
    uint32_t primary = 0, item = 0, session = 0;
    uint16_t len = 0;
    for (unsigned i = 0; i < sizeof(secret); i++)
        secret[i] = (uint8_t)(i * 29 + 3);
    read_values(TPM_ALG_SHA256, values);
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, pcr16_23, 2, values, policy);

    assert_int_equal(tpm2_create_storage_primary(&tpm, &primary), 0);
    assert_int_equal(primary >> 24, 0x80);       /* a transient object */
    assert_int_equal(tpm2_seal(&tpm, primary, policy, secret, sizeof(secret), &blob), 0);
    /* swtpm's private area for 128 bytes is 254; the public area is the template back, with
     * unique = a SHA-256 digest */
    assert_int_equal(blob.private_size, 254);
    assert_int_equal(blob.public_size, 0x4e);
    static const uint8_t head[] = { 0x00, 0x08, 0x00, 0x0b, 0x00, 0x00, 0x04, 0x12, 0x00, 0x20 };
    assert_memory_equal(blob.public_area, head, sizeof(head));  /* KEYEDHASH, SHA-256, attrs */
    assert_memory_equal(blob.public_area + 10, policy, 32);     /* authPolicy */
    static const uint8_t tail[] = { 0x00, 0x10, 0x00, 0x20 };   /* scheme NULL, unique */
    assert_memory_equal(blob.public_area + 42, tail, sizeof(tail));
    assert_int_equal(tpm2_load(&tpm, primary, &blob, &item), 0);
    assert_int_equal(item >> 24, 0x80);
    assert_int_not_equal(item, primary);

    assert_int_equal(unseal_with_policy(item, out, &len, &session), 0);
    assert_int_equal(len, sizeof(secret));
    assert_memory_equal(out, secret, sizeof(secret));
    /* continueSession was clear: the TPM flushed the session after the Unseal
     * (TPM_RC_HANDLE for parameter 1) */
    assert_int_equal(tpm2_flush_context(&tpm, session), 0x1cb);
    /* and again, a fresh session each time */
    memset(out, 0, sizeof(out));
    assert_int_equal(unseal_with_policy(item, out, &len, &session), 0);
    assert_memory_equal(out, secret, sizeof(secret));

    /* without the policy there is no way in: no userWithAuth, so a password is refused
     * (TPM_RC_AUTH_UNAVAILABLE, a format-zero code without a session number) */
    assert_int_equal(tpm2_unseal(&tpm, item, TPM2_RS_PW, out, sizeof(out), &len), 0x12f);
    /* nor with an empty policy session */
    assert_int_equal(tpm2_start_policy_session(&tpm, &session), 0);
    assert_int_equal(tpm2_unseal(&tpm, item, session, out, sizeof(out), &len),
                     TPM2_RC_POLICY_FAIL);
    assert_int_equal(tpm2_flush_context(&tpm, session), 0);
    /* nor with the right PCRs of another bank */
    assert_int_equal(tpm2_start_policy_session(&tpm, &session), 0);
    assert_int_equal(tpm2_policy_pcr(&tpm, session, TPM_ALG_SHA1, pcr16_23, 2), 0);
    assert_int_equal(tpm2_unseal(&tpm, item, session, out, sizeof(out), &len),
                     TPM2_RC_POLICY_FAIL);
    assert_int_equal(tpm2_flush_context(&tpm, session), 0);

    assert_int_equal(tpm2_flush_context(&tpm, item), 0);
    assert_int_equal(tpm2_flush_context(&tpm, primary), 0);
    /* both are gone: TPM_RC_HANDLE for parameter 1, as for a used-up session */
    assert_int_equal(tpm2_flush_context(&tpm, item), 0x1cb);
    assert_int_equal(tpm2_flush_context(&tpm, primary), 0x1cb);
}

/* What is loaded, as the TPM lists it: two primaries, then nothing once both are flushed
 * (guest/tools/vtboot-tpm-flush's job) */
static void transient_handles_list_the_loaded_objects(void **state)
{
    (void)state;
    need_tpm();
    uint32_t a, b, h[3];
    unsigned n = 99;
    assert_int_equal(tpm2_transient_handles(&tpm, h, 3, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(tpm2_create_storage_primary(&tpm, &a), 0);
    assert_int_equal(tpm2_create_storage_primary(&tpm, &b), 0);
    assert_int_equal(tpm2_transient_handles(&tpm, h, 3, &n), 0);
    assert_int_equal(n, 2);
    assert_true((h[0] == a && h[1] == b) || (h[0] == b && h[1] == a));
    assert_int_equal(tpm2_transient_handles(&tpm, h, 1, &n), -1);
    assert_int_equal(tpm2_flush_context(&tpm, a), 0);
    assert_int_equal(tpm2_flush_context(&tpm, b), 0);
    assert_int_equal(tpm2_transient_handles(&tpm, h, 3, &n), 0);
    assert_int_equal(n, 0);
}

static void unseal_after_extend_fails(void **state)
{
    (void)state;
    need_tpm();
    uint32_t primary, item, session;
    uint8_t out[TPM2_SEAL_MAX];
    uint16_t len = 0x5555;
    assert_int_equal(tpm2_create_storage_primary(&tpm, &primary), 0);
    assert_int_equal(tpm2_load(&tpm, primary, &blob, &item), 0);
    extend(16, "vtboot seal test: PCR 16, one more", model16);
    memset(out, 0, sizeof(out));
    int rc = unseal_with_policy(item, out, &len, &session);
    /* TPM_RC_POLICY_FAIL (0x09d) for session 1 (0x900): 0x99d, and nothing comes out */
    assert_int_equal(rc, 0x99d);
    assert_int_equal(rc, TPM2_RC_POLICY_FAIL);
    assert_string_equal(tpm.err, "TPM2_Unseal: TPM returned 0x99d");
    assert_int_equal(len, 0x5555);
    static const uint8_t zeros[TPM2_SEAL_MAX];
    assert_memory_equal(out, zeros, sizeof(out));
    /* a failed command does not end the session: the caller has to flush it */
    assert_int_equal(tpm2_flush_context(&tpm, session), 0);

    assert_int_equal(tpm2_flush_context(&tpm, item), 0);
    assert_int_equal(tpm2_flush_context(&tpm, primary), 0);
}

static void pcr_change_after_policy_pcr(void **state)
{
    (void)state;
    need_tpm();
    /* the TPM fixes the PCR values at PolicyPCR and remembers pcrUpdateCounter; a change
     * after that is caught at Unseal only through the counter (TPM 2.0 Part 3, 23.7) */
    uint32_t primary, item, session;
    uint8_t values[64], policy[32], out[TPM2_SEAL_MAX];
    uint16_t len = 0;
    static struct tpm2_sealed now;
    assert_int_equal(tpm2_create_storage_primary(&tpm, &primary), 0);
    read_values(TPM_ALG_SHA256, values);
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, pcr16_23, 2, values, policy);
    assert_int_equal(tpm2_seal(&tpm, primary, policy, "now", 3, &now), 0);
    assert_int_equal(tpm2_load(&tpm, primary, &now, &item), 0);
    /* PCR 16 and 21-23 do not count (PC Client "no increment" PCRs, as libtpms has them):
     * PCR 23 extended in between goes unnoticed ... */
    assert_int_equal(tpm2_start_policy_session(&tpm, &session), 0);
    assert_int_equal(tpm2_policy_pcr(&tpm, session, TPM_ALG_SHA256, pcr16_23, 2), 0);
    extend(23, "vtboot seal test: PCR 23, in between", model23);
    assert_int_equal(tpm2_unseal(&tpm, item, session, out, sizeof(out), &len), 0);
    assert_int_equal(len, 3);
    assert_memory_equal(out, "now", 3);
    /* ... while any PCR that counts (PCR 8 here; PCR 17 and 18, which vtboot seals to, do),
     * even one outside the selection, makes the session stale: TPM_RC_PCR_CHANGED (0x128,
     * format zero, no session number) */
    static uint8_t model8[TPM_MAX_BANKS][TPM2_MAX_DIGEST];
    uint8_t v[64];
    read_values(TPM_ALG_SHA256, v);
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, pcr16_23, 2, v, policy);
    assert_int_equal(tpm2_seal(&tpm, primary, policy, "now", 3, &now), 0);
    uint32_t item2;
    assert_int_equal(tpm2_load(&tpm, primary, &now, &item2), 0);
    assert_int_equal(tpm2_start_policy_session(&tpm, &session), 0);
    assert_int_equal(tpm2_policy_pcr(&tpm, session, TPM_ALG_SHA256, pcr16_23, 2), 0);
    extend(8, "vtboot seal test: PCR 8", model8);
    assert_int_equal(tpm2_unseal(&tpm, item2, session, out, sizeof(out), &len), 0x128);
    assert_int_equal(tpm2_flush_context(&tpm, session), 0);
    assert_int_equal(tpm2_flush_context(&tpm, item2), 0);
    assert_int_equal(tpm2_flush_context(&tpm, item), 0);
    assert_int_equal(tpm2_flush_context(&tpm, primary), 0);
}

static void tampered_blob_does_not_load(void **state)
{
    (void)state;
    need_tpm();
    uint32_t primary, item;
    static struct tpm2_sealed bad;
    assert_int_equal(tpm2_create_storage_primary(&tpm, &primary), 0);
    /* one bit anywhere in the private area (the integrity HMAC, the encrypted sensitive
     * part, its last byte): TPM_RC_INTEGRITY for parameter 1 (0x09f | 0x040 | 0x100) */
    static const unsigned at[] = { 2, 20, 34, 40, 60, 120, 253 };
    for (unsigned i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
        bad = blob;
        bad.private_area[at[i]] ^= 0x01;
        int rc = tpm2_load(&tpm, primary, &bad, &item);
        if (rc != 0x1df)
            fail_msg("private byte %u flipped: 0x%x, want 0x1df", at[i], rc);
    }
    /* or in the public area, whose name the HMAC covers: the same, except a type that is no
     * longer KEYEDHASH, which the TPM refuses first (TPM_RC_TYPE for parameter 2) */
    static const struct { unsigned at; int rc; } pub[] = {
        { 1, 0x2ca }, { 5, 0x1df }, { 12, 0x1df }, { 40, 0x1df }, { 0x4d, 0x1df },
    };
    for (unsigned i = 0; i < sizeof(pub) / sizeof(pub[0]); i++) {
        bad = blob;
        bad.public_area[pub[i].at] ^= 0x01;
        int rc = tpm2_load(&tpm, primary, &bad, &item);
        if (rc != pub[i].rc)
            fail_msg("public byte %u flipped: 0x%x, want 0x%x", pub[i].at, rc, pub[i].rc);
    }
    assert_string_equal(tpm.err, "TPM2_Load: TPM returned 0x1df");
    /* the blob itself still loads */
    assert_int_equal(tpm2_load(&tpm, primary, &blob, &item), 0);
    assert_int_equal(tpm2_flush_context(&tpm, item), 0);
    assert_int_equal(tpm2_flush_context(&tpm, primary), 0);
}

static void seal_sizes_refused_locally(void **state)
{
    (void)state;
    need_tpm();
    uint32_t primary;
    static struct tpm2_sealed s;
    uint8_t policy[32] = { 0 }, big[TPM2_SEAL_MAX + 1] = { 0 };
    assert_int_equal(tpm2_create_storage_primary(&tpm, &primary), 0);
    unsigned before = ncmds;
    assert_int_equal(tpm2_seal(&tpm, primary, policy, big, 0, &s), -1);
    assert_string_equal(tpm.err, "TPM2_Create: 0 bytes to seal (1..128)");
    assert_int_equal(tpm2_seal(&tpm, primary, policy, big, TPM2_SEAL_MAX + 1, &s), -1);
    assert_string_equal(tpm.err, "TPM2_Create: 129 bytes to seal (1..128)");
    assert_int_equal(ncmds, before);
    /* the TPM's own limit is the same (MAX_SYM_DATA): 128 is fine, as above, and one byte */
    assert_int_equal(tpm2_seal(&tpm, primary, policy, big, 1, &s), 0);
    assert_int_equal(tpm2_flush_context(&tpm, primary), 0);
}

static void power_cycle_keeps_the_endorsement_seed(void **state)
{
    (void)state;
    need_tpm();
    uint32_t primary, item, session;
    uint8_t out[TPM2_SEAL_MAX];
    uint16_t len = 0;
    char err[160];
    assert_int_equal(tpm2_shutdown(&tpm, TPM2_SU_CLEAR), 0);
    /* without _TPM_Init the TPM stays started */
    assert_int_equal(tpm2_startup(&tpm, TPM2_SU_CLEAR), TPM2_RC_INITIALIZE);
    if (swtpm_sim_power_cycle(&sim, err, sizeof(err)))
        fail_msg("%s", err);
    assert_int_equal(tpm2_startup(&tpm, TPM2_SU_CLEAR), 0);
    /* PCR 16 and 23 are back to zero; the primary comes back the same from the endorsement seed,
     * and the blob made under the first one loads under it */
    uint8_t values[64];
    struct tpm_banks one = { 1, { TPM_ALG_SHA256 } };
    struct tpm_digest_list d;
    assert_int_equal(tpm2_pcr_read(&tpm, 16, &one, &d), 0);
    static const uint8_t zeros[32];
    assert_memory_equal(d.d[0].bytes, zeros, 32);
    assert_int_equal(tpm2_create_storage_primary(&tpm, &primary), 0);
    assert_int_equal(tpm2_load(&tpm, primary, &blob, &item), 0);
    /* not unsealable with other PCR values ... */
    assert_int_equal(unseal_with_policy(item, out, &len, &session), TPM2_RC_POLICY_FAIL);
    assert_int_equal(tpm2_flush_context(&tpm, session), 0);
    /* ... but once the same measurements are extended again */
    set_pcrs();
    read_values(TPM_ALG_SHA256, values);
    memset(out, 0, sizeof(out));
    assert_int_equal(unseal_with_policy(item, out, &len, &session), 0);
    assert_int_equal(len, sizeof(secret));
    assert_memory_equal(out, secret, sizeof(secret));
    assert_int_equal(tpm2_flush_context(&tpm, item), 0);
    assert_int_equal(tpm2_flush_context(&tpm, primary), 0);
}

/* A TPM2B file as tpm2-tools reads it: big-endian size, then the bytes. */
static void write_tpm2b(const char *path, const uint8_t *p, uint16_t n)
{
    uint8_t buf[2 + TPM2_SEALED_PRIVATE_MAX];
    buf[0] = (uint8_t)(n >> 8);
    buf[1] = (uint8_t)n;
    memcpy(buf + 2, p, n);
    assert_int_equal(file_write(path, buf, 2u + n), 0);
}

static void tpm2_tools_unseal_the_blob(void **state)
{
    (void)state;
    need_tpm();
    static const char *const tools[] = { "tpm2_createprimary", "tpm2_load", "tpm2_unseal",
                                         "tpm2_flushcontext", NULL };
    for (unsigned i = 0; tools[i]; i++)
        if (!tool_path(tools[i])) {
            print_message("%s is not installed: skipping\n", tools[i]);
            skip();
        }
    /* the storage primary is tpm2_createprimary's with these options, so the blob is what an
     * administrator unseals with tpm2-tools while PCR 16 and 23 hold the sealed values
     * (they do: power_cycle_keeps_the_endorsement_seed extended them back) */
    char prim[300], pub[300], priv[300], item[300], out[300];
    snprintf(prim, sizeof(prim), "%s/prim.ctx", sim.dir);
    snprintf(pub, sizeof(pub), "%s/blob.pub", sim.dir);
    snprintf(priv, sizeof(priv), "%s/blob.priv", sim.dir);
    snprintf(item, sizeof(item), "%s/item.ctx", sim.dir);
    snprintf(out, sizeof(out), "%s/secret", sim.dir);
    write_tpm2b(pub, blob.public_area, blob.public_size);
    write_tpm2b(priv, blob.private_area, blob.private_size);
    const char *create[] = { "tpm2_createprimary", "-Q", "-C", "e", "-g", "sha256", "-G",
                             "ecc256:aes128cfb", "-a", "fixedtpm|fixedparent|"
                             "sensitivedataorigin|userwithauth|noda|restricted|decrypt", "-c",
                             prim, NULL };
    const char *load[] = { "tpm2_load", "-Q", "-C", prim, "-u", pub, "-r", priv, "-c", item,
                           NULL };
    const char *unseal[] = { "tpm2_unseal", "-Q", "-c", item, "-p", "pcr:sha256:16,23", "-o",
                             out, NULL };
    /* without a resource manager the tools leave their objects loaded: flush in between */
    const char *flush[] = { "tpm2_flushcontext", "-t", NULL };
    tool_must_run_on_sim(&sim, create);
    tool_must_run_on_sim(&sim, flush);
    tool_must_run_on_sim(&sim, load);
    tool_must_run_on_sim(&sim, flush);
    tool_must_run_on_sim(&sim, unseal);
    size_t len;
    uint8_t *got = file_read(out, &len);
    assert_non_null(got);
    assert_int_equal(len, sizeof(secret));
    assert_memory_equal(got, secret, sizeof(secret));
    free(got);
}

static void storage_primary_needs_no_owner_auth(void **state)
{
    (void)state;
    need_tpm();
    if (!tool_path("tpm2_changeauth")) {
        print_message("tpm2_changeauth is not installed: skipping\n");
        skip();
    }
    uint32_t primary = 0;
    /* the owner authorization set, as vtboot-qemu sets it: the primary is made all the same */
    const char *owner_set[] = { "tpm2_changeauth", "-c", "o", "hex:0123456789abcdef", NULL };
    tool_must_run_on_sim(&sim, owner_set);
    assert_int_equal(swtpm_sim_connect(&sim), 0);
    assert_int_equal(tpm2_create_storage_primary(&tpm, &primary), 0);
    assert_int_equal(tpm2_flush_context(&tpm, primary), 0);
    /* the endorsement authorization set (the guest can): TPM_RC_BAD_AUTH for session 1 (the
     * hierarchies are exempt from dictionary-attack protection), no key */
    const char *endorsement_set[] = { "tpm2_changeauth", "-c", "e", "set by the guest", NULL };
    tool_must_run_on_sim(&sim, endorsement_set);
    assert_int_equal(swtpm_sim_connect(&sim), 0);
    primary = 7;
    assert_int_equal(tpm2_create_storage_primary(&tpm, &primary), 0x9a2);
    assert_string_equal(tpm.err, "TPM2_CreatePrimary: TPM returned 0x9a2");
    assert_int_equal(primary, 7);
    const char *endorsement_back[] = { "tpm2_changeauth", "-c", "e", "-p", "set by the guest",
                                       "", NULL };
    const char *owner_back[] = { "tpm2_changeauth", "-c", "o", "-p", "hex:0123456789abcdef",
                                 "", NULL };
    tool_must_run_on_sim(&sim, endorsement_back);
    tool_must_run_on_sim(&sim, owner_back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(trial_session_digest, flush_leftovers),
        cmocka_unit_test_teardown(policy_pcr_on_a_trial_session, flush_leftovers),
        cmocka_unit_test_teardown(seal_round_trip, flush_leftovers),
        cmocka_unit_test_teardown(transient_handles_list_the_loaded_objects, flush_leftovers),
        cmocka_unit_test_teardown(unseal_after_extend_fails, flush_leftovers),
        cmocka_unit_test_teardown(pcr_change_after_policy_pcr, flush_leftovers),
        cmocka_unit_test_teardown(tampered_blob_does_not_load, flush_leftovers),
        cmocka_unit_test_teardown(seal_sizes_refused_locally, flush_leftovers),
        cmocka_unit_test_teardown(power_cycle_keeps_the_endorsement_seed, flush_leftovers),
        cmocka_unit_test_teardown(tpm2_tools_unseal_the_blob, flush_leftovers),
        cmocka_unit_test_teardown(storage_primary_needs_no_owner_auth, flush_leftovers),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
