/* SPDX-License-Identifier: MIT */
/*
 * vtboot-attest verify: the verifier. Every check prints one line, "<check>: ok: ..." or
 * "<check>: FAIL: <reason>" (details indented below it), in this order, whatever failed before:
 *
 *   evidence    the file parses, with every record a verifier needs
 *   ak          the enrollment record is sound (its EK certificate chains to --ca) and the
 *               quote's AK is the enrolled one
 *   quote       the quote is TPM-generated (TPM_GENERATED_VALUE) and a quote
 *   signature   the quote's signature verifies with the enrolled AK (not the evidence's key)
 *   nonce       the quote is over the verifier's nonce
 *   pcr-digest  the PCR values are the quote's selection and hash to its PCR digest
 *   banks       PCRs 17-19 are quoted in every bank the TPM has (enrollment, the TPM's own
 *               report, the event log's banks)
 *   event-log   the D-RTM event log replays to the quoted PCRs 17-19 in every quoted bank
 *               (evlog.h: 17-22 start all-ones, the launch event resets them; with --sinit
 *               the TXT heap's log of an Intel TXT launch, evlog_parse_txt)
 *   launch      PCR 17 is not all-ones and starts at the launch event: a dynamic launch
 *   expected    PCRs 17-19 are vtboot-pcr's prediction (host/lib predict.c, linked) for the
 *               expected files and strings (with --sinit: `vtboot-pcr predict --sinit`'s, the
 *               SINIT's events and tboot's); if not, which measurement differs
 *
 * then "VERDICT: PASS", or "VERDICT: FAIL (<checks>)". Exit 0 only if every check passed. A
 * check whose input is missing fails ("not checked: ..."): nothing is skipped.
 */
#include "attest.h"
#include "evidence.h"
#include "evlog.h"
#include "expect.h"
#include "expectopt.h"
#include "log.h"
#include "tpmquote.h"
#include "util.h"

#include "abi/tcg_eventlog.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tss2/tss2_mu.h>

enum { C_EVIDENCE, C_AK, C_QUOTE, C_SIGNATURE, C_NONCE, C_PCR_DIGEST, C_BANKS, C_EVENT_LOG,
       C_LAUNCH, C_EXPECTED, C_N };
static const char *const check_name[C_N] = {
    "evidence", "ak", "quote", "signature", "nonce", "pcr-digest", "banks", "event-log", "launch",
    "expected",
};

#define MAX_DETAIL 4

struct result {
    bool ok;
    char line[1024];
    unsigned ndetail;
    char detail[MAX_DETAIL][1024];
};

struct verify {
    /* options */
    const char *evidence_path, *enrolled, *ca, *nonce_hex;
    struct expect_opts expect;
    /* the evidence */
    uint8_t *buf;
    size_t len;
    struct evidence ev;
    bool ev_ok;
    TPM2B_PUBLIC ak;
    TPMT_SIGNATURE sig;
    TPML_PCR_SELECTION vsel, tpm_banks;
    const uint8_t *values;
    TPMS_ATTEST quote;
    bool quote_ok;
    struct evlog log;
    bool log_ok, log_replays;
    /* the enrollment */
    TPM2B_PUBLIC rec_ak;
    uint8_t *rec_ak_buf;
    size_t rec_ak_len;
    bool rec_ok;
    uint16_t rec_banks[4];
    unsigned nrec_banks;
    bool nonce_ok_input;
    struct result r[C_N];
};

static void __attribute__((format(printf, 4, 0)))
vset(struct verify *v, int c, bool ok, const char *fmt, va_list ap)
{
    v->r[c].ok = ok;
    vsnprintf(v->r[c].line, sizeof(v->r[c].line), fmt, ap);
}

static void __attribute__((format(printf, 3, 4))) pass(struct verify *v, int c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vset(v, c, true, fmt, ap);
    va_end(ap);
}

static int __attribute__((format(printf, 3, 4))) failc(struct verify *v, int c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vset(v, c, false, fmt, ap);
    va_end(ap);
    return -1;
}

static void __attribute__((format(printf, 3, 4))) detail(struct verify *v, int c, const char *fmt, ...)
{
    va_list ap;

    if (v->r[c].ndetail == MAX_DETAIL)
        return;
    va_start(ap, fmt);
    vsnprintf(v->r[c].detail[v->r[c].ndetail++], sizeof(v->r[c].detail[0]), fmt, ap);
    va_end(ap);
}

static void hex(const uint8_t *d, size_t n, char *out)
{
    hex_encode(d, n, out);
}

