/* SPDX-License-Identifier: MIT */
#include "vtbext.h"
#include "lib/bytes.h"
#include "util.h"

#include "abi/vtboot_ext.h"

#include <string.h>

int vtbext_tboot_addr(const uint8_t *bp, size_t len, uint64_t *addr, char *err, size_t errsz)
{
    if (len < VTBEXT_BP_TBOOT_ADDR + 8)
        return errorf(err, errsz, "boot_params of %zu bytes has no tboot_addr", len);
    *addr = (uint64_t)load_le32(bp + VTBEXT_BP_TBOOT_ADDR) |
            (uint64_t)load_le32(bp + VTBEXT_BP_TBOOT_ADDR + 4) << 32;
    if (*addr == 0)
        return errorf(err, errsz, "boot_params.tboot_addr is 0: the kernel was not started by "
                      "tboot or vtboot");
    if (*addr >= 1ull << 32 || (*addr & 0xfff))
        return errorf(err, errsz, "boot_params.tboot_addr 0x%llx is not a page below 4 GiB",
                      (unsigned long long)*addr);
    return 0;
}

int vtbext_parse(const uint8_t *blk, size_t len, struct vtbext *out, char *err, size_t errsz)
{
    static const uint8_t uuid[16] = VTBOOT_EXT_UUID_BYTES;
    uint32_t size;

    memset(out, 0, sizeof(*out));
    if (len < sizeof(struct vtboot_ext))
        return errorf(err, errsz, "vtboot's block: %zu bytes, not %zu", len,
                      sizeof(struct vtboot_ext));
    if (memcmp(blk, uuid, 16))
        return errorf(err, errsz, "no vtboot block at offset 0x%x of the shared page (its UUID "
                      "is missing)", VTBOOT_EXT_OFFSET);
    out->version = load_le32(blk + offsetof(struct vtboot_ext, version));
    size = load_le32(blk + offsetof(struct vtboot_ext, size));
    out->flags = load_le32(blk + offsetof(struct vtboot_ext, flags));
    out->evtlog_addr = load_le32(blk + offsetof(struct vtboot_ext, evtlog_addr));
    out->evtlog_size = load_le32(blk + offsetof(struct vtboot_ext, evtlog_size));
    out->evtlog_used = load_le32(blk + offsetof(struct vtboot_ext, evtlog_used));
    if (out->version < VTBOOT_EXT_VERSION || size != sizeof(struct vtboot_ext))
        return errorf(err, errsz, "vtboot's block has version %u and size %u (version %u, size "
                      "%zu)", out->version, size, VTBOOT_EXT_VERSION, sizeof(struct vtboot_ext));
    if (!out->evtlog_addr || !out->evtlog_used)
        return errorf(err, errsz, "vtboot's block lists no event log (flags 0x%x: %s)",
                      out->flags, out->flags & VTBOOT_EXT_LAUNCHED ? "launched"
                                                                   : "no dynamic launch");
    if (out->evtlog_used > out->evtlog_size || out->evtlog_size > VTBEXT_LOG_MAX ||
        (uint64_t)out->evtlog_addr + out->evtlog_size > 1ull << 32)
        return errorf(err, errsz, "vtboot's block lists an event log of %u of %u bytes at "
                      "0x%08x: not a log", out->evtlog_used, out->evtlog_size, out->evtlog_addr);
    return 0;
}
