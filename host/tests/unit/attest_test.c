/* SPDX-License-Identifier: MIT */
/*
 * host-unit-attest: unit tests of what vtboot-attest parses and computes (host/lib): the
 * evidence file (evidence.c), the D-RTM event log and its replay (evlog.c), the quote, its
 * signature, the AK's public area and PCR selections (tpmquote.c, on tpm2-tss's unmarshalling),
 * vtboot's block of the shared page (vtbext.c), KDFa and MakeCredential (credential.c).
 * Real data: host/tests/unit/data/attest/, one honest `vtboot-qemu --attest` round trip (its
 * evidence, the quote files the guest wrote, the AK, the nonce). Prints "N passed, N failed".
 * usage: host-unit-attest [DATA-DIR]   (default host/tests/unit/data/attest)
 */
#include "credential.h"
#include "lib/bytes.h"
#include "evidence.h"
#include "evlog.h"
#include "tpmquote.h"
#include "unit.h"
#include "util.h"
#include "vtbext.h"

#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <stdlib.h>
#include <string.h>
#include <tss2/tss2_mu.h>

int unit_passed, unit_failed;
const char *unit_data_dir = "host/tests/unit/data/attest";

static uint8_t *data(const char *name, size_t *len)
{
    char *path = xasprintf("%s/%s", unit_data_dir, name);
    uint8_t *d = file_read_all(path, len, 1 << 20);

    if (!d) {
        printf("FAIL cannot read %s\n", path);
        exit(2);
    }
    free(path);
    return d;
}

static void unhex(const char *s, uint8_t *out, size_t *len)
{
    size_t n = 0;

    for (; hex_digit(s[0]) >= 0 && hex_digit(s[1]) >= 0; s += 2)
        out[n++] = (uint8_t)(hex_digit(s[0]) << 4 | hex_digit(s[1]));
    *len = n;
}

/* ---- evidence ------------------------------------------------------------------------------ */

static void test_evidence(void)
{
    size_t len, blen;
    uint8_t *ev = data("evidence.bin", &len), *b, *m;
    struct evidence e, e2;
    char err[256];
    size_t qlen, slen, plen, llen;
    uint8_t *q = data("quote.msg", &qlen), *s = data("quote.sig", &slen);
    uint8_t *p = data("quote.pcrs", &plen), *l = data("evtlog.bin", &llen);

    CHECK(evidence_parse(ev, len, &e, err, sizeof(err)) == 0, "honest evidence: %s", err);
    /* its records are the files the guest wrote for tpm2_checkquote, byte for byte */
    CHECK(e.rec[EVID_QUOTE].len == qlen && !memcmp(e.rec[EVID_QUOTE].data, q, qlen), "quote");
    CHECK(e.rec[EVID_SIGNATURE].len == slen && !memcmp(e.rec[EVID_SIGNATURE].data, s, slen), "sig");
    CHECK(e.rec[EVID_PCR_VALUES].len == plen && !memcmp(e.rec[EVID_PCR_VALUES].data, p, plen), "pcrs");
    CHECK(e.rec[EVID_EVENT_LOG].len == llen && !memcmp(e.rec[EVID_EVENT_LOG].data, l, llen), "log");
    CHECK(e.rec[EVID_NONCE].len == 32 && e.rec[EVID_TPM_BANKS].data && e.rec[EVID_AK_PUBLIC].data,
          "nonce, banks, AK");
    /* building it again gives the same bytes */
    b = evidence_build(&e, &blen);
    CHECK(b && blen == len && !memcmp(b, ev, len), "rebuilt evidence differs");
    free(b);
    /* every proper prefix is refused (the length field) */
    for (size_t n = 0; n < len; n++)
        if (evidence_parse(ev, n, &e2, err, sizeof(err)) == 0) {
            CHECK(0, "prefix of %zu bytes accepted", n);
            break;
        }
    CHECK(evidence_parse(ev, 11, &e2, err, sizeof(err)) == -1 &&
          !strcmp(err, "11 bytes, shorter than the 12-byte header"), "%s", err);

    m = xmalloc(len + 16);
#define MUTATE(stmt, msg) do { memcpy(m, ev, len); stmt; \
        CHECK(evidence_parse(m, mlen, &e2, err, sizeof(err)) == -1 && !strcmp(err, msg), \
              "%s: got '%s'", msg, err); } while (0)
    size_t mlen = len;
    MUTATE(m[0] = 'X', "not a vtboot-attest evidence file (no \"VTBEVID1\" magic)");
    MUTATE(m[8] ^= 1, "the header says 1685 bytes, the file has 1684 (truncated or extended)");
    /* the first record (type 1 at byte 12) */
    MUTATE(m[12] = 0, "record at byte 12 has the unknown type 0");
    MUTATE(m[12] = 11, "record at byte 12 has the unknown type 11");
    MUTATE(m[14] = 1, "record at byte 12 (AK public area) has a reserved field of 0x0001");
    MUTATE(m[16] = 0xff; m[17] = 0xff, "record at byte 12 (AK public area) of 65535 bytes runs past the end");
    /* the second record turned into a second AK */
    MUTATE(m[12 + 8 + e.rec[EVID_AK_PUBLIC].len] = 1, "record at byte 302: a second AK public area");
    /* a truncated record header at the end */
    mlen = len + 4;
    MUTATE(memset(m + len, 0, 4); m[8] = (uint8_t)(len + 4); m[9] = (uint8_t)((len + 4) >> 8),
           "record header at byte 1684 is truncated");
    mlen = len;
