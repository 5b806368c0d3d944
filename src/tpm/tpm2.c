/* SPDX-License-Identifier: MIT */
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"
#include "tpm/marshal.h"
#include "tpm/tpm2.h"
#include "tpm/tpm2_cmd.h"

#define FAIL(...) do { fmt_snprintf(t->err, sizeof(t->err), __VA_ARGS__); return -1; } while (0)

static uint8_t cmd_buf[TPM2_BUFFER_MAX];
static uint8_t rsp_buf[TPM2_BUFFER_MAX];

void tpm2_cmd_begin(struct tpm_writer *w, uint16_t tag, uint32_t cc)
{
    tw_init(w, cmd_buf, sizeof(cmd_buf));
    tw_u16(w, tag);
    tw_u32(w, 0);                    /* size, patched in execute() */
    tw_u32(w, cc);
}

/* One session: its handle, no nonce, no attributes, an empty hmac/password (TPM_RS_PW with an
 * empty password, or a policy session that needs no HMAC). */
void tpm2_cmd_auth(struct tpm_writer *w, uint32_t session)
{
    tw_u32(w, 9);                    /* authorizationSize */
    tw_u32(w, session);
    tw_u16(w, 0);
    tw_u8(w, 0);
    tw_u16(w, 0);
}

/* A session's response area: nonceTPM, attributes, hmac; returns false if malformed. */
static bool skip_session_response(struct tpm_reader *r)
{
    tr_tpm2b(r, NULL, TPM2_MAX_DIGEST);
    tr_u8(r);
    tr_tpm2b(r, NULL, TPM2_MAX_DIGEST);
    return !r->bad;
}

int tpm2_response_framing(const uint8_t hdr[TPM2_HEADER_SIZE], size_t rsp_cap, size_t *size,
                          char *err, size_t errlen)
{
    struct tpm_reader r;
    tr_init(&r, hdr, TPM2_HEADER_SIZE);
    uint16_t tag = tr_u16(&r);
    uint32_t n = tr_u32(&r);

    if ((tag != TPM2_ST_NO_SESSIONS && tag != TPM2_ST_SESSIONS && tag != TPM_ST_RSP_COMMAND) ||
        n < TPM2_HEADER_SIZE || n > rsp_cap) {
        fmt_snprintf(err, errlen, "TPM: response header tag 0x%04x size %u does not frame a "
                     "response (buffer %u)", tag, n, (uint32_t)rsp_cap);
        return -1;
    }
    *size = n;
    return 0;
}

/*
 * Sends the command (again, while the TPM answers RETRY, YIELDED or TESTING: swtpm answers
 * the first dictionary-attack-protected authorisation after Startup with RETRY) and checks
 * the response header. On success the reader is positioned at the response parameters: past
 * the response handle (if rsp_handle) and parameterSize, with the session area after the
 * parameters checked and cut off.
 */
int tpm2_cmd_execute(struct tpm2 *t, struct tpm_writer *w, const char *name,
                     struct tpm_reader *r, uint32_t *rsp_handle)
{
    size_t rlen = 0;
    uint32_t rc;
    unsigned tries = 0;

