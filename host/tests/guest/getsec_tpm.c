/* SPDX-License-Identifier: MIT */
/*
 * getsec's probe of the TPM localities as the emulated TXT chipset gates them before any launch
 * (qemu/patches 0008, docs/txt-platform.md "0008"; tests/qemu/test_txt_tpm.py). QEMU runs with
 * tpm-tis on swtpm; lines on COM1 are getsec's: "GETSEC: tpm-loc: <what> = <value>".
 *
 *   case=tpm-loc  TPM_ACCESS (a byte at 0xfed4N000) of localities 0-4 and TPM_DID_VID (32 bits
 *                 at +0xf00) of localities 0, 1 and 4; then a write of REQUEST_USE (0x02) to
 *                 locality 4's ACCESS and the five ACCESS bytes again; then the same write to
 *                 locality 1's and the five again. With txt=on localities 1-4 are closed (no
 *                 launch opened them: all-ones, writes dropped); without it they answer.
 *
 *   case=tpm-loc-launched  after SENTER (the echo ACM leaves the private space open): the five
 *                 ACCESS bytes; then after CMD.OPEN-LOCALITY1, CMD.OPEN-LOCALITY2 and
 *                 CMD.CLOSE-PRIVATE (which closes 1 and 2 with it), the five again each time
 *
 * tpm_pcr_sha256() reads a PCR's SHA-256 bank through locality 0 (TPM2_PCR_Read over the FIFO),
 * for the SENTER cases (getsec_acmode.c).
 */
#include "com1.h"
#include "getsec.h"
#include "abi/txt.h"

#include <stddef.h>
#include <stdint.h>

#define TIS 0xfed40000u
#define TIS_ACCESS 0x000u
#define TIS_DID_VID 0xf00u
#define ACCESS_REQUEST_USE 0x02u
#define ACCESS_ACTIVE 0x20u
#define TIS_STS 0x018u
#define TIS_FIFO 0x024u
#define STS_VALID 0x80u
#define STS_COMMAND_READY 0x40u
#define STS_GO 0x20u
#define STS_DATA_AVAIL 0x10u
/* polls: a TCG TPM answers in microseconds to milliseconds; this bounds a hang, not a wait */
#define TPM_POLLS 100000000u

static uint32_t loc(unsigned l) { return TIS + (l << 12); }

static void show_loc(const char *what, unsigned l, const char *reg, uint32_t v)
{
    line(what);
    put_str("locality ");
    put_dec(l);
    put_str(" ");
    put_str(reg);
    put_str(" = ");
    put_hex(v);
    put_str("\n");
}

static void all_access(const char *what)
{
    for (unsigned l = 0; l <= 4; l++)
        show_loc(what, l, "ACCESS", *(volatile uint8_t *)(loc(l) + TIS_ACCESS));
}

static void request_use(unsigned l)
{
    line("write REQUEST_USE to locality ");
    put_dec(l);
    put_str("\n");
    *(volatile uint8_t *)(loc(l) + TIS_ACCESS) = ACCESS_REQUEST_USE;
}

void tpm_loc(void)
{
    all_access("");
    static const unsigned did[] = { 0, 1, 4 };
    for (unsigned i = 0; i < sizeof(did) / sizeof(did[0]); i++)
        show_loc("", did[i], "DID_VID", *(volatile uint32_t *)(loc(did[i]) + TIS_DID_VID));
    request_use(4);
    all_access("after: ");
    request_use(1);
    all_access("after: ");
}

static int sts_wait(uint32_t base, uint8_t mask, uint8_t want)
{
    for (uint32_t i = 0; i < TPM_POLLS; i++)
        if ((*(volatile uint8_t *)(base + TIS_STS) & mask) == want)
            return 1;
    return 0;
}

int tpm_pcr_sha256(unsigned pcr, uint8_t out[32])
{
    /* TPM2_PCR_Read: TPM_ST_NO_SESSIONS, 20 bytes, TPM_CC_PCR_Read, one TPMS_PCR_SELECTION:
     * TPM_ALG_SHA256, 3 select bytes */
    uint8_t cmd[20] = { 0x80, 0x01, 0, 0, 0, 20, 0, 0, 0x01, 0x7e, 0, 0, 0, 1, 0x00, 0x0b, 3 };
    uint8_t rsp[64];
    uint32_t base = loc(0), n = 0, size = 10;
    if (pcr >= 24)
        return 0;
    cmd[17 + pcr / 8] = (uint8_t)(1u << (pcr % 8));
    if ((*(volatile uint8_t *)(base + TIS_ACCESS) & 0x80u) == 0 ||
        *(volatile uint8_t *)(base + TIS_ACCESS) == 0xffu)
        return 0;                          /* no TPM: tpmRegValidSts clear (or all-ones) */
    if (!(*(volatile uint8_t *)(base + TIS_ACCESS) & ACCESS_ACTIVE)) {
        *(volatile uint8_t *)(base + TIS_ACCESS) = ACCESS_REQUEST_USE;
        for (uint32_t i = 0; i < TPM_POLLS; i++)
            if (*(volatile uint8_t *)(base + TIS_ACCESS) & ACCESS_ACTIVE)
                break;
    }
    *(volatile uint8_t *)(base + TIS_STS) = STS_COMMAND_READY;
    if (!sts_wait(base, STS_COMMAND_READY, STS_COMMAND_READY))
        return 0;
    for (unsigned i = 0; i < sizeof(cmd); i++)
        *(volatile uint8_t *)(base + TIS_FIFO) = cmd[i];
    *(volatile uint8_t *)(base + TIS_STS) = STS_GO;
    if (!sts_wait(base, STS_VALID | STS_DATA_AVAIL, STS_VALID | STS_DATA_AVAIL))
        return 0;
    while (n < size && n < sizeof(rsp)) {
        if (!sts_wait(base, STS_VALID | STS_DATA_AVAIL, STS_VALID | STS_DATA_AVAIL))
            return 0;
        rsp[n++] = *(volatile uint8_t *)(base + TIS_FIFO);
        if (n == 10)
            size = (uint32_t)rsp[2] << 24 | (uint32_t)rsp[3] << 16 | (uint32_t)rsp[4] << 8 | rsp[5];
    }
    *(volatile uint8_t *)(base + TIS_STS) = STS_COMMAND_READY;
    /* header 10, pcrUpdateCounter 4, pcrSelectionOut 4 + 2 + 1 + 3, digest count 4, size 2 */
    const unsigned dig = 10 + 4 + 10 + 4;
    if (n != size || size != dig + 2 + 32 || rsp[6] | rsp[7] | rsp[8] | rsp[9] ||
        rsp[dig] != 0 || rsp[dig + 1] != 32)
        return 0;
    for (unsigned i = 0; i < 32; i++)
        out[i] = rsp[dig + 2 + i];
    return 1;
}

void tpm_loc_launched(void)
{
    static const struct {
        const char *what;
        uint32_t cmd;
    } cmds[] = {
        { "after CMD.OPEN-LOCALITY1: ", TXTCR_CMD_OPEN_LOCALITY1 },
        { "after CMD.OPEN-LOCALITY2: ", TXTCR_CMD_OPEN_LOCALITY2 },
        { "after CMD.CLOSE-PRIVATE: ", TXTCR_CMD_CLOSE_PRIVATE },
    };
    if (!report("SENTER", acmode_senter()))
        return;
    all_access("");
    for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        wr32(TXT_PRIV_CONFIG_REGS_BASE + cmds[i].cmd, 1);
        all_access(cmds[i].what);
    }
}