#undef MUTATE
    /* an empty file of records is fine for the parser (the verifier fails what is missing) */
    memset(&e2, 0, sizeof(e2));
    b = evidence_build(&e2, &blen);
    CHECK(b && blen == EVIDENCE_HDR_SIZE && evidence_parse(b, blen, &e2, err, sizeof(err)) == 0,
          "empty evidence");
    free(b);
    free(m);
    free(ev);
    free(q);
    free(s);
    free(p);
    free(l);
}

/* ---- the event log ------------------------------------------------------------------------- */

/* a log with one bank (sha256) and the given events (pcr, type, digest byte) */
static size_t make_log(uint8_t *buf, const uint32_t (*ev)[3], unsigned n)
{
    size_t off = 0;

    memset(buf, 0, 32);
    store_le32(buf + 4, 3);                               /* EV_NO_ACTION */
    store_le32(buf + 28, 28 + 4 + 1);                     /* spec id: header, 1 alg, no vendor */
    off = 32;
    memcpy(buf + off, "Spec ID Event03", 16);
    store_le32(buf + off + 16, 0);
    buf[off + 20] = 0;
    buf[off + 21] = 2;
    buf[off + 22] = 2;
    buf[off + 23] = 2;
    store_le32(buf + off + 24, 1);
    store_le16(buf + off + 28, 0x000b);
    store_le16(buf + off + 30, 32);
    buf[off + 32] = 0;
    off += 33;
    for (unsigned i = 0; i < n; i++) {
        store_le32(buf + off, ev[i][0]);
        store_le32(buf + off + 4, ev[i][1]);
        store_le32(buf + off + 8, 1);
        store_le16(buf + off + 12, 0x000b);
        memset(buf + off + 14, (int)ev[i][2], 32);
        store_le32(buf + off + 46, 2);
        memcpy(buf + off + 50, "ev", 2);
        off += 52;
    }
    return off;
}

static void sha256_ext(uint8_t *pcr, uint8_t byte)
{
    uint8_t in[64];

    memcpy(in, pcr, 32);
    memset(in + 32, byte, 32);
    EVP_Digest(in, 64, pcr, NULL, EVP_sha256(), NULL);
}

/* A TXT launch's log, as the guest read it from the heap (vtboot-qemu --txt --attest with our
 * SINIT and Debian's tboot 1.10.5): the SINIT's 7 records in both banks, tboot's 4 in SHA-256
 * only. evlog_parse refuses it, evlog_parse_txt replays it to the quoted PCRs. */
static void test_evlog_txt(void)
{
    static struct evlog log;
    size_t len, plen;
    uint8_t *l = data("txt-evtlog.bin", &len), *p = data("txt-quote.pcrs", &plen), *m;
    uint8_t out[64];
    char err[256];
    bool launched;

    CHECK(plen == 3 * 20 + 3 * 32, "txt-quote.pcrs: %zu bytes", plen);
    CHECK(evlog_parse(l, len, &log, err, sizeof(err)) == -1 &&
          !strcmp(err, "event 8 at byte 692: 1 digests, the header names 2 algorithms"),
          "vtboot's strict parse refuses tboot's one-bank records: '%s'", err);
    CHECK(evlog_parse_txt(l, len, &log, err, sizeof(err)) == 0, "the TXT log: %s", err);
    CHECK(log.txt && evlog_launch_type(&log) == 0x402 && log.nalgs == 2 && log.nevents == 11,
          "%u events", log.nevents);
    CHECK(log.events[0].pcr == 17 && log.events[0].type == 0x402 && log.events[4].type == 0x404,
          "the SINIT's hash start first, the MLE fifth");
    for (unsigned i = 0; i < log.nevents; i++)
        CHECK((log.events[i].digest[0] != NULL) == (i < 7) && log.events[i].digest[1],
              "event %u's banks", i + 1);
    for (unsigned pcr = 17; pcr <= 19; pcr++) {
        CHECK(evlog_replay(&log, 0x0004, pcr, out, &launched) == 0 && launched &&
              !memcmp(out, p + 20 * (pcr - 17), 20), "sha1 PCR %u: the SINIT's records only",
              pcr);
        CHECK(evlog_replay(&log, 0x000b, pcr, out, &launched) == 0 && launched &&
              !memcmp(out, p + 60 + 32 * (pcr - 17), 32), "sha256 PCR %u", pcr);
    }
    m = xmalloc(len);
    /* no digest at all; more digests than the header names; tboot's record given sha1 too
     * (its count 2 then reads the next record's bytes as a second digest) */
    memcpy(m, l, len);
    m[700] = 0;
    CHECK(evlog_parse_txt(m, len, &log, err, sizeof(err)) == -1 &&
          !strcmp(err, "event 8 at byte 692: 0 digests, the header names 2 algorithms"),
          "no digest: '%s'", err);
    m[700] = 3;
    CHECK(evlog_parse_txt(m, len, &log, err, sizeof(err)) == -1 &&
          !strcmp(err, "event 8 at byte 692: 3 digests, the header names 2 algorithms"),
          "three digests: '%s'", err);
    /* the launch moved: the hash start's type changed, PCR 17 then replays from all-ones */
    memcpy(m, l, len);
    m[80] = 0x03;
    m[81] = 0x05;
    CHECK(evlog_parse_txt(m, len, &log, err, sizeof(err)) == 0 &&
          evlog_replay(&log, 0x000b, 17, out, &launched) == 0 && !launched &&
          memcmp(out, p + 60, 32), "no launch event: no launched PCR 17");
    free(m);
    free(l);
    free(p);
}