    tw_patch_u32(w, 2, (uint32_t)w->len);
    if (w->bad)
        FAIL("%s: command does not fit %u bytes", name, TPM2_BUFFER_MAX);
    uint16_t tag = load_be16(cmd_buf);
    do {
        if (t->transmit(t->ctx, cmd_buf, w->len, rsp_buf, sizeof(rsp_buf), &rlen, t->err,
                        sizeof(t->err)))
            return -1;
        tr_init(r, rsp_buf, rlen);
        tr_u16(r);
        uint32_t size = tr_u32(r);
        rc = tr_u32(r);
        if (r->bad)
            FAIL("%s: response of %u bytes is shorter than a header", name, (unsigned)rlen);
        if (size != rlen)
            FAIL("%s: response size field %u but %u bytes arrived", name, size, (unsigned)rlen);
    } while ((rc == TPM2_RC_RETRY || rc == TPM2_RC_YIELDED || rc == TPM2_RC_TESTING) &&
             ++tries < TPM2_MAX_RETRIES);
    uint16_t rtag = load_be16(rsp_buf);
    if (rc != TPM2_RC_SUCCESS) {
        if (rlen != TPM2_HEADER_SIZE)
            FAIL("%s: error response 0x%x carries %u bytes", name, rc, (unsigned)rlen);
        fmt_snprintf(t->err, sizeof(t->err), "%s: TPM returned 0x%03x", name, rc);
        return rc > 0x7fffffffu ? -1 : (int)rc;
    }
    if (rtag != tag)
        FAIL("%s: response tag 0x%04x for command tag 0x%04x", name, rtag, tag);
    if (rsp_handle) {
        *rsp_handle = tr_u32(r);
        if (r->bad)
            FAIL("%s: response has no handle", name);
    }
    if (tag == TPM2_ST_SESSIONS) {
        uint32_t psize = tr_u32(r);
        if (r->bad || psize > tr_left(r))
            FAIL("%s: parameterSize %u does not fit a %u-byte response", name, psize,
                 (unsigned)rlen);
        struct tpm_reader auth = *r;
        auth.pos += psize;
        if (!skip_session_response(&auth) || tr_left(&auth))
            FAIL("%s: malformed session area after %u parameter bytes", name, psize);
        r->len = r->pos + psize;     /* parse the parameters only */
    }
    return 0;
}

void tpm2_wipe_command(void)
{
    memzero_explicit(cmd_buf, sizeof(cmd_buf));
}

void tpm2_wipe_buffers(void)
{
    memzero_explicit(cmd_buf, sizeof(cmd_buf));
    memzero_explicit(rsp_buf, sizeof(rsp_buf));
}

static int execute(struct tpm2 *t, struct tpm_writer *w, const char *name, struct tpm_reader *r)
{
    return tpm2_cmd_execute(t, w, name, r, NULL);
}

/* The response parameters must be consumed exactly. */
int tpm2_cmd_finish(struct tpm2 *t, struct tpm_reader *r, const char *name)
{
    if (r->bad)
        FAIL("%s: response parameters are truncated or malformed", name);
    if (tr_left(r))
        FAIL("%s: %u unexpected bytes after the response parameters", name,
             (unsigned)tr_left(r));
    return 0;
}

int tpm2_startup(struct tpm2 *t, uint16_t type)
{
    struct tpm_writer w;
    struct tpm_reader r;
    tpm2_cmd_begin(&w, TPM2_ST_NO_SESSIONS, TPM2_CC_STARTUP);
    tw_u16(&w, type);
    int rc = execute(t, &w, "TPM2_Startup", &r);
    return rc ? rc : tpm2_cmd_finish(t, &r, "TPM2_Startup");
}

int tpm2_shutdown(struct tpm2 *t, uint16_t type)
{
    struct tpm_writer w;
    struct tpm_reader r;
    tpm2_cmd_begin(&w, TPM2_ST_NO_SESSIONS, TPM2_CC_SHUTDOWN);
    tw_u16(&w, type);
    int rc = execute(t, &w, "TPM2_Shutdown", &r);
    return rc ? rc : tpm2_cmd_finish(t, &r, "TPM2_Shutdown");
}

int tpm2_get_pcr_banks(struct tpm2 *t, struct tpm_banks *banks)
{
    struct tpm_writer w;
    struct tpm_reader r;
    tpm2_cmd_begin(&w, TPM2_ST_NO_SESSIONS, TPM2_CC_GET_CAPABILITY);
    tw_u32(&w, TPM2_CAP_PCRS);
    tw_u32(&w, 0);
    tw_u32(&w, 1);
    int rc = execute(t, &w, "TPM2_GetCapability(PCRS)", &r);
    if (rc)
        return rc;
    banks->count = 0;
    tr_u8(&r);                       /* moreData: one selection list covers every bank */
    if (tr_u32(&r) != TPM2_CAP_PCRS && !r.bad)
        FAIL("TPM2_GetCapability(PCRS): wrong capability in response");
    uint32_t n = tr_u32(&r);
    if (n > 16)
        FAIL("TPM2_GetCapability(PCRS): %u banks", n);
    for (uint32_t i = 0; i < n && !r.bad; i++) {
        uint16_t alg = tr_u16(&r);
        uint8_t sz = tr_u8(&r);
        const uint8_t *sel = tr_bytes(&r, sz);
        bool any = false;
        for (unsigned b = 0; sel && b < sz; b++)
            any |= sel[b] != 0;
        if (any && tpm_hash_size(alg) && banks->count < TPM_MAX_BANKS)
            banks->alg[banks->count++] = alg;
    }
    return tpm2_cmd_finish(t, &r, "TPM2_GetCapability(PCRS)");
}

