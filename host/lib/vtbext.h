/* SPDX-License-Identifier: MIT */
/*
 * Where the guest finds vtboot's D-RTM event log without the kernel's help (a stock kernel
 * has no /sys/kernel/security/tboot/event_log): boot_params.tboot_addr (bytes 0x58-0x5f of
 * /sys/kernel/boot_params/data) is the shared page; vtboot's block is at +0x800 of it
 * (include/abi/vtboot_ext.h) and names the log's address and used size. Both are outside input
 * (guest memory): parsed here, pure, and the caller reads the log through /dev/mem.
 */
#ifndef HOST_VTBEXT_H
#define HOST_VTBEXT_H

#include <stddef.h>
#include <stdint.h>

#define VTBEXT_BP_TBOOT_ADDR 0x58
#define VTBEXT_LOG_MAX (1u << 20)

struct vtbext {
    uint32_t version, flags;
    uint32_t evtlog_addr, evtlog_size, evtlog_used;
};

/* boot_params.tboot_addr from the first len bytes of boot_params; 0, or -1 (with the reason)
 * if it is missing or 0 (no tboot). */
int vtbext_tboot_addr(const uint8_t *bp, size_t len, uint64_t *addr, char *err, size_t errsz);
/* vtboot's 64-byte block: its UUID, a size of 64, an event log inside 4 GiB with used <= size
 * <= VTBEXT_LOG_MAX. 0, or -1 with the reason (e.g. "vtboot's block lists no event log"). */
int vtbext_parse(const uint8_t *blk, size_t len, struct vtbext *out, char *err, size_t errsz);

#endif