static void test_evlog(void)
{
    static struct evlog log;
    static uint8_t buf[4096];
    size_t len, plen;
    uint8_t *l = data("evtlog.bin", &len), *p = data("quote.pcrs", &plen), *m;
    uint8_t out[64], want[32];
    char err[256];
    bool launched;

    CHECK(evlog_parse(l, len, &log, err, sizeof(err)) == 0, "vtboot's log: %s", err);
    CHECK(log.nalgs == 2 && log.alg[0] == 0x0004 && log.alg[1] == 0x000b && log.size[1] == 32,
          "banks");
    CHECK(log.nevents == 5, "%u events", log.nevents);
    CHECK(log.events[0].pcr == 17 && log.events[0].type == 0x404, "the launch first");
    /* vtboot keeps 63 bytes of each event's text */
    CHECK(log.events[3].data_len == 63 &&
          !memcmp(log.events[3].data, "vtboot: module 0: bzImage console=ttyS0 panic=-1 "
                  "vtboot.guest=a", 63), "module 0's event");
    CHECK(log.events[4].data_len == 35 &&
          !memcmp(log.events[4].data, "vtboot: module 1: initrd-attest.img", 35),
          "module 1's event");
    /* it replays to the PCR values the TPM quoted (quote.pcrs: sha1 17-19, sha256 17-19) */
    for (unsigned pcr = 17; pcr <= 19; pcr++) {
        CHECK(evlog_replay(&log, 0x0004, pcr, out, &launched) == 0 && launched &&
              !memcmp(out, p + 20 * (pcr - 17), 20), "sha1 PCR %u", pcr);
        CHECK(evlog_replay(&log, 0x000b, pcr, out, &launched) == 0 && launched &&
              !memcmp(out, p + 60 + 32 * (pcr - 17), 32), "sha256 PCR %u", pcr);
    }
    CHECK(evlog_replay(&log, 0x000c, 17, out, &launched) == -1, "no sha384 bank");
    /* a proper prefix parses only if it ends where an event ends (the header is 76 bytes;
     * events of 12 + 22 + 34 + 4 bytes and their text); the replay catches the rest */
    {
        size_t ends[6] = { 76 }, e = 1;

        for (unsigned i = 0; i < 5; i++, e++)
            ends[e] = ends[e - 1] + 72 + log.events[i].data_len;
        CHECK(ends[5] == len, "events end at %zu", ends[5]);
        for (size_t n = 0; n < len; n++) {
            int rc = evlog_parse(l, n, &log, err, sizeof(err));
            bool boundary = false;

            for (size_t i = 0; i < 5; i++)
                boundary = boundary || n == ends[i];
            if ((rc == 0) != boundary) {
                CHECK(0, "prefix of %zu bytes: %d (%s)", n, rc, err);
                break;
            }
        }
    }

    m = xmalloc(len);
#define MUTATE(stmt, msg) do { memcpy(m, l, len); stmt; \
        CHECK(evlog_parse(m, len, &log, err, sizeof(err)) == -1 && !strcmp(err, msg), \
              "%s: got '%s'", msg, err); } while (0)
    MUTATE(m[0] = 1, "the first record is not a Spec ID event (PCR 0, EV_NO_ACTION, zero digest)");
    MUTATE(m[10] = 1, "the first record is not a Spec ID event (PCR 0, EV_NO_ACTION, zero digest)");
    MUTATE(m[29] = 0xff, "the Spec ID event's size 65324 does not fit the log");
    MUTATE(m[32] = 'X', "the header is not a \"Spec ID Event03\" (not a crypto-agile log)");
    MUTATE(m[56] = 0, "the Spec ID event names 0 algorithms (1 to 8)");
    MUTATE(m[56] = 9, "the Spec ID event names 9 algorithms (1 to 8)");
    /* a third algorithm: its entry is the vendor info's bytes ("vt") */
    MUTATE(m[56] = 3, "algorithm 0x7607 has a digest size of 25204 bytes");
    MUTATE(m[56] = 4, "the Spec ID event's algorithm list does not fit it");
    /* sha1 at 60, sha256 at 64, the vendor info's size at 68 */
    MUTATE(m[66] = 20, "sha256 digests are 32 bytes, not 20");
    MUTATE(m[66] = 65, "algorithm 0x000b has a digest size of 65 bytes");
    MUTATE(m[66] = 0, "algorithm 0x000b has a digest size of 0 bytes");
    MUTATE(m[60] = 0x0b; m[62] = 32, "algorithm 0x000b is named twice");
    MUTATE(m[68] = 3, "the Spec ID event's vendor info (3 bytes) does not end where the event does");
    /* the first event at byte 76: pcr, type, count, then its digests from 88 */
    MUTATE(m[76] = 24, "event 1 at byte 76: PCR 24");
    MUTATE(m[84] = 1, "event 1 at byte 76: 1 digests, the header names 2 algorithms");
    MUTATE(m[88] = 0x0c, "event 1 at byte 76: a digest of algorithm 0x000c, which the header does not name");
    MUTATE(m[110] = 0x04, "event 1 at byte 76: two digests of algorithm 0x0004");
    MUTATE(memset(m + 144, 0xff, 4), "event 1 at byte 76: its 4294967295 data bytes run past the end of the log");
