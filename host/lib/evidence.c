/* SPDX-License-Identifier: MIT */
#include "evidence.h"
#include "lib/bytes.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[EVID_NR_TYPES] = {
    [EVID_AK_PUBLIC] = "AK public area",
    [EVID_QUOTE] = "quote",
    [EVID_SIGNATURE] = "signature",
    [EVID_PCR_SELECTION] = "PCR selection",
    [EVID_PCR_VALUES] = "PCR values",
    [EVID_EVENT_LOG] = "event log",
    [EVID_EVENT_LOG_SOURCE] = "event log source",
    [EVID_TPM_BANKS] = "TPM banks",
    [EVID_NONCE] = "nonce",
    [EVID_KERNEL_CMDLINE] = "kernel command line",
};

const char *evidence_type_name(unsigned type)
{
    return type > 0 && type < EVID_NR_TYPES ? names[type] : "unknown";
}

int evidence_parse(const uint8_t *buf, size_t len, struct evidence *ev, char *err, size_t errsz)
{
    size_t off = EVIDENCE_HDR_SIZE;

    memset(ev, 0, sizeof(*ev));
    if (len < EVIDENCE_HDR_SIZE)
        return errorf(err, errsz, "%zu bytes, shorter than the %d-byte header", len,
                      EVIDENCE_HDR_SIZE);
    if (memcmp(buf, EVIDENCE_MAGIC, 8))
        return errorf(err, errsz, "not a vtboot-attest evidence file (no \"%s\" magic)",
                      EVIDENCE_MAGIC);
    if (len > EVIDENCE_MAX_SIZE)
        return errorf(err, errsz, "%zu bytes, more than %u", len, EVIDENCE_MAX_SIZE);
    if (load_le32(buf + 8) != len)
        return errorf(err, errsz, "the header says %u bytes, the file has %zu (truncated or "
                      "extended)", load_le32(buf + 8), len);
    while (off < len) {
        unsigned type, reserved;
        uint32_t rlen;

        if (len - off < 8)
            return errorf(err, errsz, "record header at byte %zu is truncated", off);
        type = load_le16(buf + off);
        reserved = load_le16(buf + off + 2);
        rlen = load_le32(buf + off + 4);
        if (type == 0 || type >= EVID_NR_TYPES)
            return errorf(err, errsz, "record at byte %zu has the unknown type %u", off, type);
        if (reserved)
            return errorf(err, errsz, "record at byte %zu (%s) has a reserved field of 0x%04x",
                          off, names[type], reserved);
        if (ev->rec[type].data)
            return errorf(err, errsz, "record at byte %zu: a second %s", off, names[type]);
        off += 8;
        if (rlen > len - off)
            return errorf(err, errsz, "record at byte %zu (%s) of %u bytes runs past the end",
                          off - 8, names[type], rlen);
        ev->rec[type].data = buf + off;
        ev->rec[type].len = rlen;
        off += rlen;
    }
    return 0;
}

uint8_t *evidence_build(const struct evidence *ev, size_t *len)
{
    size_t total = EVIDENCE_HDR_SIZE, off;
    uint8_t *buf;

    for (unsigned t = 1; t < EVID_NR_TYPES; t++)
        if (ev->rec[t].data)
            total += 8 + ev->rec[t].len;
    if (total > EVIDENCE_MAX_SIZE)
        return NULL;
    buf = xmalloc(total);
    memcpy(buf, EVIDENCE_MAGIC, 8);
    store_le32(buf + 8, (uint32_t)total);
    off = EVIDENCE_HDR_SIZE;
    for (unsigned t = 1; t < EVID_NR_TYPES; t++) {
        if (!ev->rec[t].data)
            continue;
        store_le16(buf + off, (uint16_t)t);
        store_le16(buf + off + 2, 0);
        store_le32(buf + off + 4, (uint32_t)ev->rec[t].len);
        memcpy(buf + off + 8, ev->rec[t].data, ev->rec[t].len);
        off += 8 + ev->rec[t].len;
    }
    *len = total;
    return buf;
}