/* the value of (alg, pcr) among the evidence's PCR values, or NULL */
static const uint8_t *value_of(const struct verify *v, uint16_t alg, unsigned pcr)
{
    size_t off = 0;

    for (unsigned b = 0; b < v->vsel.count; b++)
        for (unsigned p = 0; p < 24; p++) {
            uint16_t h = v->vsel.pcrSelections[b].hash;

            if (!pcrsel_has(&v->vsel, h, p))
                continue;
            if (h == alg && p == pcr)
                return v->values + off;
            off += tpm_hash_size(h);
        }
    return NULL;
}

static bool all_ones(const uint8_t *d, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (d[i] != 0xff)
            return false;
    return true;
}

/* printable text of a record (the event log source), for a message */
static void text_of(const struct evidence_rec *r, char *out, size_t outsz)
{
    size_t n = 0;

    for (size_t i = 0; r->data && i < r->len && n + 1 < outsz; i++)
        out[n++] = r->data[i] >= 0x20 && r->data[i] < 0x7f ? (char)r->data[i] : '?';
    out[n] = 0;
}

static void check_evidence(struct verify *v)
{
    static const unsigned need[] = { EVID_AK_PUBLIC, EVID_QUOTE, EVID_SIGNATURE,
                                     EVID_PCR_SELECTION, EVID_PCR_VALUES, EVID_TPM_BANKS };
    const int c = C_EVIDENCE;
    char err[512], banks[64];
    unsigned count;

    if (!v->evidence_path) {
        failc(v, c, "no --evidence FILE given");
        return;
    }
    v->buf = file_read_all(v->evidence_path, &v->len, EVIDENCE_MAX_SIZE);
    if (!v->buf) {
        failc(v, c, "cannot read %s: %s", v->evidence_path, strerror(errno));
        return;
    }
    if (evidence_parse(v->buf, v->len, &v->ev, err, sizeof(err))) {
        failc(v, c, "%s: %s", v->evidence_path, err);
        return;
    }
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
        if (!v->ev.rec[need[i]].data) {
            failc(v, c, "the evidence has no %s", evidence_type_name(need[i]));
            return;
        }
    if (public_parse(v->ev.rec[EVID_AK_PUBLIC].data, v->ev.rec[EVID_AK_PUBLIC].len, &v->ak, err,
                     sizeof(err)) ||
        sig_parse(v->ev.rec[EVID_SIGNATURE].data, v->ev.rec[EVID_SIGNATURE].len, &v->sig, err,
                  sizeof(err)) ||
        pcrsel_parse(v->ev.rec[EVID_PCR_SELECTION].data, v->ev.rec[EVID_PCR_SELECTION].len,
                     &v->vsel, err, sizeof(err)) ||
        pcrsel_parse(v->ev.rec[EVID_TPM_BANKS].data, v->ev.rec[EVID_TPM_BANKS].len,
                     &v->tpm_banks, err, sizeof(err))) {
        failc(v, c, "malformed: %s", err);
        return;
    }
    if (pcrsel_values_size(&v->vsel, &count) != v->ev.rec[EVID_PCR_VALUES].len) {
        failc(v, c, "malformed: %zu bytes of PCR values for a selection of %zu bytes",
              v->ev.rec[EVID_PCR_VALUES].len, pcrsel_values_size(&v->vsel, &count));
        return;
    }
    v->values = v->ev.rec[EVID_PCR_VALUES].data;
    v->ev_ok = true;
    pcrsel_banks_str(&v->vsel, banks, sizeof(banks));
    pass(v, c, "%zu bytes: a quote, its signature, the AK, %u PCR values of %s, %s", v->len,
         count, banks, v->ev.rec[EVID_EVENT_LOG].data ? "an event log" : "no event log");
}