#undef MUTATE
    free(m);

    /* the replay's model, on synthetic logs */
    {
        static const uint32_t no_launch[][3] = { { 17, 0x501, 0xaa } };
        static const uint32_t launch[][3] = { { 17, 0x501, 0xaa }, { 18, 0x501, 0xcc },
                                              { 17, 0x404, 0xbb }, { 19, 0x3, 0xdd },
                                              { 19, 0x501, 0xee } };

        len = make_log(buf, no_launch, 1);
        CHECK(evlog_parse(buf, len, &log, err, sizeof(err)) == 0, "%s", err);
        memset(want, 0xff, 32);
        sha256_ext(want, 0xaa);
        CHECK(evlog_replay(&log, 0x000b, 17, out, &launched) == 0 && !launched &&
              !memcmp(out, want, 32), "PCR 17 without a launch starts all-ones");
        memset(want, 0xff, 32);
        CHECK(evlog_replay(&log, 0x000b, 19, out, &launched) == 0 && !memcmp(out, want, 32),
              "PCR 19 never launched stays all-ones");
        memset(want, 0, 32);
        CHECK(evlog_replay(&log, 0x000b, 16, out, &launched) == 0 && !memcmp(out, want, 32),
              "PCR 16 starts at zero");

        len = make_log(buf, launch, 5);
        CHECK(evlog_parse(buf, len, &log, err, sizeof(err)) == 0, "%s", err);
        memset(want, 0, 32);
        sha256_ext(want, 0xbb);                      /* the launch resets, then extends */
        CHECK(evlog_replay(&log, 0x000b, 17, out, &launched) == 0 && launched &&
              !memcmp(out, want, 32), "PCR 17 from the launch");
        memset(want, 0, 32);                         /* 18's earlier extend is gone */
        CHECK(evlog_replay(&log, 0x000b, 18, out, &launched) == 0 && !memcmp(out, want, 32),
              "PCR 18 reset by the launch");
        memset(want, 0, 32);
        sha256_ext(want, 0xee);                      /* EV_NO_ACTION extends nothing */
        CHECK(evlog_replay(&log, 0x000b, 19, out, &launched) == 0 && !memcmp(out, want, 32),
              "PCR 19: EV_NO_ACTION skipped");
        CHECK(evlog_replay(&log, 0x0004, 17, out, &launched) == -1, "no sha1 bank");
    }
    free(l);
    free(p);
}

/* ---- the quote, its signature, the AK, PCR selections --------------------------------------- */

