/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: mlehdr_check() and vs_parse(). Input: a 0x34-byte MLE header, then
 * mle_base, hdr_addr (u32 LE each) and lowmem (u64 LE); the rest is a request line. An
 * accepted header must give a range that satisfies every rule (abort otherwise).
 */
#include "mlehdr.h"
#include "vsenter.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mle_hdr h;
    struct mle_range r;
    struct vs_request rq;
    uint32_t base, hdr;
    uint64_t lowmem;
    char err[256], line[VSENTER_LINE_MAX + 1];
    size_t n;

    if (size < sizeof(h) + 16)
        return 0;
    memcpy(&h, data, sizeof(h));
    memcpy(&base, data + sizeof(h), 4);
    memcpy(&hdr, data + sizeof(h) + 4, 4);
    memcpy(&lowmem, data + sizeof(h) + 8, 8);
    if (mlehdr_check(&h, base, hdr, lowmem, &r, err, sizeof(err)) == 0) {
        check(h.length == sizeof(h) && h.version == MLE_HDR_VERSION && !h.first_valid_page);
        check(r.start < r.end && r.end - r.start <= VSENTER_MLE_MAX && r.end <= lowmem &&
              r.end <= 1ull << 32 && !(r.start & 0xfff));
        check(r.hdr >= r.start && r.hdr + sizeof(h) <= r.end && (hdr - base) % 16 == 0);
        check(r.entry >= r.start && r.entry < r.end);
        check(r.cmdline_start <= r.cmdline_end);
        check(r.cmdline_start == r.cmdline_end ||
              (r.cmdline_start >= r.start && r.cmdline_end <= r.end));
        check(!(h.capabilities & ~MLE_CAP_DEFINED));
    } else {
        check(err[0] != 0);
    }
    n = size - sizeof(h) - 16;
    if (n > VSENTER_LINE_MAX)
        n = VSENTER_LINE_MAX;
    memcpy(line, data + sizeof(h) + 16, n);
    line[n] = 0;
    if (vs_parse(line, lowmem, &rq, err, sizeof(err)) == 0)
        check((uint64_t)rq.mle_hdr + sizeof(h) <= lowmem && !strncmp(line, "VSENTER ", 8));
    return 0;
}
