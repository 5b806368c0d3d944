/* SPDX-License-Identifier: MIT */
#include "evlog.h"
#include "lib/bytes.h"
#include "util.h"

#include "abi/tcg_eventlog.h"
#include "abi/tpm_hash.h"

#include <openssl/evp.h>
#include <string.h>

int evlog_alg_index(const struct evlog *log, uint16_t alg)
{
    for (unsigned i = 0; i < log->nalgs; i++)
        if (log->alg[i] == alg)
            return (int)i;
    return -1;
}

uint32_t evlog_launch_type(const struct evlog *log)
{
    return log->txt ? EV_TXT_HASH_START : EV_TXT_MLE_HASH;
}

static int parse(const uint8_t *buf, size_t len, bool txt, struct evlog *log, char *err,
                 size_t errsz)
{
    static const uint8_t zero[20];
    size_t off, spec_end;
    uint32_t spec_size;

    memset(log, 0, sizeof(*log));
    log->txt = txt;
    if (len > EVLOG_MAX_SIZE)
        return errorf(err, errsz, "event log of %zu bytes, more than %u", len, EVLOG_MAX_SIZE);
    if (len < sizeof(struct tcg_pcr_event))
        return errorf(err, errsz, "event log of %zu bytes, shorter than its %zu-byte header",
                      len, sizeof(struct tcg_pcr_event));
    if (load_le32(buf) != 0 || load_le32(buf + 4) != EV_NO_ACTION || memcmp(buf + 8, zero, 20))
        return errorf(err, errsz, "the first record is not a Spec ID event (PCR 0, "
                      "EV_NO_ACTION, zero digest)");
    spec_size = load_le32(buf + 28);
    off = sizeof(struct tcg_pcr_event);
    if (spec_size > len - off || spec_size < sizeof(struct tcg_spec_id_header))
        return errorf(err, errsz, "the Spec ID event's size %u does not fit the log", spec_size);
    spec_end = off + spec_size;
    if (memcmp(buf + off, TCG_SPEC_ID_SIGNATURE, sizeof(TCG_SPEC_ID_SIGNATURE)))
        return errorf(err, errsz, "the header is not a \"Spec ID Event03\" (not a crypto-agile "
                      "log)");
    log->nalgs = load_le32(buf + off + 24);
    if (log->nalgs == 0 || log->nalgs > EVLOG_MAX_ALGS)
        return errorf(err, errsz, "the Spec ID event names %u algorithms (1 to %d)", log->nalgs,
                      EVLOG_MAX_ALGS);
    off += sizeof(struct tcg_spec_id_header);
    if ((size_t)log->nalgs * 4 + 1 > spec_end - off)
        return errorf(err, errsz, "the Spec ID event's algorithm list does not fit it");
    for (unsigned i = 0; i < log->nalgs; i++, off += 4) {
        log->alg[i] = load_le16(buf + off);
        log->size[i] = load_le16(buf + off + 2);
        if (log->size[i] == 0 || log->size[i] > EVLOG_MAX_DIGEST)
            return errorf(err, errsz, "algorithm 0x%04x has a digest size of %u bytes",
                          log->alg[i], log->size[i]);
        if (tpm_hash_size(log->alg[i]) && tpm_hash_size(log->alg[i]) != log->size[i])
            return errorf(err, errsz, "%s digests are %u bytes, not %u",
                          tpm_hash_name(log->alg[i]), tpm_hash_size(log->alg[i]),
                          log->size[i]);
        for (unsigned j = 0; j < i; j++)
            if (log->alg[j] == log->alg[i])
                return errorf(err, errsz, "algorithm 0x%04x is named twice", log->alg[i]);
    }
    if (buf[off] != spec_end - off - 1)
        return errorf(err, errsz, "the Spec ID event's vendor info (%u bytes) does not end "
                      "where the event does", buf[off]);
    off = spec_end;

    while (off < len) {
        struct evlog_event *e;
        size_t start = off;
        uint32_t count;

        if (log->nevents == EVLOG_MAX_EVENTS)
            return errorf(err, errsz, "more than %d events", EVLOG_MAX_EVENTS);
        e = &log->events[log->nevents];
        if (len - off < 12)
            return errorf(err, errsz, "event %u at byte %zu: truncated header", log->nevents + 1,
                          start);
        e->pcr = load_le32(buf + off);
        e->type = load_le32(buf + off + 4);
        count = load_le32(buf + off + 8);
        off += 12;
        if (e->pcr > 23)
            return errorf(err, errsz, "event %u at byte %zu: PCR %u", log->nevents + 1, start,
                          e->pcr);
        if (txt ? count == 0 || count > log->nalgs : count != log->nalgs)
            return errorf(err, errsz, "event %u at byte %zu: %u digests, the header names %u "
                          "algorithms", log->nevents + 1, start, count, log->nalgs);
        for (unsigned i = 0; i < count; i++) {
            int k;

            if (len - off < 2)
                return errorf(err, errsz, "event %u at byte %zu: truncated digest",
                              log->nevents + 1, start);
            k = evlog_alg_index(log, load_le16(buf + off));
            if (k < 0)
                return errorf(err, errsz, "event %u at byte %zu: a digest of algorithm 0x%04x, "
                              "which the header does not name", log->nevents + 1, start,
                              load_le16(buf + off));
            if (e->digest[k])
                return errorf(err, errsz, "event %u at byte %zu: two digests of algorithm "
                              "0x%04x", log->nevents + 1, start, log->alg[k]);
            off += 2;
            if (len - off < log->size[k])
                return errorf(err, errsz, "event %u at byte %zu: truncated digest",
                              log->nevents + 1, start);
            e->digest[k] = buf + off;
            off += log->size[k];
        }
        if (len - off < 4)
            return errorf(err, errsz, "event %u at byte %zu: truncated event size",
                          log->nevents + 1, start);
        e->data_len = load_le32(buf + off);
        off += 4;
        if (e->data_len > len - off)
            return errorf(err, errsz, "event %u at byte %zu: its %u data bytes run past the end "
                          "of the log", log->nevents + 1, start, e->data_len);
        e->data = buf + off;
        off += e->data_len;
        log->nevents++;
    }
    return 0;
}