static void test_quote(void)
{
    size_t qlen, slen, alen, plen, nlen, elen;
    uint8_t *q = data("quote.msg", &qlen), *s = data("quote.sig", &slen);
    uint8_t *a = data("ak.pub", &alen), *p = data("quote.pcrs", &plen);
    uint8_t *namehex = data("ak.name", &nlen), *noncehex = data("nonce", &elen), *m;
    uint8_t name[80], want_name[80], nonce[64], d[64];
    size_t name_len, want_len, nonce_len, dlen;
    TPMS_ATTEST att;
    TPMT_SIGNATURE sig;
    TPM2B_PUBLIC pub;
    TPML_PCR_SELECTION sel;
    EVP_PKEY *pk;
    char err[256], str[128];
    unsigned count;

    namehex[nlen - 1] = 0;
    noncehex[elen - 1] = 0;
    unhex((char *)namehex, want_name, &want_len);
    unhex((char *)noncehex, nonce, &nonce_len);

    CHECK(quote_parse(q, qlen, &att, err, sizeof(err)) == 0, "quote: %s", err);
    CHECK(att.extraData.size == nonce_len && !memcmp(att.extraData.buffer, nonce, nonce_len),
          "the quote's nonce");
    pcrsel_banks_str(&att.attested.quote.pcrSelect, str, sizeof(str));
    CHECK(!strcmp(str, "sha1,sha256"), "banks %s", str);
    pcrsel_tools_str(&att.attested.quote.pcrSelect, str, sizeof(str));
    CHECK(!strcmp(str, "sha1:17,18,19+sha256:17,18,19"), "tools list %s", str);
    CHECK(pcrsel_values_size(&att.attested.quote.pcrSelect, &count) == plen && count == 6,
          "values size");
    CHECK(pcrsel_has(&att.attested.quote.pcrSelect, TPM2_ALG_SHA256, 19) &&
          !pcrsel_has(&att.attested.quote.pcrSelect, TPM2_ALG_SHA256, 16) &&
          !pcrsel_has(&att.attested.quote.pcrSelect, TPM2_ALG_SHA384, 17), "pcrsel_has");
    CHECK(sig_parse(s, slen, &sig, err, sizeof(err)) == 0 && sig.sigAlg == TPM2_ALG_RSASSA &&
          sig.signature.rsassa.hash == TPM2_ALG_SHA256, "signature: %s", err);
    CHECK(public_parse(a, alen, &pub, err, sizeof(err)) == 0, "AK: %s", err);
    CHECK(ak_check(&pub.publicArea, err, sizeof(err)) == 0, "AK rules: %s", err);
    CHECK(public_name(&pub.publicArea, name, &name_len) == 0 && name_len == want_len &&
          !memcmp(name, want_name, name_len), "the AK's name is enroll's");
    /* the signature, with OpenSSL, over the quote */
    pk = public_pkey(&pub.publicArea, err, sizeof(err));
    CHECK(pk && sig_verify(pk, &sig, q, qlen, err, sizeof(err)) == 1, "signature verifies");
    q[qlen - 1] ^= 1;
    CHECK(pk && sig_verify(pk, &sig, q, qlen, err, sizeof(err)) == 0, "flipped quote");
    q[qlen - 1] ^= 1;
    sig.signature.rsassa.sig.buffer[100] ^= 0x80;
    CHECK(pk && sig_verify(pk, &sig, q, qlen, err, sizeof(err)) == 0, "flipped signature");
    EVP_PKEY_free(pk);
    /* the PCR digest: SHA-256 of the values in selection order */
    CHECK(pcr_digest(TPM2_ALG_SHA256, p, plen, d, &dlen) == 0 && dlen == 32 &&
          dlen == att.attested.quote.pcrDigest.size &&
          !memcmp(d, att.attested.quote.pcrDigest.buffer, 32), "pcrDigest");

    /* every proper prefix and one byte more are refused */
    m = xmalloc(512);
    for (size_t n = 0; n < qlen; n++)
        if (quote_parse(q, n, &att, err, sizeof(err)) == 0) {
            CHECK(0, "quote prefix of %zu bytes accepted", n);
            break;
        }
    for (size_t n = 0; n < slen; n++)
        if (sig_parse(s, n, &sig, err, sizeof(err)) == 0) {
            CHECK(0, "signature prefix of %zu bytes accepted", n);
            break;
        }
    for (size_t n = 0; n < alen; n++)
        if (public_parse(a, n, &pub, err, sizeof(err)) == 0) {
            CHECK(0, "AK prefix of %zu bytes accepted", n);
            break;
        }
    memcpy(m, q, qlen);
    m[qlen] = 0;
    CHECK(quote_parse(m, qlen + 1, &att, err, sizeof(err)) == -1 &&
          !strcmp(err, "1 bytes after the TPMS_ATTEST"), "%s", err);
    memcpy(m, s, slen);
    CHECK(sig_parse(m, slen + 1, &sig, err, sizeof(err)) == -1 &&
          !strcmp(err, "1 bytes after the TPMT_SIGNATURE"), "%s", err);

#define QMUT(stmt, msg) do { memcpy(m, q, qlen); stmt; \
        CHECK(quote_parse(m, qlen, &att, err, sizeof(err)) == -1 && !strcmp(err, msg), \
              "%s: got '%s'", msg, err); } while (0)
    QMUT(m[3] ^= 1, "magic 0xff544346, not TPM_GENERATED_VALUE (0xff544347): not made by a TPM");
    /* another type changes the union's layout: the bytes no longer fit */
    QMUT(m[5] = 0x17, "44 bytes after the TPMS_ATTEST");
