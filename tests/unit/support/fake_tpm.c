/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_tpm.h"

struct step {
    bool any_cmd;
    uint8_t cmd[TPM2_BUFFER_MAX];
    size_t cmd_len;
    bool fail;
    char why[96];
    uint8_t rsp[TPM2_BUFFER_MAX];
    size_t rsp_len;
};

static struct step steps[FAKE_TPM_MAX_STEPS];
static unsigned nsteps, next;
static unsigned calls;
static char mismatch[640];
static uint8_t last[TPM2_BUFFER_MAX];
static size_t last_len;

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t fake_tpm_unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    size_t size_at = (size_t)-1;
    int hi = -1;

    for (const char *p = hex; *p; p++) {
        if (*p == ' ' || *p == '\n' || *p == '|')
            continue;
        if (p[0] == 'S' && p[1] == 'Z') {
            if (hi >= 0 || n + 4 > cap)
                goto bad;
            size_at = n;
            n += 4;
            p++;
            continue;
        }
        int v = hexval(*p);
        if (v < 0)
            goto bad;
        if (hi < 0) {
            hi = v;
            continue;
        }
        if (n >= cap)
            goto bad;
        out[n++] = (uint8_t)(hi << 4 | v);
        hi = -1;
    }
    if (hi >= 0)
        goto bad;
    if (size_at != (size_t)-1) {
        out[size_at] = (uint8_t)(n >> 24);
        out[size_at + 1] = (uint8_t)(n >> 16);
        out[size_at + 2] = (uint8_t)(n >> 8);
        out[size_at + 3] = (uint8_t)n;
    }
    return n;
bad:
    fprintf(stderr, "fake_tpm: bad hex or too long: \"%s\"\n", hex);
    abort();
}

static struct step *add_step(void)
{
    if (nsteps >= FAKE_TPM_MAX_STEPS) {
        fprintf(stderr, "fake_tpm: more than %u steps\n", FAKE_TPM_MAX_STEPS);
        abort();
    }
    struct step *s = &steps[nsteps++];
    memset(s, 0, sizeof(*s));
    return s;
}

static void set_cmd(struct step *s, const char *cmd_hex)
{
    s->any_cmd = cmd_hex == NULL;
    if (cmd_hex)
        s->cmd_len = fake_tpm_unhex(cmd_hex, s->cmd, sizeof(s->cmd));
}

void fake_tpm_expect(const char *cmd_hex, const char *rsp_hex)
{
    struct step *s = add_step();
    set_cmd(s, cmd_hex);
    s->rsp_len = fake_tpm_unhex(rsp_hex, s->rsp, sizeof(s->rsp));
}

void fake_tpm_expect_bytes(const void *cmd, size_t cmd_len, const void *rsp, size_t rsp_len)
{
    struct step *s = add_step();
    if (cmd_len > sizeof(s->cmd) || rsp_len > sizeof(s->rsp))
        abort();
    s->any_cmd = cmd == NULL;
    if (cmd)
        memcpy(s->cmd, cmd, s->cmd_len = cmd_len);
    memcpy(s->rsp, rsp, s->rsp_len = rsp_len);
}

void fake_tpm_expect_fail(const char *cmd_hex, const char *why)
{
    struct step *s = add_step();
    set_cmd(s, cmd_hex);
    s->fail = true;
    snprintf(s->why, sizeof(s->why), "%s", why);
}

static void hexdump(char *out, size_t cap, const uint8_t *p, size_t n)
{
    size_t o = 0;
    out[0] = 0;
    for (size_t i = 0; i < n && o + 4 < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%02x", p[i]);
    if (o + 4 >= cap)
        snprintf(out + cap - 4, 4, "...");
}

static int transmit(void *ctx, const uint8_t *cmd, size_t cmd_len, uint8_t *rsp, size_t rsp_cap,
                    size_t *rsp_len, char *err, size_t errlen)
{
    (void)ctx;
    calls++;
    last_len = cmd_len < sizeof(last) ? cmd_len : sizeof(last);
    memcpy(last, cmd, last_len);
    char got[256], want[256];
    hexdump(got, sizeof(got), cmd, cmd_len);
    if (next >= nsteps) {
        if (!mismatch[0])
            snprintf(mismatch, sizeof(mismatch), "command %u is one too many: %s", calls, got);
        snprintf(err, errlen, "fake TPM: unexpected command");
        return -1;
    }
    struct step *s = &steps[next++];
    if (!s->any_cmd && (cmd_len != s->cmd_len || memcmp(cmd, s->cmd, cmd_len))) {
        size_t at = 0;
        while (at < cmd_len && at < s->cmd_len && cmd[at] == s->cmd[at])
            at++;
        hexdump(want, sizeof(want), s->cmd, s->cmd_len);
        if (!mismatch[0])
            snprintf(mismatch, sizeof(mismatch),
                     "command %u differs at byte %zu:\n  got  %s\n  want %s", calls, at, got,
                     want);
        snprintf(err, errlen, "fake TPM: unexpected command");
        return -1;
    }
    if (s->fail) {
        snprintf(err, errlen, "%s", s->why);
        return -1;
    }
    if (s->rsp_len > rsp_cap) {
        snprintf(err, errlen, "fake TPM: response of %zu bytes does not fit %zu", s->rsp_len,
                 rsp_cap);
        return -1;
    }
    memcpy(rsp, s->rsp, s->rsp_len);
    *rsp_len = s->rsp_len;
    return 0;
}

void fake_tpm_reset(struct tpm2 *t)
{
    nsteps = next = calls = 0;
    mismatch[0] = 0;
    last_len = 0;
    if (t) {
        memset(t, 0, sizeof(*t));
        t->transmit = transmit;
    }
}

unsigned fake_tpm_pending(void)
{
    return nsteps - next;
}

const char *fake_tpm_mismatch(void)
{
    return mismatch;
}

unsigned fake_tpm_calls(void)
{
    return calls;
}

const uint8_t *fake_tpm_last_cmd(size_t *len)
{
    *len = last_len;
    return last;
}