static void check_ak(struct verify *v)
{
    const int c = C_AK;
    char err[512], *path, subj[256], line[128];
    uint8_t name[2 + 64], ename[2 + 64];
    size_t nlen, elen, len;
    uint8_t *txt;
    X509 *cert;

    if (!v->enrolled) {
        failc(v, c, "no --enrolled DIR: the AK cannot be checked against an enrollment");
        return;
    }
    path = xasprintf("%s/%s", v->enrolled, REC_AK_PUB);
    v->rec_ak_buf = file_read_all(path, &v->rec_ak_len, sizeof(TPM2B_PUBLIC) + 2);
    if (!v->rec_ak_buf) {
        failc(v, c, "the enrollment record has no %s: %s", path, strerror(errno));
        free(path);
        return;
    }
    free(path);
    if (public_parse(v->rec_ak_buf, v->rec_ak_len, &v->rec_ak, err, sizeof(err)) ||
        ak_check(&v->rec_ak.publicArea, err, sizeof(err))) {
        failc(v, c, "the enrolled AK is not an attestation key: %s", err);
        return;
    }
    path = xasprintf("%s/%s", v->enrolled, REC_BANKS);
    txt = file_read_all(path, &len, 128);
    free(path);
    if (!txt) {
        failc(v, c, "the enrollment record has no %s", REC_BANKS);
        return;
    }
    snprintf(line, sizeof(line), "%.*s", (int)len, (char *)txt);
    free(txt);
    line[strcspn(line, "\n")] = 0;
    if (pcrsel_parse_banks(line, v->rec_banks, &v->nrec_banks, err, sizeof(err))) {
        failc(v, c, "the enrollment record's %s: %s", REC_BANKS, err);
        return;
    }
    v->rec_ok = true;          /* the enrolled AK can check the signature */
    if (!v->ca) {
        failc(v, c, "no --ca FILE: the enrolled EK certificate cannot be checked");
        return;
    }
    path = xasprintf("%s/%s", v->enrolled, REC_EK_CERT);
    cert = cert_load(path, err, sizeof(err));
    free(path);
    if (!cert) {
        failc(v, c, "the enrollment record's EK certificate: %s", err);
        return;
    }
    path = xasprintf("%s/%s", v->enrolled, REC_EK_CHAIN);
    cert_subject(cert, subj, sizeof(subj), false);
    if (cert_verify(cert, v->ca, path, err, sizeof(err))) {
        failc(v, c, "the enrolled EK certificate does not chain to the CA %s: %s", v->ca, err);
        X509_free(cert);
        free(path);
        return;
    }
    X509_free(cert);
    free(path);
    if (!v->ev_ok) {
        failc(v, c, "not checked: the evidence did not parse");
        return;
    }
    if (public_name(&v->rec_ak.publicArea, name, &nlen) ||
        public_name(&v->ak.publicArea, ename, &elen)) {
        failc(v, c, "cannot compute the AKs' names");
        return;
    }
    {
        char h1[2 * sizeof(name) + 1], h2[2 * sizeof(name) + 1];

        hex(name, nlen, h1);
        hex(ename, elen, h2);
        if (nlen != elen || memcmp(name, ename, nlen) ||
            v->rec_ak_len != v->ev.rec[EVID_AK_PUBLIC].len ||
            memcmp(v->rec_ak_buf, v->ev.rec[EVID_AK_PUBLIC].data, v->rec_ak_len)) {
            failc(v, c, "the quote's AK is not the AK enrolled for this TPM");
            detail(v, c, "the evidence's AK: %s", h2);
            detail(v, c, "the enrolled AK:   %s", h1);
            return;
        }
        pass(v, c, "the enrolled AK (name %s); its EK certificate (%s) chains to the CA", h1,
             subj);
    }
}

static void check_quote(struct verify *v)
{
    const int c = C_QUOTE;
    char err[512], banks[64];

    if (!v->ev.rec[EVID_QUOTE].data) {
        failc(v, c, "not checked: the evidence has no quote");
        return;
    }
    if (quote_parse(v->ev.rec[EVID_QUOTE].data, v->ev.rec[EVID_QUOTE].len, &v->quote, err,
                    sizeof(err))) {
        failc(v, c, "not a TPM quote: %s", err);
        return;
    }
    v->quote_ok = true;
    pcrsel_banks_str(&v->quote.attested.quote.pcrSelect, banks, sizeof(banks));
    pass(v, c, "made by a TPM (TPM_GENERATED_VALUE), a quote of PCRs in %s", banks);
}

static void check_signature(struct verify *v)
{
    const int c = C_SIGNATURE;
    char err[512];
    EVP_PKEY *pk;
    int ok;

    if (!v->rec_ok) {
        failc(v, c, "not checked: no enrolled AK");
        return;
    }
    if (!v->ev_ok) {
        failc(v, c, "not checked: the evidence did not parse");
        return;
    }
    pk = public_pkey(&v->rec_ak.publicArea, err, sizeof(err));
    if (!pk) {
        failc(v, c, "the enrolled AK: %s", err);
        return;
    }
    ok = sig_verify(pk, &v->sig, v->ev.rec[EVID_QUOTE].data, v->ev.rec[EVID_QUOTE].len, err,
                    sizeof(err));
    EVP_PKEY_free(pk);
    if (ok < 0)
        failc(v, c, "%s", err);
    else if (!ok)
        failc(v, c, "the quote's signature does not verify with the enrolled AK");
    else
        pass(v, c, "%s with %s over the quote, by the enrolled AK",
             v->sig.sigAlg == TPM2_ALG_RSAPSS ? "RSAPSS" : "RSASSA",
             tpm_hash_name(v->sig.signature.rsassa.hash));
}

