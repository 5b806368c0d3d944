/* SPDX-License-Identifier: MIT */
/*
 * The MLE as our SINIT reaches it (docs/txt-platform.md 3.4 step 5): through the page table
 * tboot built (OsSinitData.mle_ptab; PAE format: PDPT -> PD -> PT, entries `phys | 1`, tboot
 * txt/txt.c build_mle_pagetable), from linear 0 for OsSinitData.mle_size bytes, page by page
 * in linear order: the bytes the SINIT measures, the same ones Debian's lcp2_mlehash hashes.
 *
 * Refused (the launch fails): a size of 0 or over TXT_MLE_MAX_SIZE; a table or a page that
 * is not present, not 4 KiB aligned, at or above 4 GiB, outside the caller's allowed range
 * (the low PMR) or inside a forbidden one (heap, SINIT, DPR); a large page (PS set); a table
 * that lies inside the MLE's own pages (then the measured bytes would describe their own
 * mapping); and pages that are not physically contiguous (page i at page 0 + i * 4096): the
 * SINIT enters the MLE with paging off at its physical entry point, so the CPU runs the
 * bytes at page 0 + the linear address, and only a contiguous MLE runs what was measured
 * (nothing measured twice, no gap whose bytes run unmeasured) [choice: beyond the ascending
 * order Intel's MLE Developer's Guide names; tboot builds exactly this].
 */
#ifndef TXT_MLE_WALK_H
#define TXT_MLE_WALK_H

#include <stdint.h>

#define TXT_MLE_MAX_SIZE (32u << 20)         /* 16 page tables; tboot's MLE is 292 KiB */
#define TXT_MLE_MAX_FORBIDDEN 4u

struct txt_mle_limits {
    uint64_t allowed_base, allowed_size;     /* every table and page inside (the low PMR) */
    unsigned nr_forbidden;
    struct { uint64_t base, size; } forbidden[TXT_MLE_MAX_FORBIDDEN];
};

/* Called for each page in linear order: its physical address and how many of its bytes
 * belong to the MLE (4096, less for the last); nonzero stops the walk and is returned. */
typedef int (*txt_mle_page_fn)(void *ctx, uint64_t phys, uint32_t len);

/* Walks the MLE; 0 after every page, -1 with the reason in err, or what fn returned. */
int txt_mle_walk(uint64_t ptab, uint64_t mle_size, const struct txt_mle_limits *lim,
                 txt_mle_page_fn fn, void *ctx, char *err, unsigned errlen);

/* The physical address of MLE linear address `linear` (< mle_size), by the same tables and
 * checks; 0, or -1 with the reason. */
int txt_mle_phys(uint64_t ptab, uint64_t mle_size, const struct txt_mle_limits *lim,
                 uint64_t linear, uint64_t *phys, char *err, unsigned errlen);

/* The MLE header at MLE linear `hdr_linear` (OsSinitData.mle_hdr_base), copied out by the
 * caller (sizeof(struct mle_hdr) bytes, all inside the MLE): tboot's UUID, a length that
 * covers the fields of its version, a version from `min_ver` (the ACM's min_mle_hdr_ver) to
 * 2.1, an entry point inside the MLE. 0, or -1 with the reason. */
struct mle_hdr;
int txt_mle_header_check(const struct mle_hdr *h, uint64_t hdr_linear, uint64_t mle_size,
                         uint32_t min_ver, char *err, unsigned errlen);

#endif