int tpm2_pcr_read(struct tpm2 *t, unsigned pcr, const struct tpm_banks *banks,
                  struct tpm_digest_list *out)
{
    struct tpm_writer w;
    struct tpm_reader r;
    if (pcr >= 8 * TPM2_PCR_SELECT_MAX)
        FAIL("TPM2_PCR_Read: no PCR %u", pcr);
    if (banks->count > TPM_MAX_BANKS)
        FAIL("TPM2_PCR_Read: %u banks, at most %u", banks->count, TPM_MAX_BANKS);
    tpm2_cmd_begin(&w, TPM2_ST_NO_SESSIONS, TPM2_CC_PCR_READ);
    tw_u32(&w, banks->count);
    for (unsigned i = 0; i < banks->count; i++) {
        uint8_t sel[TPM2_PCR_SELECT_MAX] = { 0 };
        sel[pcr / 8] = (uint8_t)(1u << (pcr % 8));
        tw_u16(&w, banks->alg[i]);
        tw_u8(&w, TPM2_PCR_SELECT_MAX);
        tw_bytes(&w, sel, sizeof(sel));
    }
    int rc = execute(t, &w, "TPM2_PCR_Read", &r);
    if (rc)
        return rc;
    tr_u32(&r);                      /* pcrUpdateCounter */
    uint32_t nsel = tr_u32(&r);
    if (nsel != banks->count && !r.bad)
        FAIL("TPM2_PCR_Read: %u banks selected, %u returned", banks->count, nsel);
    for (uint32_t i = 0; i < nsel && !r.bad; i++) {
        uint16_t alg = tr_u16(&r);
        uint8_t sz = tr_u8(&r);
        const uint8_t *sel = tr_bytes(&r, sz);
        if (alg != banks->alg[i] || !sel || sz < pcr / 8 + 1 || !(sel[pcr / 8] & (1u << (pcr % 8))))
            FAIL("TPM2_PCR_Read: bank %u selection came back different", i);
    }
    uint32_t nd = tr_u32(&r);
    if (nd != banks->count && !r.bad)
        FAIL("TPM2_PCR_Read: %u digests for %u banks", nd, banks->count);
    out->count = 0;
    for (uint32_t i = 0; i < nd && !r.bad; i++) {
        struct tpm_digest *d = &out->d[i];
        d->alg = banks->alg[i];
        uint16_t n = tr_tpm2b(&r, d->bytes, sizeof(d->bytes));
        if (!r.bad && n != tpm_hash_size(d->alg))
            FAIL("TPM2_PCR_Read: %s digest of %u bytes", tpm_hash_name(d->alg), n);
        out->count = i + 1;
    }
    return tpm2_cmd_finish(t, &r, "TPM2_PCR_Read");
}

int tpm2_pcr_extend(struct tpm2 *t, unsigned pcr, const struct tpm_digest_list *d)
{
    struct tpm_writer w;
    struct tpm_reader r;
    if (pcr >= 8 * TPM2_PCR_SELECT_MAX || d->count == 0 || d->count > TPM_MAX_BANKS)
        FAIL("TPM2_PCR_Extend: bad request (PCR %u, %u digests)", pcr, d->count);
    tpm2_cmd_begin(&w, TPM2_ST_SESSIONS, TPM2_CC_PCR_EXTEND);
    tw_u32(&w, pcr);
    tpm2_cmd_auth(&w, TPM2_RS_PW);
    tw_u32(&w, d->count);
    for (unsigned i = 0; i < d->count; i++) {
        unsigned n = tpm_hash_size(d->d[i].alg);
        if (!n)
            FAIL("TPM2_PCR_Extend: unknown algorithm 0x%04x", d->d[i].alg);
        tw_u16(&w, d->d[i].alg);
        tw_bytes(&w, d->d[i].bytes, n);
    }
    int rc = execute(t, &w, "TPM2_PCR_Extend", &r);
    return rc ? rc : tpm2_cmd_finish(t, &r, "TPM2_PCR_Extend");
}

