/* SPDX-License-Identifier: MIT */
/*
 * vtboot's MLE header (abi/mle.h) and command line area. The header sits right after the
 * multiboot headers, 16-byte aligned, so that tboot's lcp2_mlehash finds it; its offsets come
 * from the linker script (vtboot.ld). The MLE is the image from its first byte to _mle_end;
 * its entry point is mle/entry.S's mle_entry.
 */
#include <stdint.h>

#include "abi/mle.h"
#include "layout.h"

extern char _mle_entry_off[], _mle_size[], _mle_cmdline_off[];

#define LINK_VALUE(sym) ((uint32_t)(uintptr_t)(sym))

__attribute__((section(".mlehdr"), aligned(MLE_HDR_ALIGN), used))
const struct mle_hdr mle_header = {
    .uuid = MLE_HDR_UUID_BYTES,
    .length = sizeof(struct mle_hdr),
    .version = MLE_HDR_VERSION,
    .entry_point = LINK_VALUE(_mle_entry_off),
    .first_valid_page = 0,
    .mle_start_off = 0,
    .mle_end_off = LINK_VALUE(_mle_size),
    .capabilities = MLE_CAPS_VTBOOT,
    .cmdline_start_off = LINK_VALUE(_mle_cmdline_off),
    .cmdline_end_off = LINK_VALUE(_mle_cmdline_off) + MLE_CMDLINE_SIZE,
};

__attribute__((section(".mle.data"), aligned(16)))
char mle_cmdline[MLE_CMDLINE_SIZE];
