/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: vtboot-attest's evidence parser and everything it hands records to, as
 * verify does: evidence_parse(), then each record through its parser (public_parse,
 * quote_parse, sig_parse, pcrsel_parse, evlog_parse with a replay of every bank), plus
 * vtboot's shared-page block (vtbext_parse) and a bank list (pcrsel_parse_banks) on the raw
 * input. Invariants (abort otherwise): accepted records lie inside the input and do not
 * overlap the header; an accepted PCR selection's values size fits what it selects; accepted
 * event-log events lie inside their record; every refusal has a reason.
 */
#include "evidence.h"
#include "evlog.h"
#include "tpmquote.h"
#include "vtbext.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

static int inside(const uint8_t *p, size_t n, const uint8_t *buf, size_t len)
{
    return p >= buf && n <= len && (size_t)(p - buf) <= len - n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct evlog log;
    struct evidence ev;
    TPM2B_PUBLIC pub;
    TPMS_ATTEST q;
    TPMT_SIGNATURE sig;
    TPML_PCR_SELECTION sel;
    struct vtbext x;
    char err[512], text[64];
    uint16_t algs[4];
    unsigned n;

    err[0] = 0;
    if (evidence_parse(data, size, &ev, err, sizeof(err)) == 0) {
        for (unsigned t = 1; t < EVID_NR_TYPES; t++) {
            const struct evidence_rec *r = &ev.rec[t];

            if (!r->data)
                continue;
            check(inside(r->data, r->len, data, size) && r->data >= data + EVIDENCE_HDR_SIZE);
        }
        if (ev.rec[EVID_AK_PUBLIC].data)
            check(public_parse(ev.rec[EVID_AK_PUBLIC].data, ev.rec[EVID_AK_PUBLIC].len, &pub, err,
                               sizeof(err)) == 0 || err[0]);
        if (ev.rec[EVID_QUOTE].data &&
            quote_parse(ev.rec[EVID_QUOTE].data, ev.rec[EVID_QUOTE].len, &q, err, sizeof(err)) == 0) {
            unsigned count;

            check(q.magic == TPM2_GENERATED_VALUE && q.type == TPM2_ST_ATTEST_QUOTE);
            check(pcrsel_values_size(&q.attested.quote.pcrSelect, &count) <=
                  (size_t)q.attested.quote.pcrSelect.count * 24 * 64);
        }
        if (ev.rec[EVID_SIGNATURE].data &&
            sig_parse(ev.rec[EVID_SIGNATURE].data, ev.rec[EVID_SIGNATURE].len, &sig, err,
                      sizeof(err)) == 0)
            check(tpm_hash_name(sig.signature.rsassa.hash) != NULL);
        if (ev.rec[EVID_PCR_SELECTION].data &&
            pcrsel_parse(ev.rec[EVID_PCR_SELECTION].data, ev.rec[EVID_PCR_SELECTION].len, &sel,
                         err, sizeof(err)) == 0) {
            char banks[128];

            check(sel.count <= TPM2_NUM_PCR_BANKS);
            pcrsel_banks_str(&sel, banks, sizeof(banks));
            pcrsel_tools_str(&sel, banks, sizeof(banks));
        }
        /* as vtboot's log, and as a TXT heap's (records with some of the digests) */
        for (int txt = 0; txt < 2 && ev.rec[EVID_EVENT_LOG].data; txt++) {
            const struct evidence_rec *r = &ev.rec[EVID_EVENT_LOG];

            if ((txt ? evlog_parse_txt : evlog_parse)(r->data, r->len, &log, err,
                                                     sizeof(err)) != 0)
                continue;
            check(log.nalgs >= 1 && log.nalgs <= EVLOG_MAX_ALGS && log.txt == txt);
            for (unsigned i = 0; i < log.nevents; i++) {
                unsigned have = 0;

                check(log.events[i].pcr < 24);
                check(inside(log.events[i].data, log.events[i].data_len, r->data, r->len));
                for (unsigned k = 0; k < log.nalgs; k++) {
                    have += log.events[i].digest[k] != NULL;
                    check((txt && !log.events[i].digest[k]) ||
                          inside(log.events[i].digest[k], log.size[k], r->data, r->len));
                }
                check(have >= 1 && (txt || have == log.nalgs));
            }
            for (unsigned k = 0; k < log.nalgs; k++) {
                uint8_t out[EVLOG_MAX_DIGEST];
                bool launched;

                for (unsigned pcr = 17; pcr <= 19; pcr++)
                    check(evlog_replay(&log, log.alg[k], pcr, out, &launched) == 0 ||
                          !tpm_hash_name(log.alg[k]));
            }
        }
    } else {
        check(err[0] != 0);
    }
    /* the same bytes as guest memory and as a --banks argument */
    if (vtbext_parse(data, size, &x, err, sizeof(err)) == 0)
        check(x.evtlog_used && x.evtlog_used <= x.evtlog_size && x.evtlog_size <= VTBEXT_LOG_MAX);
    n = size < sizeof(text) - 1 ? (unsigned)size : (unsigned)sizeof(text) - 1;
    memcpy(text, data, n);
    text[n] = 0;
    if (pcrsel_parse_banks(text, algs, &n, err, sizeof(err)) == 0)
        check(n >= 1 && n <= 4);
    return 0;
}
