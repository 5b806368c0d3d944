/* SPDX-License-Identifier: MIT */
/*
 * src/tpm/tpm2.c against a hostile TPM: the fuzz input is what the TPM answers. Nothing may
 * crash or touch memory outside the caller's buffers (which are allocated to exactly the size
 * asked for, so ASan sees any overrun); every command sent must be well-formed; a success must
 * come with values inside their bounds, a TPM error code with the TPM's own code, a failure
 * with a reason.
 *
 * Input: byte 0 picks the command, byte 1 its parameters, then the responses, each a 2-byte
 * big-endian length and that many bytes (the last one may be cut short); once they run out,
 * the transport fails.
 */
#include "fuzz_common.h"

#include "tpm/tpm2.h"

static const uint8_t *resp;
static size_t resp_left;
static unsigned sent;
static uint32_t last_rc;                     /* response code of the last response given */
static bool last_was_header;

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int transmit(void *ctx, const uint8_t *cmd, size_t cmd_len, uint8_t *rsp, size_t rsp_cap,
                    size_t *rsp_len, char *err, size_t errlen)
{
    (void)ctx;
    sent++;
    FUZZ_ASSERT(cmd_len >= 10 && cmd_len <= TPM2_BUFFER_MAX, "command of %zu bytes", cmd_len);
    FUZZ_ASSERT(be32(cmd + 2) == cmd_len, "command size field %u for %zu bytes", be32(cmd + 2),
                cmd_len);
    uint16_t tag = (uint16_t)(cmd[0] << 8 | cmd[1]);
    FUZZ_ASSERT(tag == TPM2_ST_NO_SESSIONS || tag == TPM2_ST_SESSIONS, "tag 0x%04x", tag);
    FUZZ_ASSERT(sent <= 64 * TPM2_MAX_RETRIES, "%u commands", sent);
    if (resp_left < 2) {
        snprintf(err, errlen, "fuzz: no more responses");
        return -1;
    }
    size_t n = (size_t)resp[0] << 8 | resp[1];
    resp += 2;
    resp_left -= 2;
    if (n > resp_left)
        n = resp_left;
    if (n > rsp_cap)
        n = rsp_cap;
    memcpy(rsp, resp, n);
    *rsp_len = n;
    last_was_header = n >= 10;
    last_rc = n >= 10 ? be32(resp + 6) : 0;
    resp += n;
    resp_left -= n;
    return 0;
}

static const uint16_t algs[4] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
                                  TPM_ALG_SHA512 };

/* A bank list from the parameter byte: a non-empty subset, rotated */
static struct tpm_banks banks_of(uint8_t p)
{
    struct tpm_banks b = { 0, { 0 } };
    unsigned mask = (p & 15) ? (p & 15) : 2, rot = (p >> 4) & 3;
    for (unsigned i = 0; i < 4; i++)
        if (mask & (1u << ((i + rot) % 4)))
            b.alg[b.count++] = algs[(i + rot) % 4];
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint8_t op = data[0] % 8, p = data[1];
    resp = data + 2;
    resp_left = size - 2;
    sent = 0;
    last_rc = 0;
    last_was_header = false;

    struct tpm2 t = { transmit, NULL, { 0 } };
    memset(t.err, 0x5a, sizeof(t.err));
    int rc = -1;
    switch (op) {
    case 0:
        rc = tpm2_startup(&t, p & 1 ? TPM2_SU_STATE : TPM2_SU_CLEAR);
        break;
    case 1:
        rc = tpm2_shutdown(&t, p & 1 ? TPM2_SU_STATE : TPM2_SU_CLEAR);
        break;
    case 2: {
        struct tpm_banks b;
        memset(&b, 0xa5, sizeof(b));
        rc = tpm2_get_pcr_banks(&t, &b);
        if (rc == 0) {
            FUZZ_ASSERT(b.count <= TPM_MAX_BANKS, "%u banks", b.count);
            for (unsigned i = 0; i < b.count; i++)
                FUZZ_ASSERT(tpm_hash_size(b.alg[i]), "bank of algorithm 0x%04x", b.alg[i]);
        }
        break;
    }
    case 3: {
        struct tpm_banks b = banks_of(p);
        struct tpm_digest_list d;
        memset(&d, 0xa5, sizeof(d));
        rc = tpm2_pcr_read(&t, p % 25, &b, &d);
        if (rc == 0) {
            FUZZ_ASSERT(p % 25 < 24, "PCR %u read", p % 25);
            FUZZ_ASSERT(d.count == b.count, "%u digests for %u banks", d.count, b.count);
            for (unsigned i = 0; i < d.count; i++)
                FUZZ_ASSERT(d.d[i].alg == b.alg[i], "digest %u of 0x%04x", i, d.d[i].alg);
        }
        break;
    }
    case 4: {
        struct tpm_banks b = banks_of(p);
        struct tpm_digest_list d = { b.count, { { 0 } } };
        for (unsigned i = 0; i < b.count; i++) {
            d.d[i].alg = b.alg[i];
            memset(d.d[i].bytes, (int)i, sizeof(d.d[i].bytes));
        }
        rc = tpm2_pcr_extend(&t, p % 25, &d);
        break;
    }
    case 5: {
        unsigned n = p;                      /* 0..255: up to four chunks */
        uint8_t *out = malloc(n ? n : 1);
        rc = tpm2_get_random(&t, out, n);
        free(out);
        break;
    }
    case 6: {
        uint32_t attrs;
        uint16_t sz;
        rc = tpm2_nv_read_public(&t, 0x01200001, &attrs, &sz);
        break;
    }
    case 7: {
        uint16_t n = (uint16_t)(p * 7);      /* 0..1785: up to four 512-byte chunks */
        uint8_t *out = malloc(n ? n : 1);
        rc = tpm2_nv_read(&t, 0x01200001, out, n);
        free(out);
        break;
    }
    }
    FUZZ_ASSERT(rc >= -1, "rc %d", rc);
    if (rc > 0) {
        /* only ever the TPM's own code, from a header-only response */
        FUZZ_ASSERT(last_was_header && (uint32_t)rc == last_rc, "rc 0x%x, TPM said 0x%x", rc,
                    last_rc);
        FUZZ_ASSERT(strstr(t.err, "TPM returned 0x"), "err '%.*s'", (int)sizeof(t.err), t.err);
    }
    if (rc != 0) {
        FUZZ_ASSERT(memchr(t.err, 0, sizeof(t.err)), "error message not terminated");
        FUZZ_ASSERT(t.err[0], "failure without a reason");
    }
    return 0;
}