static void check_nonce(struct verify *v)
{
    const int c = C_NONCE;
    uint8_t want[64];
    size_t wlen;
    const TPM2B_DATA *got = &v->quote.extraData;

    if (!v->nonce_hex) {
        failc(v, c, "no --nonce given: without the verifier's fresh nonce a quote can be a "
              "replay");
        return;
    }
    if (parse_hex(v->nonce_hex, want, sizeof(want), &wlen)) {
        failc(v, c, "--nonce '%s' is not 1 to 64 bytes in hex", v->nonce_hex);
        return;
    }
    if (!v->quote_ok) {
        failc(v, c, "not checked: no quote");
        return;
    }
    if (got->size != wlen || memcmp(got->buffer, want, wlen)) {
        char h[2 * sizeof(got->buffer) + 1];

        hex(got->buffer, got->size, h);
        failc(v, c, "the quote is over another nonce: a replayed quote, or one made for "
              "another verifier");
        detail(v, c, "the quote's nonce: %s", got->size ? h : "(none)");
        detail(v, c, "the verifier's:    %s", v->nonce_hex);
        return;
    }
    pass(v, c, "the verifier's nonce (%zu bytes)", wlen);
}

static bool same_selection(const TPML_PCR_SELECTION *a, const TPML_PCR_SELECTION *b)
{
    if (a->count != b->count)
        return false;
    for (unsigned i = 0; i < a->count; i++)
        for (unsigned pcr = 0; pcr < 24; pcr++)
            if (a->pcrSelections[i].hash != b->pcrSelections[i].hash ||
                pcrsel_has(a, a->pcrSelections[i].hash, pcr) !=
                    pcrsel_has(b, a->pcrSelections[i].hash, pcr))
                return false;
    return true;
}

static void check_pcr_digest(struct verify *v)
{
    const int c = C_PCR_DIGEST;
    const TPM2B_DIGEST *want = &v->quote.attested.quote.pcrDigest;
    uint8_t d[64];
    size_t dlen;
    unsigned count;

    if (!v->ev_ok || !v->quote_ok) {
        failc(v, c, "not checked: %s", v->ev_ok ? "no quote" : "the evidence did not parse");
        return;
    }
    if (!same_selection(&v->vsel, &v->quote.attested.quote.pcrSelect)) {
        failc(v, c, "the PCR values are of another selection than the quote's");
        return;
    }
    if (pcr_digest(v->sig.signature.rsassa.hash, v->values, v->ev.rec[EVID_PCR_VALUES].len, d,
                   &dlen) ||
        dlen != want->size || memcmp(d, want->buffer, dlen)) {
        failc(v, c, "the PCR values do not match the quote's PCR digest");
        return;
    }
    pcrsel_values_size(&v->vsel, &count);
    pass(v, c, "the %u PCR values hash (%s) to the quote's PCR digest", count,
         tpm_hash_name(v->sig.signature.rsassa.hash));
}

static void add_bank(uint16_t *banks, unsigned *n, uint16_t alg)
{
    for (unsigned i = 0; i < *n; i++)
        if (banks[i] == alg)
            return;
    if (*n < 16 && tpm_hash_name(alg))
        banks[(*n)++] = alg;
}

static void check_banks(struct verify *v)
{
    const int c = C_BANKS;
    const TPML_PCR_SELECTION *q = &v->quote.attested.quote.pcrSelect;
    uint16_t banks[16];
    unsigned n = 0;
    char list[128] = "";

    if (!v->quote_ok || !v->ev_ok) {
        failc(v, c, "not checked: %s", v->ev_ok ? "no quote" : "the evidence did not parse");
        return;
    }
    /* what the TPM has: the enrollment's record (the host asked the TPM), the TPM's answer in
     * the guest, the banks vtboot hashed (its log header) */
    for (unsigned i = 0; i < v->nrec_banks; i++)
        add_bank(banks, &n, v->rec_banks[i]);
    for (unsigned i = 0; i < v->tpm_banks.count; i++)
        add_bank(banks, &n, v->tpm_banks.pcrSelections[i].hash);
    if (v->log_ok)
        for (unsigned i = 0; i < v->log.nalgs; i++)
            add_bank(banks, &n, v->log.alg[i]);
    for (unsigned i = 0; i < n; i++) {
        size_t used = strlen(list);

        snprintf(list + used, sizeof(list) - used, "%s%s", i ? "," : "", tpm_hash_name(banks[i]));
    }
    if (!v->rec_ok) {
        failc(v, c, "not checked: no enrollment record says which banks the TPM has");
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        bool any = false, all = true;

        for (unsigned pcr = 17; pcr <= 19; pcr++) {
            any = any || pcrsel_has(q, banks[i], pcr);
            all = all && pcrsel_has(q, banks[i], pcr);
        }
        if (!any) {
            failc(v, c, "the quote leaves out the %s bank (the TPM has %s)",
                  tpm_hash_name(banks[i]), list);
            return;
        }
        for (unsigned pcr = 17; !all && pcr <= 19; pcr++)
            if (!pcrsel_has(q, banks[i], pcr)) {
                failc(v, c, "the quote leaves out PCR %u of %s", pcr, tpm_hash_name(banks[i]));
                return;
            }
    }
    pass(v, c, "PCRs 17-19 are quoted in every bank the TPM has: %s", list);
}

