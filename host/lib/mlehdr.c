/* SPDX-License-Identifier: MIT */
#include "mlehdr.h"
#include "abi/vsenter.h"
#include "util.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const uint8_t uuid[16] = MLE_HDR_UUID_BYTES;


/* [a, b) inside [lo, hi) */
static bool inside(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
    return a >= lo && b <= hi && a <= b;
}

int mlehdr_check(const struct mle_hdr *h, uint32_t mle_base, uint32_t hdr_addr, uint64_t lowmem,
                 struct mle_range *out, char *err, size_t errsz)
{
    uint64_t start, end, entry, cs, ce;

    if (memcmp(h->uuid, uuid, sizeof(uuid)))
        return errorf(err, errsz, "MLE header at 0x%08x: bad UUID", hdr_addr);
    if (h->length != sizeof(struct mle_hdr))
        return errorf(err, errsz, "MLE header: length 0x%x, expected 0x%zx", h->length,
                    sizeof(struct mle_hdr));
    if (h->version != MLE_HDR_VERSION)
        return errorf(err, errsz, "MLE header: version 0x%08x, expected 0x%08x", h->version,
                    MLE_HDR_VERSION);
    if (h->first_valid_page != 0)
        return errorf(err, errsz, "MLE header: first_valid_page 0x%x, expected 0",
                    h->first_valid_page);
    if (h->mle_end_off <= h->mle_start_off)
        return errorf(err, errsz, "MLE header: empty range (mle_start_off 0x%x, mle_end_off 0x%x)",
                    h->mle_start_off, h->mle_end_off);
    if (h->mle_end_off - h->mle_start_off > VSENTER_MLE_MAX)
        return errorf(err, errsz, "MLE range of 0x%x bytes, above 0x%x", h->mle_end_off -
                    h->mle_start_off, VSENTER_MLE_MAX);
    start = (uint64_t)mle_base + h->mle_start_off;
    end = (uint64_t)mle_base + h->mle_end_off;
    if (end > (1ull << 32))
        return errorf(err, errsz, "MLE range crosses 4 GiB");
    if (end > lowmem)
        return errorf(err, errsz, "MLE range 0x%08llx-0x%08llx not in guest RAM",
                    (unsigned long long)start, (unsigned long long)end);
    if (start & 0xfff)
        return errorf(err, errsz, "MLE start 0x%08llx not page-aligned", (unsigned long long)start);
    if (!inside(hdr_addr, (uint64_t)hdr_addr + sizeof(*h), start, end))
        return errorf(err, errsz, "MLE header at 0x%08x outside the measured range "
                    "0x%08llx-0x%08llx", hdr_addr, (unsigned long long)start,
                    (unsigned long long)end);
    if ((hdr_addr - mle_base) % MLE_HDR_ALIGN)
        return errorf(err, errsz, "MLE header at 0x%08x not %u-byte aligned in the image",
                    hdr_addr, MLE_HDR_ALIGN);
    entry = start + h->entry_point;
    if (entry >= end)
        return errorf(err, errsz, "entry point 0x%08llx outside the measured range",
                    (unsigned long long)entry);
    if (h->cmdline_end_off < h->cmdline_start_off)
        return errorf(err, errsz, "MLE header: cmdline_end_off 0x%x below cmdline_start_off 0x%x",
                    h->cmdline_end_off, h->cmdline_start_off);
    cs = (uint64_t)mle_base + h->cmdline_start_off;
    ce = (uint64_t)mle_base + h->cmdline_end_off;
    if (ce > cs && !inside(cs, ce, start, end))
        return errorf(err, errsz, "command line 0x%08llx-0x%08llx outside the measured range",
                    (unsigned long long)cs, (unsigned long long)ce);
    if (h->capabilities & ~MLE_CAP_DEFINED)
        return errorf(err, errsz, "MLE header: reserved capability bits 0x%08x",
                    h->capabilities & ~MLE_CAP_DEFINED);
    out->start = start;
    out->end = end;
    out->entry = entry;
    out->hdr = hdr_addr;
    out->cmdline_start = cs;
    out->cmdline_end = ce;
    return 0;
}
