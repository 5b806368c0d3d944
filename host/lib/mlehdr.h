/* SPDX-License-Identifier: MIT */
/*
 * The MLE header (include/abi/mle.h) as whoever launches or predicts an MLE checks it: every
 * field, and where its offsets put the measured range, the entry point and the command line.
 * Pure code: the caller reads the header's bytes (from guest memory or from an ELF file).
 */
#ifndef HOST_MLEHDR_H
#define HOST_MLEHDR_H

#include "abi/mle.h"

#include <stddef.h>
#include <stdint.h>

/* Physical addresses (or load addresses, for a file) the header resolves to. */
struct mle_range {
    uint64_t start, end;                /* the measured range, end exclusive (<= 4 GiB) */
    uint64_t entry;                     /* start + entry_point */
    uint64_t hdr;                       /* the header itself */
    uint64_t cmdline_start, cmdline_end;  /* equal: no command line */
};

/*
 * Checks header h, read at hdr_addr, of an MLE image whose first byte is at mle_base, in a
 * machine whose RAM below 4 GiB ends at lowmem. The rules, in this order (the first that
 * fails gives the reason):
 *   UUID; length 0x34; version 2.1; first_valid_page 0;
 *   mle_start_off < mle_end_off; at most VSENTER_MLE_MAX (16 MiB) bytes; below 4 GiB;
 *   inside RAM (end <= lowmem); the range's first byte page-aligned;
 *   the 0x34 header bytes inside the range; the header 16-byte aligned from mle_base
 *   (lcp2_mlehash finds it at such an offset); the entry point inside the range;
 *   cmdline_start_off <= cmdline_end_off and a non-empty command line inside the range;
 *   no reserved capability bit (bits 11-31).
 * Returns 0 and fills *out, or -1 with a short reason in err.
 */
int mlehdr_check(const struct mle_hdr *h, uint32_t mle_base, uint32_t hdr_addr, uint64_t lowmem,
                 struct mle_range *out, char *err, size_t errsz);

#endif