static void check_event_log(struct verify *v)
{
    const int c = C_EVENT_LOG;
    const struct evidence_rec *r = &v->ev.rec[EVID_EVENT_LOG];
    const TPML_PCR_SELECTION *q = &v->quote.attested.quote.pcrSelect;
    char err[512], banks[64];

    if (!v->ev_ok) {
        failc(v, c, "not checked: the evidence did not parse");
        return;
    }
    if (!r->data) {
        char src[300];

        text_of(&v->ev.rec[EVID_EVENT_LOG_SOURCE], src, sizeof(src));
        failc(v, c, "the evidence has no event log (%s)", src[0] ? src : "no reason given");
        return;
    }
    if ((v->expect.sinit ? evlog_parse_txt : evlog_parse)(r->data, r->len, &v->log, err,
                                                          sizeof(err))) {
        failc(v, c, "the event log is malformed: %s", err);
        return;
    }
    v->log_ok = true;
    if (!v->quote_ok) {
        failc(v, c, "not checked: no quote");
        return;
    }
    for (unsigned b = 0; b < q->count; b++) {
        uint16_t alg = q->pcrSelections[b].hash;

        if (evlog_alg_index(&v->log, alg) < 0) {
            failc(v, c, "the event log has no %s digests (the quote has that bank)",
                  tpm_hash_name(alg));
            return;
        }
        for (unsigned pcr = 17; pcr <= 19; pcr++) {
            const uint8_t *want = value_of(v, alg, pcr);
            uint8_t got[64];
            bool launched;

            if (!want)
                continue;
            if (evlog_replay(&v->log, alg, pcr, got, &launched)) {
                failc(v, c, "cannot replay the %s bank", tpm_hash_name(alg));
                return;
            }
            if (memcmp(got, want, tpm_hash_size(alg))) {
                char h1[129], h2[129];

                hex(got, tpm_hash_size(alg), h1);
                hex(want, tpm_hash_size(alg), h2);
                failc(v, c, "replaying the event log does not give the quoted PCR %u (%s)", pcr,
                      tpm_hash_name(alg));
                detail(v, c, "replayed: %s", h1);
                detail(v, c, "quoted:   %s", h2);
                return;
            }
        }
    }
    v->log_replays = true;
    pcrsel_banks_str(q, banks, sizeof(banks));
    pass(v, c, "%u events replay to the quoted PCRs 17-19 in %s", v->log.nevents, banks);
}

static void check_launch(struct verify *v)
{
    const int c = C_LAUNCH;
    const TPML_PCR_SELECTION *q = &v->quote.attested.quote.pcrSelect;
    unsigned ones = 0, quoted = 0;

    if (!v->ev_ok || !v->quote_ok) {
        failc(v, c, "not checked: %s", v->ev_ok ? "no quote" : "the evidence did not parse");
        return;
    }
    for (unsigned b = 0; b < q->count; b++) {
        const uint8_t *p17 = value_of(v, q->pcrSelections[b].hash, 17);

        if (!p17)
            continue;
        quoted++;
        ones += all_ones(p17, tpm_hash_size(q->pcrSelections[b].hash));
    }
    if (!quoted) {
        failc(v, c, "not checked: PCR 17 is not quoted");
        return;
    }
    if (ones) {
        failc(v, c, "PCR 17 is all-ones: there was no dynamic launch (an unmeasured boot)");
        return;
    }
    if (!v->log_replays) {
        failc(v, c, "not checked: no event log that replays to the quote shows the launch");
        return;
    }
    for (unsigned i = 0; i < v->log.nevents; i++) {
        const struct evlog_event *e = &v->log.events[i];

        if (e->type == EV_NO_ACTION || e->pcr != 17)
            continue;
        if (e->type != evlog_launch_type(&v->log)) {
            failc(v, c, "PCR 17's first event (type 0x%x) is not the dynamic launch", e->type);
            return;
        }
        break;
    }
    if (v->log.txt)
        pass(v, c, "PCR 17 starts at the SINIT's launch (event type 0x%x: GETSEC[SENTER]'s "
             "hash of the ACM) in every bank", EV_TXT_HASH_START);
    else
        pass(v, c, "PCR 17 starts at the dynamic launch of the MLE (event type 0x%x) in every "
             "bank", EV_TXT_MLE_HASH);
}

