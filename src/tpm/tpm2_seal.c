/* SPDX-License-Identifier: MIT */
#include "crypto/hash.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"
#include "tpm/tpm2_cmd.h"
#include "tpm/tpm2_seal.h"

#define FAIL(...) do { fmt_snprintf(t->err, sizeof(t->err), __VA_ARGS__); return -1; } while (0)

/* TPMA_OBJECT bits */
#define OBJ_FIXED_TPM (1u << 1)
#define OBJ_FIXED_PARENT (1u << 4)
#define OBJ_SENSITIVE_DATA_ORIGIN (1u << 5)
#define OBJ_USER_WITH_AUTH (1u << 6)
#define OBJ_NO_DA (1u << 10)
#define OBJ_RESTRICTED (1u << 16)
#define OBJ_DECRYPT (1u << 17)

#define TPM2_ECC_NIST_P256 0x0003u
#define TPM2_SE_POLICY_SESSION 0x01u
#define NONCE_SIZE 16u

static void pcr_selection(struct tpm_writer *w, uint16_t bank, const unsigned *pcrs, unsigned n)
{
    uint8_t sel[TPM2_PCR_SELECT_MAX] = { 0 };
    for (unsigned i = 0; i < n; i++)
        if (pcrs[i] < 8 * TPM2_PCR_SELECT_MAX)   /* tpm2_policy_pcr refuses the others */
            sel[pcrs[i] / 8] |= (uint8_t)(1u << (pcrs[i] % 8));
    tw_u32(w, 1);
    tw_u16(w, bank);
    tw_u8(w, TPM2_PCR_SELECT_MAX);
    tw_bytes(w, sel, sizeof(sel));
}

void tpm2_policy_pcr_digest(uint16_t bank, const unsigned *pcrs, unsigned n,
                            const uint8_t *values, uint8_t out[TPM2_POLICY_DIGEST_SIZE])
{
    uint8_t buf[64];
    struct tpm_writer w;
    struct hash_ctx h;
    uint8_t pcr_digest[TPM2_POLICY_DIGEST_SIZE];

    /* pcrDigest: H(the selected PCR values, concatenated) */
    hash_buffer(TPM_ALG_SHA256, values, (size_t)n * tpm_hash_size(bank), pcr_digest);
    /* policy = H(0^32 || TPM_CC_PolicyPCR || TPML_PCR_SELECTION || pcrDigest) */
    tw_init(&w, buf, sizeof(buf));
    tw_u32(&w, TPM2_CC_POLICY_PCR);
    pcr_selection(&w, bank, pcrs, n);
    memset(out, 0, TPM2_POLICY_DIGEST_SIZE);
    hash_init(&h, TPM_ALG_SHA256);
    hash_update(&h, out, TPM2_POLICY_DIGEST_SIZE);
    hash_update(&h, buf, w.len);
    hash_update(&h, pcr_digest, sizeof(pcr_digest));
    hash_final(&h, out);
}

/* Skips a TPM2B of any size the buffer can hold. */
static void skip_tpm2b(struct tpm_reader *r)
{
    tr_tpm2b(r, NULL, TPM2_BUFFER_MAX);
}

/* TPM2B_CREATION_DATA, TPM2B_DIGEST creationHash, TPMT_TK_CREATION: what Create and
 * CreatePrimary return after the public area; kept in *c if c is not NULL. */
static void read_creation(struct tpm_reader *r, struct tpm2_creation *c)
{
    static struct tpm2_creation unused;

    if (!c)
        c = &unused;
    c->data_size = tr_tpm2b(r, c->data, sizeof(c->data));
    uint8_t hash[TPM2_MAX_DIGEST];
    uint16_t n = tr_tpm2b(r, hash, sizeof(hash));
    if (n != TPM2_POLICY_DIGEST_SIZE)
        memset(c->hash, 0, sizeof(c->hash));
    else
        memcpy(c->hash, hash, n);
    c->ticket.tag = tr_u16(r);
    c->ticket.hierarchy = tr_u32(r);
    c->ticket.digest_size = tr_tpm2b(r, c->ticket.digest, sizeof(c->ticket.digest));
}