#undef QMUT
    {
        /* a well-formed attestation of another type (a command audit), made by tpm2-tss */
        TPMS_ATTEST other;
        size_t off = 0;

        CHECK(quote_parse(q, qlen, &other, err, sizeof(err)) == 0, "quote again");
        other.type = TPM2_ST_ATTEST_COMMAND_AUDIT;
        memset(&other.attested, 0, sizeof(other.attested));
        other.attested.commandAudit.digestAlg = TPM2_ALG_SHA256;
        CHECK(Tss2_MU_TPMS_ATTEST_Marshal(&other, m, 512, &off) == 0 &&
              quote_parse(m, off, &att, err, sizeof(err)) == -1 &&
              !strcmp(err, "type 0x8015, not TPM_ST_ATTEST_QUOTE (0x8018)"), "%s", err);
    }
    memcpy(m, s, slen);
    m[1] = 0x18;                                   /* ECDSA */
    CHECK(sig_parse(m, slen, &sig, err, sizeof(err)) == -1, "ECDSA refused");
    memcpy(m, s, slen);
    m[3] = 0x12;                                   /* SM3 */
    CHECK(sig_parse(m, slen, &sig, err, sizeof(err)) == -1 &&
          !strcmp(err, "signature hash 0x0012 is not SHA-1/256/384/512"), "%s", err);
    /* TPM2B_PUBLIC whose size field is not the area's */
    memcpy(m, a, alen);
    m[1] ^= 1;
    CHECK(public_parse(m, alen, &pub, err, sizeof(err)) == -1, "AK size field");

    /* the AK rules */
    CHECK(public_parse(a, alen, &pub, err, sizeof(err)) == 0, "AK again");
    pub.publicArea.objectAttributes &= ~TPMA_OBJECT_RESTRICTED;
    CHECK(ak_check(&pub.publicArea, err, sizeof(err)) == -1 &&
          !strcmp(err, "not restricted (attributes 0x00040472): not an attestation key"), "%s", err);
    pub.publicArea.objectAttributes |= TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
    CHECK(ak_check(&pub.publicArea, err, sizeof(err)) == -1 &&
          !strcmp(err, "a decryption key too (attributes 0x00070472)"), "%s", err);
    pub.publicArea.objectAttributes &= ~(TPMA_OBJECT_DECRYPT | TPMA_OBJECT_FIXEDTPM);
    CHECK(ak_check(&pub.publicArea, err, sizeof(err)) == -1 &&
          !strcmp(err, "not fixedTPM (attributes 0x00050470): not an attestation key"), "%s", err);
    pub.publicArea.objectAttributes |= TPMA_OBJECT_FIXEDTPM;
    pub.publicArea.nameAlg = TPM2_ALG_SHA1;
    CHECK(ak_check(&pub.publicArea, err, sizeof(err)) == -1 &&
          !strcmp(err, "name algorithm 0x0004, not SHA-256/384/512"), "%s", err);
    pub.publicArea.nameAlg = TPM2_ALG_SHA256;
    pub.publicArea.parameters.rsaDetail.keyBits = 1024;
    CHECK(ak_check(&pub.publicArea, err, sizeof(err)) == -1 &&
          !strcmp(err, "an RSA key of 1024 bits with a 256-byte modulus (2048 bits or more)"),
          "%s", err);

    /* PCR selections: marshalled by tpm2-tss, then checked */
    {
        uint8_t buf[sizeof(TPML_PCR_SELECTION)];
        size_t off;
        uint16_t algs[4];
        unsigned n;

#define SEL(stmt, msg) do { memset(&sel, 0, sizeof(sel)); pcrsel_make(&sel, (uint16_t[]){ \
        TPM2_ALG_SHA1, TPM2_ALG_SHA256 }, 2, 0xe0000); stmt; off = 0; \
        Tss2_MU_TPML_PCR_SELECTION_Marshal(&sel, buf, sizeof(buf), &off); \
        CHECK(pcrsel_parse(buf, off, &sel, err, sizeof(err)) == (msg ? -1 : 0) && \
              (!msg || !strcmp(err, msg ? msg : "")), "%s: got '%s'", msg ? msg : "valid", err); \
    } while (0)
        SEL((void)0, NULL);
        SEL(sel.pcrSelections[1].hash = TPM2_ALG_SHA1, "PCR selection: bank sha1 named twice");
        SEL(sel.pcrSelections[0].hash = 0x0012, "PCR selection 0: hash 0x0012 is not SHA-1/256/384/512");
        SEL(sel.pcrSelections[0].sizeofSelect = 2, "PCR selection of sha1: sizeofSelect 2 (3 or 4)");
        SEL(sel.pcrSelections[0].sizeofSelect = 4; sel.pcrSelections[0].pcrSelect[3] = 1,
            "PCR selection of sha1 names a PCR above 23");
#undef SEL
        memset(&sel, 0, sizeof(sel));
        sel.count = 17;
        off = 0;
        CHECK(Tss2_MU_TPML_PCR_SELECTION_Marshal(&sel, buf, sizeof(buf), &off) != 0 ||
              pcrsel_parse(buf, off, &sel, err, sizeof(err)) == -1, "17 banks refused");
        buf[0] = buf[1] = buf[2] = 0;
        buf[3] = 17;
        CHECK(pcrsel_parse(buf, 4, &sel, err, sizeof(err)) == -1, "a count of 17");
        CHECK(pcrsel_parse_banks("sha1,sha256", algs, &n, err, sizeof(err)) == 0 && n == 2 &&
              algs[0] == TPM2_ALG_SHA1 && algs[1] == TPM2_ALG_SHA256, "banks list");
        CHECK(pcrsel_parse_banks("sha512", algs, &n, err, sizeof(err)) == 0 && n == 1, "one bank");
        CHECK(pcrsel_parse_banks("sha256,sha256", algs, &n, err, sizeof(err)) == -1 &&
              !strcmp(err, "'sha256,sha256': sha256 named twice"), "%s", err);
        CHECK(pcrsel_parse_banks("sha3", algs, &n, err, sizeof(err)) == -1 &&
              !strcmp(err, "'sha3': expected a comma list of sha1, sha256, sha384, sha512"), "%s",
              err);
        CHECK(pcrsel_parse_banks("", algs, &n, err, sizeof(err)) == -1, "empty list");
        CHECK(pcrsel_parse_banks("sha1,", algs, &n, err, sizeof(err)) == -1, "trailing comma");
    }
    free(m);
    free(q);
    free(s);
    free(a);
    free(p);
    free(namehex);
    free(noncehex);
}