static void module_role(unsigned m, char *buf, size_t bufsz)
{
    if (m <= 1)
        snprintf(buf, bufsz, "the %s (module %u)", m ? "initrd" : "kernel", m);
    else
        snprintf(buf, bufsz, "module %u", m);
}

/* H(H(string) || H(image)) == digest, in bank alg: the module's measurement */
static bool module_digest(uint16_t alg, const char *string, const struct predict_module *m,
                          const uint8_t *digest)
{
    const EVP_MD *md = EVP_get_digestbyname(tpm_hash_name(alg));
    unsigned n = tpm_hash_size(alg);
    uint8_t a[64], b[64], d[64];
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    bool same = md && ctx && EVP_Digest(string, strlen(string), a, NULL, md, NULL) &&
                EVP_Digest(m->image, m->size, b, NULL, md, NULL) &&
                EVP_DigestInit_ex(ctx, md, NULL) && EVP_DigestUpdate(ctx, a, n) &&
                EVP_DigestUpdate(ctx, b, n) && EVP_DigestFinal_ex(ctx, d, NULL) &&
                !memcmp(d, digest, n);

    EVP_MD_CTX_free(ctx);
    return same;
}

/* Which measurement makes the PCRs differ from the prediction (the log replays: its digests
 * are what the TPM got). Fills the check's line. */
static void diagnose(struct verify *v, struct expect *x, const struct pcr_bank *bank, uint16_t alg)
{
    const int c = C_EXPECTED;
    int k = v->log_replays ? evlog_alg_index(&v->log, alg) : -1;
    const struct evlog_event *ev[EVLOG_MAX_EVENTS];
    unsigned n = 0, dsize = tpm_hash_size(alg);
    char role[32];

    if (k < 0) {
        failc(v, c, "PCRs 17-19 are not the predicted values (without an event log that "
              "replays to the quote, the measurement that differs is unknown)");
        return;
    }
    /* the extends of this bank (a TXT log's records may leave it out: evlog.h) */
    for (unsigned i = 0; i < v->log.nevents; i++)
        if (v->log.events[i].type != EV_NO_ACTION && v->log.events[i].type != EV_TXT_CAP_VALUE &&
            v->log.events[i].digest[k])
            ev[n++] = &v->log.events[i];
    for (unsigned i = 0; i < n || i < bank->nr_events; i++) {
        const struct predict_event *p = i < bank->nr_events ? &bank->events[i] : NULL;
        const struct evlog_event *e = i < n ? ev[i] : NULL;

        if (!e) {
            failc(v, c, "the boot measured %u events, the expectation %u", n, bank->nr_events);
            return;
        }
        if (!p) {
            failc(v, c, "the boot measured more than expected (%u events, the expectation %u)",
                  n, bank->nr_events);
            return;
        }
        if (e->pcr == p->pcr && !memcmp(e->digest[k], p->digest, dsize))
            continue;
        switch (p->what) {
        case PREDICT_MLE:
            failc(v, c, "vtboot's MLE is not the expected one (another vtboot image or vtboot "
                  "command line)");
            return;
        case PREDICT_TXT:
            failc(v, c, "the SINIT's measurement %u is not the expected one (another SINIT, "
                  "MLE or launch request)", p->module);
            return;
        case PREDICT_POLICY: {
            static struct tb_policy def;
            uint8_t d[64];
            unsigned sz;

            tb_policy_default(&def, x->in.map);
            if (predict_policy_digest(&def, tpm_hash_name(alg), d, &sz) == 0 &&
                !memcmp(d, e->digest[k], dsize))
                failc(v, c, "the boot measured tboot's default policy, not the expected policy: "
                      "the policy index was missing, so vtboot fell back to the default");
            else if (x->default_policy)
                failc(v, c, "the boot measured a policy from TPM NV, not tboot's default policy");
            else
                failc(v, c, "the policy is not the expected one");
            return;
        }
        case PREDICT_MODULE: {
            const struct predict_module *m = &x->in.modules[p->module];
            char prefix[40], *measured = NULL, *claimed = NULL, *found = NULL;
            size_t pl = (size_t)snprintf(prefix, sizeof(prefix), "vtboot: module %u: ", p->module);
            /* vtboot keeps 63 bytes of event data: a longer string is cut */
            bool cut = e->data_len >= 63, differs;

            module_role(p->module, role, sizeof(role));
            if (e->data_len >= pl && !memcmp(e->data, prefix, pl))
                measured = xasprintf("%.*s", (int)(e->data_len - pl), (const char *)e->data + pl);
            /* module 0's string as the guest kernel claims it (its /proc/cmdline) */
            if (p->module == 0 && v->ev.rec[EVID_KERNEL_CMDLINE].data)
                claimed = xasprintf("%.*s", (int)v->ev.rec[EVID_KERNEL_CMDLINE].len,
                                    (const char *)v->ev.rec[EVID_KERNEL_CMDLINE].data);
            /* the expected image with the measured (or claimed) string: then only the string
             * differs, and the measurement proves which string it was */
            if (measured && !cut && strcmp(measured, m->cmdline) &&
                module_digest(alg, measured, m, e->digest[k]))
                found = measured;
            else if (claimed && strcmp(claimed, m->cmdline) &&
                     module_digest(alg, claimed, m, e->digest[k]))
                found = claimed;
            if (found) {
                failc(v, c, "the command line of %s is not the expected one", role);
                detail(v, c, "measured: \"%s\"", found);
                detail(v, c, "expected: \"%s\"", m->cmdline);
            } else {
                /* the image differs; the string too if its visible part does */
                differs = measured && (cut ? strncmp(measured, m->cmdline, strlen(measured))
                                           : strcmp(measured, m->cmdline));
                if (differs) {
                    failc(v, c, "%s and its command line are not the expected ones", role);
                    detail(v, c, "measured: \"%s\"%s", measured, cut ? " (cut by the log)" : "");
                    detail(v, c, "expected: \"%s\"", m->cmdline);
                } else {
                    failc(v, c, "%s is not the expected one", role);
                }
            }
            free(measured);
            free(claimed);
            return;
        }
        }
    }
    failc(v, c, "PCRs 17-19 are not the predicted values");
}

