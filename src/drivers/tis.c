/* SPDX-License-Identifier: MIT */
#include "abi/tpm2.h"
#include "arch/x86/io.h"
#include "drivers/timer.h"
#include "drivers/tis.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"
#include "log/printk.h"
#include "tpm/tpm2.h"

#define NR_LOCALITIES 5u
#define STS_FAMILY_MASK (3u << 26)
#define STS_FAMILY_TPM2 (1u << 26)

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

static uintptr_t reg(unsigned locality, unsigned off)
{
    return TIS_BASE + locality * TIS_LOCALITY_STRIDE + off;
}

static uint8_t access_reg(unsigned l)
{
    return mmio_read8(reg(l, TIS_REG_ACCESS));
}

static uint32_t sts(unsigned l)
{
    return mmio_read32(reg(l, TIS_REG_STS));
}

/* Polls until (read() & mask) == want or the timeout passes. */
static bool wait_sts(unsigned l, uint32_t mask, uint32_t want, uint32_t timeout_ms)
{
    uint64_t end = timer_now_us() + (uint64_t)timeout_ms * 1000u;
    for (;;) {
        if ((sts(l) & mask) == want)
            return true;
        if (timer_now_us() > end)
            return (sts(l) & mask) == want;
        cpu_relax();
    }
}

static bool wait_access(unsigned l, uint8_t mask, uint8_t want, uint32_t timeout_ms)
{
    uint64_t end = timer_now_us() + (uint64_t)timeout_ms * 1000u;
    for (;;) {
        if ((access_reg(l) & mask) == want)
            return true;
        if (timer_now_us() > end)
            return (access_reg(l) & mask) == want;
        cpu_relax();
    }
}

bool tis_probe(struct tis *tis, unsigned locality, char *err, size_t errlen)
{
    tis->locality = TIS_NO_LOCALITY;
    if (locality >= NR_LOCALITIES)
        FAIL("no locality %u", locality);
    tis->did_vid = mmio_read32(reg(locality, TIS_REG_DID_VID));
    if (tis->did_vid == 0xffffffffu || tis->did_vid == 0)
        FAIL("no TPM at 0x%08x (DID/VID reads 0x%08x)", (unsigned)reg(locality, 0),
             tis->did_vid);
    if (!(access_reg(locality) & TIS_ACCESS_VALID))
        FAIL("TPM at 0x%08x: ACCESS register not valid (0x%02x)", (unsigned)reg(locality, 0),
             access_reg(locality));
    return true;
}

bool tis_request_locality(struct tis *tis, unsigned locality, char *err, size_t errlen)
{
    if (locality >= NR_LOCALITIES)
        FAIL("no locality %u", locality);
    for (unsigned l = 0; l < NR_LOCALITIES; l++)
        if (l != locality && (access_reg(l) & TIS_ACCESS_ACTIVE))
            mmio_write8(reg(l, TIS_REG_ACCESS), TIS_ACCESS_ACTIVE);  /* relinquish */
    if (!(access_reg(locality) & TIS_ACCESS_ACTIVE)) {
        mmio_write8(reg(locality, TIS_REG_ACCESS), TIS_ACCESS_REQUEST_USE);
        if (!wait_access(locality, TIS_ACCESS_VALID | TIS_ACCESS_ACTIVE,
                         TIS_ACCESS_VALID | TIS_ACCESS_ACTIVE, TIS_TIMEOUT_A_MS)) {
            mmio_write8(reg(locality, TIS_REG_ACCESS), TIS_ACCESS_SEIZE);
            if (!wait_access(locality, TIS_ACCESS_VALID | TIS_ACCESS_ACTIVE,
                             TIS_ACCESS_VALID | TIS_ACCESS_ACTIVE, TIS_TIMEOUT_A_MS))
                FAIL("TPM locality %u not granted (ACCESS 0x%02x)", locality,
                     access_reg(locality));
        }
    }
    /* the interface family reads true only through the active locality */
    uint32_t s = sts(locality);
    if ((s & STS_FAMILY_MASK) != STS_FAMILY_TPM2) {
        mmio_write8(reg(locality, TIS_REG_ACCESS), TIS_ACCESS_ACTIVE);
        FAIL("TPM at 0x%08x is not a TPM 2.0 (STS 0x%08x); TPM 1.2 is not supported",
             (unsigned)reg(locality, 0), s);
    }
    tis->locality = locality;
    return true;
}

void tis_release_locality(struct tis *tis)
{
    if (tis->locality < NR_LOCALITIES)
        mmio_write8(reg(tis->locality, TIS_REG_ACCESS), TIS_ACCESS_ACTIVE);
    tis->locality = TIS_NO_LOCALITY;
}

static unsigned burst_count(unsigned l)
{
    return (sts(l) >> 8) & 0xffffu;
}

/* Waits for a non-zero burst count (TIMEOUT_D); 0 on timeout. */
static unsigned wait_burst(unsigned l)
{
    uint64_t end = timer_now_us() + TIS_TIMEOUT_D_MS * 1000u;
    unsigned n;
    while ((n = burst_count(l)) == 0 && timer_now_us() < end)
        cpu_relax();
    return n ? n : burst_count(l);
}

static void go_idle(unsigned l)
{
    mmio_write32(reg(l, TIS_REG_STS), TIS_STS_COMMAND_READY);
}

/* Reports a transfer failure and puts the TPM back to idle, ready for the next command. */
#define FAIL_IDLE(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); go_idle(l); return -1; } while (0)

/* How often a response that does not frame is read (the first read and the retries). */
#define TIS_RESPONSE_READS 3u

/*
 * Reads the response the TPM has ready: the header first, for the size, then exactly that many
 * bytes. 0 with *got, -1 if the transfer failed, 1 if what arrived does not frame a response
 * (the header's fields, or data left over after its size): worth reading again.
 */