/* TPML_PCR_SELECTION with one bank (or none: n == 0). */
static void creation_pcrs(struct tpm_writer *w, const struct tpm2_creation_request *req)
{
    if (!req || req->n == 0)
        tw_u32(w, 0);
    else
        pcr_selection(w, req->bank, req->pcrs, req->n);
}

int tpm2_create_storage_primary(struct tpm2 *t, uint32_t *handle)
{
    return tpm2_create_storage_primary_named(t, handle, NULL, NULL);
}

int tpm2_create_storage_primary_named(struct tpm2 *t, uint32_t *handle, uint8_t *name,
                                      uint16_t *name_size)
{
    uint8_t name_buf[TPM2_NAME_MAX];
    struct tpm_writer w;
    struct tpm_reader r;
    tpm2_cmd_begin(&w, TPM2_ST_SESSIONS, TPM2_CC_CREATE_PRIMARY);
    tw_u32(&w, TPM2_RH_ENDORSEMENT);  /* why: tpm2_seal.h */
    tpm2_cmd_auth(&w, TPM2_RS_PW);
    tw_u16(&w, 4);                   /* inSensitive: empty userAuth, no data */
    tw_u16(&w, 0);
    tw_u16(&w, 0);
    size_t at = w.len;
    tw_u16(&w, 0);                   /* inPublic size, patched below */
    tw_u16(&w, TPM2_ALG_ECC);
    tw_u16(&w, TPM_ALG_SHA256);
    tw_u32(&w, OBJ_FIXED_TPM | OBJ_FIXED_PARENT | OBJ_SENSITIVE_DATA_ORIGIN |
               OBJ_USER_WITH_AUTH | OBJ_NO_DA | OBJ_RESTRICTED | OBJ_DECRYPT);
    tw_u16(&w, 0);                   /* authPolicy */
    tw_u16(&w, TPM2_ALG_AES);        /* symmetric: AES-128-CFB */
    tw_u16(&w, 128);
    tw_u16(&w, TPM2_ALG_CFB);
    tw_u16(&w, TPM2_ALG_NULL);       /* scheme */
    tw_u16(&w, TPM2_ECC_NIST_P256);
    tw_u16(&w, TPM2_ALG_NULL);       /* kdf */
    tw_u16(&w, 0);                   /* unique: empty x and y */
    tw_u16(&w, 0);
    if (!w.bad) {
        uint16_t n = (uint16_t)(w.len - at - 2);
        store_be16(w.buf + at, n);
    }
    tw_u16(&w, 0);                   /* outsideInfo */
    tw_u32(&w, 0);                   /* creationPCR: none */
    int rc = tpm2_cmd_execute(t, &w, "TPM2_CreatePrimary", &r, handle);
    if (rc)
        return rc;
    skip_tpm2b(&r);                  /* outPublic */
    read_creation(&r, NULL);
    uint16_t n = tr_tpm2b(&r, name_buf, sizeof(name_buf));
    if (name) {
        memcpy(name, name_buf, n);
        *name_size = n;
    }
    return tpm2_cmd_finish(t, &r, "TPM2_CreatePrimary");
}

int tpm2_seal(struct tpm2 *t, uint32_t parent, const uint8_t policy[TPM2_POLICY_DIGEST_SIZE],
              const void *data, uint16_t len, struct tpm2_sealed *out)
{
    return tpm2_seal_recorded(t, parent, policy, data, len, NULL, out, NULL);
}