static void check_expected(struct verify *v)
{
    const int c = C_EXPECTED;
    const TPML_PCR_SELECTION *q = &v->quote.attested.quote.pcrSelect;
    const struct expect_opts *e = &v->expect;
    static struct expect x;
    static struct expect_files files;
    static struct pcr_bank bank;
    static struct txt_expect txt;
    const char *missing = !e->vtboot ? "--vtboot" : !e->vtboot_cmdline ? "--vtboot-cmdline"
                        : !e->kernel ? "--kernel" : !e->cmdline ? "--cmdline"
                        : !e->policy ? "--policy" : NULL;
    char err[512], banks[64];
    int rc;

    if (missing) {
        failc(v, c, "no expectation: %s is missing (--vtboot, --vtboot-cmdline, --kernel, "
              "--cmdline and --policy are needed)", missing);
        return;
    }
    expect_opts_files(&v->expect, &files);
    if (!strcmp(e->policy, "default"))
        files.policy = NULL;
    rc = expect_load(&files, &x, err, sizeof(err));
    expect_opts_free(&v->expect);
    if (rc) {
        failc(v, c, "the expectation cannot be loaded: %s", err);
        return;
    }
    if (expect_opts_txt(&v->expect, &txt, &x.in, err, sizeof(err))) {
        failc(v, c, "the expectation cannot be loaded: %s", err);
        goto out;
    }
    if (!v->ev_ok || !v->quote_ok) {
        failc(v, c, "not checked: %s", v->ev_ok ? "no quote" : "the evidence did not parse");
        goto out;
    }
    for (unsigned b = 0; b < q->count; b++) {
        uint16_t alg = q->pcrSelections[b].hash;

        memset(&bank, 0, sizeof(bank));
        bank.name = tpm_hash_name(alg);
        if (predict_bank(&x.in, &bank, false)) {
            failc(v, c, "cannot predict the %s bank", bank.name);
            goto out;
        }
        for (unsigned pcr = 17; pcr <= 19; pcr++) {
            const uint8_t *got = value_of(v, alg, pcr);

            if (got && memcmp(got, bank.pcr[pcr], bank.size)) {
                if (all_ones(value_of(v, alg, 17), bank.size))
                    failc(v, c, "PCR 17 is all-ones, not the launch the expectation predicts");
                else
                    diagnose(v, &x, &bank, alg);
                goto out;
            }
        }
    }
    pcrsel_banks_str(q, banks, sizeof(banks));
    if (x.in.txt)
        pass(v, c, "PCRs 17-19 in %s are vtboot-pcr's prediction for the expected SINIT, tboot, "
             "modules, command lines and %s policy", banks,
             x.default_policy ? "tboot's default" : "the given");
    else
        pass(v, c, "PCRs 17-19 in %s are vtboot-pcr's prediction for the expected vtboot, "
             "modules, command lines and %s policy", banks,
             x.default_policy ? "tboot's default" : "the given");
out:
    expect_free(&x);
    txt_expect_free(&txt);
}