/* ---- vtboot's block of the shared page ------------------------------------------------------ */

static void test_vtbext(void)
{
    uint8_t bp[0x100] = { 0 }, blk[64] = { 0x3c, 0x1f, 0x5a, 0x8e, 0x2d, 0x7b, 0x9e, 0x4c,
                                            0xa6, 0xf0, 0x5d, 0x4b, 0x3c, 0x2a, 0x19, 0x08 };
    struct vtbext x;
    uint64_t addr;
    char err[256];

    CHECK(vtbext_tboot_addr(bp, sizeof(bp), &addr, err, sizeof(err)) == -1 &&
          !strcmp(err, "boot_params.tboot_addr is 0: the kernel was not started by tboot or vtboot"),
          "%s", err);
    CHECK(vtbext_tboot_addr(bp, 0x5f, &addr, err, sizeof(err)) == -1 &&
          !strcmp(err, "boot_params of 95 bytes has no tboot_addr"), "%s", err);
    store_le32(bp + 0x58, 0x801000);
    CHECK(vtbext_tboot_addr(bp, sizeof(bp), &addr, err, sizeof(err)) == 0 && addr == 0x801000,
          "tboot_addr");
    store_le32(bp + 0x58, 0x801004);
    CHECK(vtbext_tboot_addr(bp, sizeof(bp), &addr, err, sizeof(err)) == -1, "not a page");
    store_le32(bp + 0x58, 0x801000);
    store_le32(bp + 0x5c, 1);
    CHECK(vtbext_tboot_addr(bp, sizeof(bp), &addr, err, sizeof(err)) == -1 &&
          !strcmp(err, "boot_params.tboot_addr 0x100801000 is not a page below 4 GiB"), "%s", err);

    store_le32(blk + 16, 1);                              /* version */
    store_le32(blk + 20, 64);                             /* size */
    store_le32(blk + 24, 7);                              /* flags */
    store_le32(blk + 28, 0x802000);
    store_le32(blk + 32, 0x10000);
    store_le32(blk + 36, 638);
    CHECK(vtbext_parse(blk, 64, &x, err, sizeof(err)) == 0 && x.evtlog_addr == 0x802000 &&
          x.evtlog_used == 638 && x.flags == 7, "block: %s", err);
    CHECK(vtbext_parse(blk, 63, &x, err, sizeof(err)) == -1 &&
          !strcmp(err, "vtboot's block: 63 bytes, not 64"), "%s", err);
    store_le32(blk + 36, 0x10001);
    CHECK(vtbext_parse(blk, 64, &x, err, sizeof(err)) == -1 &&
          !strcmp(err, "vtboot's block lists an event log of 65537 of 65536 bytes at 0x00802000: "
                  "not a log"), "%s", err);
    store_le32(blk + 36, 0);
    store_le32(blk + 24, 1);
    CHECK(vtbext_parse(blk, 64, &x, err, sizeof(err)) == -1 &&
          !strcmp(err, "vtboot's block lists no event log (flags 0x1: no dynamic launch)"), "%s",
          err);
    store_le32(blk + 20, 60);
    CHECK(vtbext_parse(blk, 64, &x, err, sizeof(err)) == -1 &&
          !strcmp(err, "vtboot's block has version 1 and size 60 (version 1, size 64)"), "%s", err);
    store_le32(blk + 20, 64);
    store_le32(blk + 36, 10);
    store_le32(blk + 28, 0xffff8000);
    CHECK(vtbext_parse(blk, 64, &x, err, sizeof(err)) == -1, "log past 4 GiB");
    blk[0] ^= 1;
    CHECK(vtbext_parse(blk, 64, &x, err, sizeof(err)) == -1 &&
          !strcmp(err, "no vtboot block at offset 0x800 of the shared page (its UUID is missing)"),
          "%s", err);
}

/* ---- KDFa and MakeCredential ---------------------------------------------------------------- */

