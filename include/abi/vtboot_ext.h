/* SPDX-License-Identifier: MIT */
/*
 * vtboot's extension of the tboot shared page: a block at a fixed offset in the same 4 KiB
 * page, past everything struct tboot (v6) defines. Linux maps the whole page but reads only
 * struct tboot, so a stock kernel is unaffected; vtboot's kernel patches and tools find the
 * launch state and the D-RTM event log here. Identified by its UUID; all fields little-endian.
 */
#ifndef ABI_VTBOOT_EXT_H
#define ABI_VTBOOT_EXT_H

#include <stdint.h>
#include <stddef.h>

#define VTBOOT_EXT_OFFSET 0x800u
#define VTBOOT_EXT_VERSION 1u

/* {8e5a1f3c-7b2d-4c9e-a6f0-5d4b3c2a1908} */
#define VTBOOT_EXT_UUID_BYTES \
    { 0x3c, 0x1f, 0x5a, 0x8e, 0x2d, 0x7b, 0x9e, 0x4c, \
      0xa6, 0xf0, 0x5d, 0x4b, 0x3c, 0x2a, 0x19, 0x08 }

/* flags */
#define VTBOOT_EXT_TPM (1u << 0)         /* a TPM 2.0 was found and used */
#define VTBOOT_EXT_LAUNCHED (1u << 1)    /* the dynamic launch happened: PCR 17 was reset */
#define VTBOOT_EXT_MEASURED (1u << 2)    /* modules and policy are in PCRs 17-19 */
#define VTBOOT_EXT_POLICY_NV (1u << 3)   /* the policy came from TPM NV, not the default */

struct vtboot_ext {
    uint8_t uuid[16];
    uint32_t version;
    uint32_t size;                   /* sizeof(struct vtboot_ext) */
    uint32_t flags;
    uint32_t evtlog_addr;            /* TCG crypto-agile D-RTM event log, 0 if none */
    uint32_t evtlog_size;            /* bytes reserved for it */
    uint32_t evtlog_used;            /* bytes written so far */
    uint32_t memlog_addr;            /* tboot memory log (= struct tboot.log_addr) */
    uint32_t reserved[5];
} __attribute__((packed));

_Static_assert(sizeof(struct vtboot_ext) == 0x40, "vtboot_ext size");
_Static_assert(offsetof(struct vtboot_ext, flags) == 0x18, "flags");
_Static_assert(offsetof(struct vtboot_ext, evtlog_addr) == 0x1c, "evtlog_addr");
_Static_assert(offsetof(struct vtboot_ext, evtlog_size) == 0x20, "evtlog_size");
_Static_assert(offsetof(struct vtboot_ext, evtlog_used) == 0x24, "evtlog_used");
_Static_assert(VTBOOT_EXT_OFFSET >= 0x248, "after struct tboot v6");

#endif