int tpm2_seal_recorded(struct tpm2 *t, uint32_t parent,
                       const uint8_t policy[TPM2_POLICY_DIGEST_SIZE], const void *data,
                       uint16_t len, const struct tpm2_creation_request *req,
                       struct tpm2_sealed *out, struct tpm2_creation *creation)
{
    struct tpm_writer w;
    struct tpm_reader r;
    if (len == 0 || len > TPM2_SEAL_MAX)
        FAIL("TPM2_Create: %u bytes to seal (1..%u)", len, TPM2_SEAL_MAX);
    if (req && (req->outside_len > TPM2_OUTSIDE_INFO_MAX || (req->n && !req->pcrs)))
        FAIL("TPM2_Create: a creation request of %u PCRs and %u bytes", req->n,
             req->outside_len);
    for (unsigned i = 0; req && i < req->n; i++)
        if (req->pcrs[i] >= 8 * TPM2_PCR_SELECT_MAX)
            FAIL("TPM2_Create: no PCR %u", req->pcrs[i]);
    tpm2_cmd_begin(&w, TPM2_ST_SESSIONS, TPM2_CC_CREATE);
    tw_u32(&w, parent);
    tpm2_cmd_auth(&w, TPM2_RS_PW);
    tw_u16(&w, (uint16_t)(4 + len)); /* inSensitive: empty userAuth, the secret */
    tw_u16(&w, 0);
    tw_tpm2b(&w, data, len);
    /* inPublic: sealed data, usable only through the policy (no userWithAuth) */
    tw_u16(&w, 2 + 2 + 4 + 2 + TPM2_POLICY_DIGEST_SIZE + 2 + 2);
    tw_u16(&w, TPM2_ALG_KEYEDHASH);
    tw_u16(&w, TPM_ALG_SHA256);
    tw_u32(&w, OBJ_FIXED_TPM | OBJ_FIXED_PARENT | OBJ_NO_DA);
    tw_tpm2b(&w, policy, TPM2_POLICY_DIGEST_SIZE);
    tw_u16(&w, TPM2_ALG_NULL);       /* keyedHash scheme */
    tw_u16(&w, 0);                   /* unique */
    tw_tpm2b(&w, req ? req->outside_info : NULL, req ? req->outside_len : 0);
    creation_pcrs(&w, req);
    int rc = tpm2_cmd_execute(t, &w, "TPM2_Create", &r, NULL);
    tpm2_wipe_command();             /* it held the secret */
    if (rc)
        return rc;
    out->private_size = tr_tpm2b(&r, out->private_area, sizeof(out->private_area));
    out->public_size = tr_tpm2b(&r, out->public_area, sizeof(out->public_area));
    read_creation(&r, creation);
    return tpm2_cmd_finish(t, &r, "TPM2_Create");
}

int tpm2_load(struct tpm2 *t, uint32_t parent, const struct tpm2_sealed *s, uint32_t *handle)
{
    struct tpm_writer w;
    struct tpm_reader r;
    if (s->private_size > sizeof(s->private_area) || s->public_size > sizeof(s->public_area))
        FAIL("TPM2_Load: sealed object sizes %u/%u are out of range", s->private_size,
             s->public_size);
    tpm2_cmd_begin(&w, TPM2_ST_SESSIONS, TPM2_CC_LOAD);
    tw_u32(&w, parent);
    tpm2_cmd_auth(&w, TPM2_RS_PW);
    tw_tpm2b(&w, s->private_area, s->private_size);
    tw_tpm2b(&w, s->public_area, s->public_size);
    int rc = tpm2_cmd_execute(t, &w, "TPM2_Load", &r, handle);
    if (rc)
        return rc;
    skip_tpm2b(&r);                  /* name */
    return tpm2_cmd_finish(t, &r, "TPM2_Load");
}

int tpm2_start_policy_session(struct tpm2 *t, uint32_t *session)
{
    static const uint8_t nonce[NONCE_SIZE];  /* unsalted, unbound: the nonce protects nothing */
    struct tpm_writer w;
    struct tpm_reader r;
    tpm2_cmd_begin(&w, TPM2_ST_NO_SESSIONS, TPM2_CC_START_AUTH_SESSION);
    tw_u32(&w, TPM2_RH_NULL);        /* tpmKey: no salt */
    tw_u32(&w, TPM2_RH_NULL);        /* bind: none */
    tw_tpm2b(&w, nonce, sizeof(nonce));
    tw_u16(&w, 0);                   /* encryptedSalt */
    tw_u8(&w, TPM2_SE_POLICY_SESSION);
    tw_u16(&w, TPM2_ALG_NULL);       /* symmetric */
    tw_u16(&w, TPM_ALG_SHA256);     /* authHash */
    int rc = tpm2_cmd_execute(t, &w, "TPM2_StartAuthSession", &r, session);
    if (rc)
        return rc;
    skip_tpm2b(&r);                  /* nonceTPM */
    return tpm2_cmd_finish(t, &r, "TPM2_StartAuthSession");
}

