/* SPDX-License-Identifier: MIT */
/*
 * Intel TXT's MLE header (MLE Developer's Guide, "MLE Header Format"; tboot's mle_hdr_t in
 * include/mle.h, version 2.1). The measured launch environment carries it; whoever launches
 * the MLE (SINIT on hardware, the host's virtual SENTER here) finds what to measure and where
 * to enter in it, and so do the tools that predict the measurement (tboot's lcp2_mlehash,
 * vtboot-pcr).
 *
 * Offsets, as tboot defines them: mle_start_off, mle_end_off, cmdline_start_off and
 * cmdline_end_off count from the start of the MLE's binary image (the first byte of its first
 * loaded segment); entry_point counts from the MLE's first byte (mle_start_off). Ends are
 * exclusive. vtboot's MLE starts at its image's first byte, so mle_start_off is 0 and the two
 * origins coincide. lcp2_mlehash lays the ELF's loadable segments out back to back, finds the
 * header by its UUID at a 16-byte boundary, zero-fills [cmdline_start_off, cmdline_end_off),
 * copies the command line into it (at most the area's size - 1 bytes) and hashes
 * [mle_start_off, mle_end_off): vtboot's image is laid out so that this is exactly what the
 * virtual SENTER measures.
 */
#ifndef ABI_MLE_H
#define ABI_MLE_H

#include <stddef.h>
#include <stdint.h>

/* {9082ac5a-476f-74a7-5c0f-55a2cb51b642}, as tboot stores it (a little-endian GUID). */
#define MLE_HDR_UUID_BYTES \
    { 0x5a, 0xac, 0x82, 0x90, 0x6f, 0x47, 0xa7, 0x74, \
      0x0f, 0x5c, 0x55, 0xa2, 0xcb, 0x51, 0xb6, 0x42 }

#define MLE_HDR_VERSION 0x00020001u      /* 2.1: the command line fields exist */
#define MLE_HDR_ALIGN 16u                /* lcp2_mlehash searches in 16-byte steps */

/* capabilities (TXT "MLE/SINIT capabilities"); bits 11-31 are reserved */
#define MLE_CAP_RLP_WAKE_GETSEC (1u << 0)
#define MLE_CAP_RLP_WAKE_MONITOR (1u << 1)
#define MLE_CAP_ECX_PGTBL (1u << 2)
#define MLE_CAP_STM (1u << 3)
#define MLE_CAP_PCR_MAP_NO_LEGACY (1u << 4)
#define MLE_CAP_PCR_MAP_DA (1u << 5)
#define MLE_CAP_PLATFORM_TYPE (3u << 6)
#define MLE_CAP_MAX_PHY_ADDR (1u << 8)
#define MLE_CAP_TCG_EVENT_LOG_FORMAT (1u << 9)
#define MLE_CAP_CBNT (1u << 10)
#define MLE_CAP_DEFINED 0x7ffu

/* vtboot's: the RLPs are woken by INIT-SIPI (neither GETSEC[WAKEUP] nor MONITOR), the
 * details/authorities PCR mapping, and a TCG crypto-agile event log. */
#define MLE_CAPS_VTBOOT (MLE_CAP_PCR_MAP_DA | MLE_CAP_TCG_EVENT_LOG_FORMAT)

struct mle_hdr {
    uint8_t uuid[16];
    uint32_t length;                 /* sizeof(struct mle_hdr) */
    uint32_t version;
    uint32_t entry_point;            /* from the MLE's first byte */
    uint32_t first_valid_page;       /* 0: the MLE's first page */
    uint32_t mle_start_off;          /* from the image's first byte */
    uint32_t mle_end_off;            /* exclusive */
    uint32_t capabilities;
    uint32_t cmdline_start_off;
    uint32_t cmdline_end_off;        /* exclusive; equal to the start: no command line */
} __attribute__((packed));

_Static_assert(sizeof(struct mle_hdr) == 0x34, "mle_hdr size (tboot 2.1)");
_Static_assert(offsetof(struct mle_hdr, length) == 0x10, "length");
_Static_assert(offsetof(struct mle_hdr, version) == 0x14, "version");
_Static_assert(offsetof(struct mle_hdr, entry_point) == 0x18, "entry_point");
_Static_assert(offsetof(struct mle_hdr, first_valid_page) == 0x1c, "first_valid_page");
_Static_assert(offsetof(struct mle_hdr, mle_start_off) == 0x20, "mle_start_off");
_Static_assert(offsetof(struct mle_hdr, mle_end_off) == 0x24, "mle_end_off");
_Static_assert(offsetof(struct mle_hdr, capabilities) == 0x28, "capabilities");
_Static_assert(offsetof(struct mle_hdr, cmdline_start_off) == 0x2c, "cmdline_start_off");
_Static_assert(offsetof(struct mle_hdr, cmdline_end_off) == 0x30, "cmdline_end_off");

#endif