static void usage(FILE *f)
{
    fprintf(f,
"usage: vtboot-attest verify --evidence F --enrolled DIR --ca ROOT.pem --nonce HEX\n"
"                            --vtboot F --vtboot-cmdline S --kernel F --cmdline S\n"
"                            [--initrd F [--initrd-cmdline S]] [--module F[=S]]...\n"
"                            --policy FILE|default [--pcr-map da|legacy]\n"
"                            [--sinit F [--os-sinit-caps X] [--lcp-policy F]]\n"
"Checks evidence from `vtboot-attest quote` against the enrollment record DIR (from\n"
"`vtboot-attest enroll`), the EK CA ROOT.pem, the nonce the verifier chose, and the launch\n"
"it expects: vtboot's ELF and command line, each module with its exact string\n"
"(vtboot-qemu --print-modules / --print-cmdline), the policy (a tb_polgen file, or\n"
"\"default\": tboot's default policy) -- the same prediction as vtboot-pcr predict.\n"
"--sinit F: an Intel TXT launch of tboot (--vtboot F names it) by this SINIT ACM, as\n"
"vtboot-pcr predict --sinit: the event log is the TXT heap's, the launch its SINIT's.\n"
"One line per check (evidence, ak, quote, signature, nonce, pcr-digest, banks, event-log,\n"
"launch, expected): \"<check>: ok: ...\" or \"<check>: FAIL: <reason>\", then\n"
"\"VERDICT: PASS\" (exit 0) or \"VERDICT: FAIL (<checks>)\" (exit 1); 2: usage.\n"
"Missing input fails the checks that need it.\n");
}

int cmd_verify(int argc, char **argv)
{
    enum { O_EVIDENCE = 256, O_ENROLLED, O_CA, O_NONCE, O_EXPECT };
    static const struct option lo[] = {
        { "evidence", required_argument, NULL, O_EVIDENCE },
        { "enrolled", required_argument, NULL, O_ENROLLED },
        { "ca", required_argument, NULL, O_CA },
        { "nonce", required_argument, NULL, O_NONCE },
        EXPECT_LONGOPTS(O_EXPECT),
        EXPECT_LONGOPTS_TXT(O_EXPECT),
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static struct verify v;
    unsigned failed = 0;
    int c;

    memset(&v, 0, sizeof(v));
    expect_opts_init(&v.expect, "vtboot-attest", false);
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case O_EVIDENCE: v.evidence_path = optarg; break;
        case O_ENROLLED: v.enrolled = optarg; break;
        case O_CA: v.ca = optarg; break;
        case O_NONCE: v.nonce_hex = optarg; break;
        case O_EXPECT ... O_EXPECT + EXPECT_OPT_N - 1:
            if (expect_opt(&v.expect, c - O_EXPECT, optarg) != 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }
    if (v.expect.initrd_cmdline && !v.expect.initrd) {
        fprintf(stderr, "vtboot-attest: --initrd-cmdline without --initrd\n");
        return 2;
    }

    check_evidence(&v);
    check_ak(&v);
    check_quote(&v);
    check_signature(&v);
    check_nonce(&v);
    check_pcr_digest(&v);
    /* the log first: the bank check counts the log's banks too */
    check_event_log(&v);
    check_banks(&v);
    check_launch(&v);
    check_expected(&v);

    for (int i = 0; i < C_N; i++) {
        printf("%s: %s: %s\n", check_name[i], v.r[i].ok ? "ok" : "FAIL", v.r[i].line);
        for (unsigned d = 0; d < v.r[i].ndetail; d++)
            printf("    %s\n", v.r[i].detail[d]);
        failed += !v.r[i].ok;
    }
    if (!failed) {
        printf("VERDICT: PASS\n");
    } else {
        printf("VERDICT: FAIL (");
        for (int i = 0, n = 0; i < C_N; i++)
            if (!v.r[i].ok)
                printf("%s%s", n++ ? ", " : "", check_name[i]);
        printf(")\n");
    }
    free(v.buf);
    free(v.rec_ak_buf);
    return fflush(stdout) == 0 && !failed ? 0 : 1;
}