int tpm2_policy_pcr(struct tpm2 *t, uint32_t session, uint16_t bank, const unsigned *pcrs,
                    unsigned n)
{
    struct tpm_writer w;
    struct tpm_reader r;
    if (n == 0)
        FAIL("TPM2_PolicyPCR: no PCRs selected");
    for (unsigned i = 0; i < n; i++)
        if (pcrs[i] >= 8 * TPM2_PCR_SELECT_MAX)
            FAIL("TPM2_PolicyPCR: no PCR %u", pcrs[i]);
    tpm2_cmd_begin(&w, TPM2_ST_NO_SESSIONS, TPM2_CC_POLICY_PCR);
    tw_u32(&w, session);
    tw_u16(&w, 0);                   /* pcrDigest: the TPM's current values */
    pcr_selection(&w, bank, pcrs, n);
    int rc = tpm2_cmd_execute(t, &w, "TPM2_PolicyPCR", &r, NULL);
    return rc ? rc : tpm2_cmd_finish(t, &r, "TPM2_PolicyPCR");
}

int tpm2_unseal(struct tpm2 *t, uint32_t item, uint32_t session, uint8_t *out, uint16_t cap,
                uint16_t *len)
{
    struct tpm_writer w;
    struct tpm_reader r;
    tpm2_cmd_begin(&w, TPM2_ST_SESSIONS, TPM2_CC_UNSEAL);
    tw_u32(&w, item);
    tpm2_cmd_auth(&w, session);
    int rc = tpm2_cmd_execute(t, &w, "TPM2_Unseal", &r, NULL);
    if (rc)
        return rc;
    *len = tr_tpm2b(&r, out, cap);
    rc = tpm2_cmd_finish(t, &r, "TPM2_Unseal");
    tpm2_wipe_buffers();             /* the response held the secret */
    return rc;
}

int tpm2_certify_creation(struct tpm2 *t, uint32_t object, const struct tpm2_creation *c)
{
    struct tpm_writer w;
    struct tpm_reader r;
    uint8_t hash[TPM2_POLICY_DIGEST_SIZE];

    if (c->data_size > sizeof(c->data) || c->ticket.digest_size > sizeof(c->ticket.digest))
        FAIL("TPM2_CertifyCreation: creation data of %u bytes, ticket of %u", c->data_size,
             c->ticket.digest_size);
    hash_buffer(TPM_ALG_SHA256, c->data, c->data_size, hash);
    if (memcmp(hash, c->hash, sizeof(hash)))
        FAIL("TPM2_CertifyCreation: the creation hash is not the creation data's");
    tpm2_cmd_begin(&w, TPM2_ST_SESSIONS, TPM2_CC_CERTIFY_CREATION);
    tw_u32(&w, TPM2_RH_NULL);        /* signHandle: check the ticket, sign nothing */
    tw_u32(&w, object);
    tpm2_cmd_auth(&w, TPM2_RS_PW);
    tw_u16(&w, 0);                   /* qualifyingData */
    tw_tpm2b(&w, c->hash, sizeof(c->hash));
    tw_u16(&w, TPM2_ALG_NULL);       /* inScheme */
    tw_u16(&w, c->ticket.tag);
    tw_u32(&w, c->ticket.hierarchy);
    tw_tpm2b(&w, c->ticket.digest, c->ticket.digest_size);
    int rc = tpm2_cmd_execute(t, &w, "TPM2_CertifyCreation", &r, NULL);
    if (rc)
        return rc;
    skip_tpm2b(&r);                  /* certifyInfo */
    if (tr_u16(&r) != TPM2_ALG_NULL && !r.bad)   /* signature: sigAlg, nothing else */
        FAIL("TPM2_CertifyCreation: a signature without a signing key");
    return tpm2_cmd_finish(t, &r, "TPM2_CertifyCreation");
}

int tpm2_read_clock(struct tpm2 *t, struct tpm2_clock *out)
{
    struct tpm_writer w;
    struct tpm_reader r;
    tpm2_cmd_begin(&w, TPM2_ST_NO_SESSIONS, TPM2_CC_READ_CLOCK);
    int rc = tpm2_cmd_execute(t, &w, "TPM2_ReadClock", &r, NULL);
    if (rc)
        return rc;
    out->time = (uint64_t)tr_u32(&r) << 32;
    out->time |= tr_u32(&r);
    out->clock = (uint64_t)tr_u32(&r) << 32;
    out->clock |= tr_u32(&r);
    out->reset_count = tr_u32(&r);
    out->restart_count = tr_u32(&r);
    out->safe = tr_u8(&r);
    return tpm2_cmd_finish(t, &r, "TPM2_ReadClock");
}