int tpm2_get_random(struct tpm2 *t, uint8_t *out, unsigned n)
{
    while (n) {
        struct tpm_writer w;
        struct tpm_reader r;
        uint8_t chunk[TPM2_MAX_DIGEST];
        uint16_t want = (uint16_t)(n < sizeof(chunk) ? n : sizeof(chunk));
        tpm2_cmd_begin(&w, TPM2_ST_NO_SESSIONS, TPM2_CC_GET_RANDOM);
        tw_u16(&w, want);
        int rc = execute(t, &w, "TPM2_GetRandom", &r);
        if (rc)
            return rc;
        uint16_t got = tr_tpm2b(&r, chunk, sizeof(chunk));
        rc = tpm2_cmd_finish(t, &r, "TPM2_GetRandom");
        tpm2_wipe_buffers();         /* random bytes become keys: none stay in the response */
        if (rc)
            return rc;
        if (got == 0 || got > want)
            FAIL("TPM2_GetRandom: %u bytes for %u asked", got, want);
        memcpy(out, chunk, got);
        memzero_explicit(chunk, sizeof(chunk));
        out += got;
        n -= got;
    }
    return 0;
}

int tpm2_nv_read_public(struct tpm2 *t, uint32_t index, uint32_t *attributes, uint16_t *size)
{
    struct tpm_writer w;
    struct tpm_reader r;
    tpm2_cmd_begin(&w, TPM2_ST_NO_SESSIONS, TPM2_CC_NV_READ_PUBLIC);
    tw_u32(&w, index);
    int rc = execute(t, &w, "TPM2_NV_ReadPublic", &r);
    if (rc)
        return rc;
    uint16_t pub_size = tr_u16(&r);
    size_t pub_start = r.pos;
    uint32_t got_index = tr_u32(&r);
    uint16_t name_alg = tr_u16(&r);
    *attributes = tr_u32(&r);
    tr_tpm2b(&r, NULL, TPM2_MAX_DIGEST);   /* authPolicy */
    *size = tr_u16(&r);
    if (!r.bad && r.pos - pub_start != pub_size)
        FAIL("TPM2_NV_ReadPublic: public area size %u does not match its fields", pub_size);
    if (!r.bad && got_index != index)
        FAIL("TPM2_NV_ReadPublic: asked for 0x%08x, got 0x%08x", index, got_index);
    if (!r.bad && !tpm_hash_size(name_alg))
        FAIL("TPM2_NV_ReadPublic: name algorithm 0x%04x", name_alg);
    tr_tpm2b(&r, NULL, 2 + TPM2_MAX_DIGEST);  /* nvName */
    return tpm2_cmd_finish(t, &r, "TPM2_NV_ReadPublic");
}

int tpm2_nv_read(struct tpm2 *t, uint32_t index, uint8_t *out, uint16_t size)
{
    for (uint16_t off = 0; off < size;) {
        struct tpm_writer w;
        struct tpm_reader r;
        uint16_t left = (uint16_t)(size - off);
        uint16_t want = left < TPM_NV_CHUNK ? left : (uint16_t)TPM_NV_CHUNK;
        tpm2_cmd_begin(&w, TPM2_ST_SESSIONS, TPM2_CC_NV_READ);
        tw_u32(&w, index);           /* authHandle: the index itself (AUTHREAD) */
        tw_u32(&w, index);
        tpm2_cmd_auth(&w, TPM2_RS_PW);
        tw_u16(&w, want);
        tw_u16(&w, off);
        int rc = execute(t, &w, "TPM2_NV_Read", &r);
        if (rc)
            return rc;
        uint16_t got = tr_tpm2b(&r, out + off, want);
        if ((rc = tpm2_cmd_finish(t, &r, "TPM2_NV_Read")))
            return rc;
        if (got != want)
            FAIL("TPM2_NV_Read: %u bytes at offset %u for %u asked", got, off, want);
        off = (uint16_t)(off + got);
    }
    return 0;
}