static int read_response(unsigned l, uint8_t *rsp, size_t rsp_cap, size_t *got_out, char *err,
                         size_t errlen)
{
    uintptr_t fifo = reg(l, TIS_REG_DATA_FIFO);
    size_t got = 0, want = TPM2_HEADER_SIZE;

    while (got < want) {
        unsigned n = wait_burst(l);
        if (!n || !(sts(l) & TIS_STS_DATA_AVAIL)) {
            fmt_snprintf(err, errlen, "TPM: response ended after %u of %u bytes", (uint32_t)got,
                         (uint32_t)want);
            return 1;
        }
        for (; n && got < want; n--)
            rsp[got++] = mmio_read8(fifo);
        if (got == TPM2_HEADER_SIZE && want == TPM2_HEADER_SIZE &&
            tpm2_response_framing(rsp, rsp_cap, &want, err, errlen))
            return 1;
    }
    if (!wait_sts(l, TIS_STS_VALID, TIS_STS_VALID, TIS_TIMEOUT_C_MS)) {
        fmt_snprintf(err, errlen, "TPM: status not valid after the response (STS 0x%08x)",
                     sts(l));
        return -1;
    }
    if (sts(l) & TIS_STS_DATA_AVAIL) {
        fmt_snprintf(err, errlen, "TPM: more response data than its size %u", (uint32_t)want);
        return 1;
    }
    *got_out = got;
    return 0;
}

int tis_transmit(void *ctx, const uint8_t *cmd, size_t cmd_len, uint8_t *rsp, size_t rsp_cap,
                 size_t *rsp_len, char *err, size_t errlen)
{
    struct tis *tis = ctx;
    unsigned l = tis->locality;
    uintptr_t fifo;

    if (l >= NR_LOCALITIES) {
        fmt_snprintf(err, errlen, "TPM: no active locality");
        return -1;
    }
    if (cmd_len < TPM2_HEADER_SIZE || rsp_cap < TPM2_HEADER_SIZE)
        FAIL_IDLE("TPM: bad buffer sizes %u/%u", (uint32_t)cmd_len,
                         (uint32_t)rsp_cap);
    fifo = reg(l, TIS_REG_DATA_FIFO);

    go_idle(l);
    if (!wait_sts(l, TIS_STS_COMMAND_READY, TIS_STS_COMMAND_READY, TIS_TIMEOUT_B_MS))
        FAIL_IDLE("TPM: not ready for a command (STS 0x%08x)", sts(l));

    /* all but the last byte in bursts; the TPM must still expect more after them */
    size_t sent = 0;
    while (sent < cmd_len - 1) {
        unsigned n = wait_burst(l);
        if (!n)
            FAIL_IDLE("TPM: burst count stuck at 0 after %u of %u bytes",
                             (uint32_t)sent, (uint32_t)cmd_len);
        for (; n && sent < cmd_len - 1; n--)
            mmio_write8(fifo, cmd[sent++]);
        if (!wait_sts(l, TIS_STS_VALID, TIS_STS_VALID, TIS_TIMEOUT_C_MS) ||
            !(sts(l) & TIS_STS_EXPECT))
            FAIL_IDLE("TPM: stopped expecting data after %u of %u bytes",
                             (uint32_t)sent, (uint32_t)cmd_len);
    }
    if (!wait_burst(l))
        FAIL_IDLE("TPM: no room for the last byte (STS 0x%08x)", sts(l));
    mmio_write8(fifo, cmd[sent++]);
    if (!wait_sts(l, TIS_STS_VALID, TIS_STS_VALID, TIS_TIMEOUT_C_MS) || (sts(l) & TIS_STS_EXPECT))
        FAIL_IDLE("TPM: still expects data after the whole command (%u bytes)",
                  (uint32_t)cmd_len);

    mmio_write32(reg(l, TIS_REG_STS), TIS_STS_GO);
    if (!wait_sts(l, TIS_STS_VALID | TIS_STS_DATA_AVAIL, TIS_STS_VALID | TIS_STS_DATA_AVAIL,
                  TPM2_DURATION_LONG_MS)) {
        mmio_write32(reg(l, TIS_REG_STS), TIS_STS_COMMAND_CANCEL);
        FAIL_IDLE("TPM: no response within %u ms (command 0x%08x)",
                         TPM2_DURATION_LONG_MS,
                         load_be32(cmd + 6));
    }

    /* A response that does not frame (a byte lost or added on the way) is read again from
     * its start (STS.responseRetry), as Linux's tpm_tis does; the TPM keeps it until the next
     * command. The command is not sent again: it may have changed the TPM's state. */
    size_t got = 0;
    for (unsigned read = 1;; read++) {
        int rc = read_response(l, rsp, rsp_cap, &got, err, errlen);
        if (rc == 0)
            break;
        if (rc < 0 || read == TIS_RESPONSE_READS) {
            if (rc > 0)
                fmt_snprintf(err + strlen(err), errlen - strlen(err), " (%u reads)", read);
            go_idle(l);
            return -1;
        }
        pr_warn("%s; reading the response again (responseRetry, read %u of %u)\n", err, read + 1,
                TIS_RESPONSE_READS);
        mmio_write32(reg(l, TIS_REG_STS), TIS_STS_RESPONSE_RETRY);
        if (!wait_sts(l, TIS_STS_VALID | TIS_STS_DATA_AVAIL, TIS_STS_VALID | TIS_STS_DATA_AVAIL,
                      TIS_TIMEOUT_C_MS))
            FAIL_IDLE("TPM: no response after responseRetry (STS 0x%08x)", sts(l));
    }
    go_idle(l);
    *rsp_len = got;
    return 0;
}