int tpm2_creation_parse(const uint8_t *data, size_t len, struct tpm2_creation_info *out,
                        char *err, unsigned errlen)
{
    struct tpm_reader r;

    memset(out, 0, sizeof(*out));
    tr_init(&r, data, len);
    out->pcr_banks = tr_u32(&r);
    if (!r.bad && out->pcr_banks > 1) {
        fmt_snprintf(err, errlen, "creation data selects PCRs of %u banks", out->pcr_banks);
        return -1;
    }
    if (out->pcr_banks == 1) {
        out->pcr_bank = tr_u16(&r);
        uint8_t n = tr_u8(&r);
        const uint8_t *sel = tr_bytes(&r, n);
        for (unsigned i = 0; sel && i < n; i++) {
            if (i >= TPM2_PCR_SELECT_MAX && sel[i]) {
                fmt_snprintf(err, errlen, "creation data selects a PCR above 23");
                return -1;
            }
            if (i < TPM2_PCR_SELECT_MAX)
                out->pcr_mask |= (uint32_t)sel[i] << (8 * i);
        }
    }
    out->pcr_digest_size = tr_tpm2b(&r, out->pcr_digest, sizeof(out->pcr_digest));
    out->locality = tr_u8(&r);
    out->parent_name_alg = tr_u16(&r);
    out->parent_name_size = tr_tpm2b(&r, out->parent_name, sizeof(out->parent_name));
    out->parent_qname_size = tr_tpm2b(&r, out->parent_qname, sizeof(out->parent_qname));
    out->outside_size = tr_tpm2b(&r, out->outside, sizeof(out->outside));
    if (r.bad) {
        fmt_snprintf(err, errlen, "creation data of %u bytes is truncated or has a field too "
                     "long", (unsigned)len);
        return -1;
    }
    if (tr_left(&r)) {
        fmt_snprintf(err, errlen, "creation data has %u bytes after its last field",
                     (unsigned)tr_left(&r));
        return -1;
    }
    return 0;
}

int tpm2_flush_context(struct tpm2 *t, uint32_t handle)
{
    struct tpm_writer w;
    struct tpm_reader r;
    tpm2_cmd_begin(&w, TPM2_ST_NO_SESSIONS, TPM2_CC_FLUSH_CONTEXT);
    tw_u32(&w, handle);
    int rc = tpm2_cmd_execute(t, &w, "TPM2_FlushContext", &r, NULL);
    return rc ? rc : tpm2_cmd_finish(t, &r, "TPM2_FlushContext");
}

int tpm2_transient_handles(struct tpm2 *t, uint32_t *handles, unsigned cap, unsigned *count)
{
    struct tpm_writer w;
    struct tpm_reader r;
    tpm2_cmd_begin(&w, TPM2_ST_NO_SESSIONS, TPM2_CC_GET_CAPABILITY);
    tw_u32(&w, TPM2_CAP_HANDLES);
    tw_u32(&w, TPM2_TRANSIENT_FIRST);
    tw_u32(&w, cap);
    int rc = tpm2_cmd_execute(t, &w, "TPM2_GetCapability(HANDLES)", &r, NULL);
    if (rc)
        return rc;
    uint8_t more = tr_u8(&r);
    if (tr_u32(&r) != TPM2_CAP_HANDLES && !r.bad)
        FAIL("TPM2_GetCapability(HANDLES): wrong capability in response");
    uint32_t n = tr_u32(&r);
    if ((n > cap || more) && !r.bad)
        FAIL("TPM2_GetCapability(HANDLES): more than %u transient objects", cap);
    for (uint32_t i = 0; i < n && !r.bad; i++) {
        handles[i] = tr_u32(&r);
        if (handles[i] >> 24 != TPM2_TRANSIENT_FIRST >> 24 && !r.bad)
            FAIL("TPM2_GetCapability(HANDLES): handle 0x%x is no transient object", handles[i]);
    }
    *count = r.bad ? 0 : n;
    return tpm2_cmd_finish(t, &r, "TPM2_GetCapability(HANDLES)");
}
