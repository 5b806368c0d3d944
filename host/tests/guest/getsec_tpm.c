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
 */
#include "com1.h"
#include "getsec.h"

#include <stddef.h>
#include <stdint.h>

#define TIS 0xfed40000u
#define TIS_ACCESS 0x000u
#define TIS_DID_VID 0xf00u
#define ACCESS_REQUEST_USE 0x02u

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