int evlog_parse(const uint8_t *buf, size_t len, struct evlog *log, char *err, size_t errsz)
{
    return parse(buf, len, false, log, err, errsz);
}

int evlog_parse_txt(const uint8_t *buf, size_t len, struct evlog *log, char *err, size_t errsz)
{
    return parse(buf, len, true, log, err, errsz);
}

int evlog_replay(const struct evlog *log, uint16_t alg, unsigned pcr, uint8_t *out,
                 bool *launched)
{
    int k = evlog_alg_index(log, alg);
    const char *name = tpm_hash_name(alg);
    const EVP_MD *md = name ? EVP_get_digestbyname(name) : NULL;
    unsigned n = tpm_hash_size(alg);
    EVP_MD_CTX *ctx;
    int rc = 0;

    if (k < 0 || !md || pcr > 23)
        return -1;
    ctx = EVP_MD_CTX_new();
    if (!ctx)
        return -1;
    *launched = false;
    memset(out, pcr >= 17 && pcr <= 22 ? 0xff : 0x00, n);
    for (unsigned i = 0; i < log->nevents && rc == 0; i++) {
        const struct evlog_event *e = &log->events[i];

        if (e->type == EV_NO_ACTION)
            continue;
        if (e->pcr == 17 && e->type == evlog_launch_type(log) && pcr >= 17 && pcr <= 22) {
            memset(out, 0, n);                       /* the launch resets 17-22 */
            *launched = true;
        }
        if (e->pcr != pcr || !e->digest[k])          /* a TXT log: not extended in this bank */
            continue;
        if (!EVP_DigestInit_ex(ctx, md, NULL) || !EVP_DigestUpdate(ctx, out, n) ||
            !EVP_DigestUpdate(ctx, e->digest[k], n) || !EVP_DigestFinal_ex(ctx, out, NULL))
            rc = -1;
    }
    EVP_MD_CTX_free(ctx);
    return rc;
}