static void test_credential(void)
{
    uint8_t key[32], out[64], name[34];
    char hex[129];
    TPM2B_ID_OBJECT blob;
    TPM2B_ENCRYPTED_SECRET secret;
    EVP_PKEY *rsa = EVP_RSA_gen(2048);
    char err[256];

    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)i;
    name[0] = 0x00;
    name[1] = 0x0b;
    memcpy(name + 2, key, 32);
    /* expected values from an independent KDFa (Python's hmac, SP 800-108 counter mode) */
    CHECK(kdfa(TPM2_ALG_SHA256, key, 32, "STORAGE", name, 34, NULL, 0, 128, out) == 0, "kdfa");
    hex_encode(out, 16, hex);
    CHECK(!strcmp(hex, "8b9746d9cde648e20ad34f7c5099ae8f"), "KDFa STORAGE %s", hex);
    CHECK(kdfa(TPM2_ALG_SHA256, key, 32, "INTEGRITY", NULL, 0, NULL, 0, 256, out) == 0, "kdfa");
    hex_encode(out, 32, hex);
    CHECK(!strcmp(hex, "bacf689f634ece301e1f1b15b072d9c87db6a69585db42b1a0cb8f73ebe2692e"),
          "KDFa INTEGRITY %s", hex);
    CHECK(kdfa(TPM2_ALG_SHA1, key, 20, "KDFTEST", (const uint8_t *)"abc", 3,
               (const uint8_t *)"defg", 4, 488, out) == 0, "kdfa");
    hex_encode(out, 61, hex);
    CHECK(!strcmp(hex, "b3abf2b26ce30955479839e6de4b975d2b6701ab74ca2097ddd3a9e5e05869770c6829"
                  "1638616d4a6351a3e682c31874d8ef8e45949f6d972b0e5984c5"), "KDFa multi-block %s",
          hex);
    CHECK(kdfa(TPM2_ALG_SHA256, key, 32, "X", NULL, 0, NULL, 0, 12, out) == -1, "bits not a multiple of 8");

    /* MakeCredential: the seed decrypts with the RSA key under OAEP "IDENTITY" */
    CHECK(rsa && credential_make(rsa, TPM2_ALG_SHA256, 128, name, 34, key, 32, &blob, &secret,
                                 err, sizeof(err)) == 0, "credential: %s", err);
    CHECK(secret.size == 256 && blob.size == 2 + 32 + 2 + 32, "blob %u, secret %u", blob.size,
          secret.size);
    {
        EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(rsa, NULL);
        unsigned char *label = OPENSSL_malloc(9), seed[256];
        size_t slen = sizeof(seed);
        uint8_t sym[16], hk[32], mac[32], plain[34];
        unsigned mlen;
        int outl;
        EVP_CIPHER_CTX *cc = EVP_CIPHER_CTX_new();
        uint8_t iv[16] = { 0 }, macin[34 + 34];

        memcpy(label, "IDENTITY", 9);
        CHECK(c && EVP_PKEY_decrypt_init(c) > 0 &&
              EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_OAEP_PADDING) > 0 &&
              EVP_PKEY_CTX_set_rsa_oaep_md(c, EVP_sha256()) > 0 &&
              EVP_PKEY_CTX_set0_rsa_oaep_label(c, label, 9) > 0 &&
              EVP_PKEY_decrypt(c, seed, &slen, secret.secret, secret.size) > 0 && slen == 32,
              "the seed decrypts");
        /* the outer HMAC and the inner credential, as a TPM checks them */
        kdfa(TPM2_ALG_SHA256, seed, 32, "STORAGE", name, 34, NULL, 0, 128, sym);
        kdfa(TPM2_ALG_SHA256, seed, 32, "INTEGRITY", NULL, 0, NULL, 0, 256, hk);
        memcpy(macin, blob.credential + 34, 34);
        memcpy(macin + 34, name, 34);
        HMAC(EVP_sha256(), hk, 32, macin, sizeof(macin), mac, &mlen);
        CHECK(blob.credential[0] == 0 && blob.credential[1] == 32 &&
              !memcmp(blob.credential + 2, mac, 32), "outer HMAC");
        CHECK(cc && EVP_DecryptInit_ex(cc, EVP_aes_128_cfb128(), NULL, sym, iv) &&
              EVP_DecryptUpdate(cc, plain, &outl, blob.credential + 34, 34) && outl == 34 &&
              plain[0] == 0 && plain[1] == 32 && !memcmp(plain + 2, key, 32), "the credential");
        EVP_CIPHER_CTX_free(cc);
        EVP_PKEY_CTX_free(c);
    }
    CHECK(credential_make(rsa, TPM2_ALG_SHA256, 192, name, 34, key, 32, &blob, &secret, err,
                          sizeof(err)) == -1 &&
          !strcmp(err, "EK name algorithm 0x000b / AES-192 not supported"), "%s", err);
    CHECK(credential_make(rsa, TPM2_ALG_SHA256, 128, name, 34, key, 0, &blob, &secret, err,
                          sizeof(err)) == -1 &&
          !strcmp(err, "a credential of 0 bytes (1 to 32)"), "%s", err);
    EVP_PKEY_free(rsa);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        unit_data_dir = argv[1];
    setenv("TSS2_LOG", "all+NONE", 1);     /* tpm2-tss's own warnings on refused input */
    test_evidence();
    test_evlog();
    test_evlog_txt();
    test_quote();
    test_vtbext();
    test_credential();
    printf("host unit (attest): %d passed, %d failed\n", unit_passed, unit_failed);
    return unit_failed ? 1 : 0;
}
