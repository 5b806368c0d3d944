/* SPDX-License-Identifier: MIT */
/*
 * The event log writer with random banks, capacities and events: it must never write outside
 * its buffer (allocated to exactly the capacity), refuse exactly the events that do not fit
 * or whose digests do not match the banks, and leave a log that an independent parser reads
 * back as the Spec ID event followed by precisely the accepted events.
 *
 * Input: byte 0 the banks (a bit per algorithm; 0 means none; bit 7 five of them), byte 1
 * their order, bytes 2-3 the capacity (little-endian, modulo 16 KiB), then events of 4 bytes each (PCR, type, data
 * length, flags: bit 0 one digest too few, bit 1 two banks swapped, bit 2 the data length
 * is huge), their data taken from the rest of the input in turn.
 */
#include "fuzz_common.h"

#include "abi/tcg_eventlog.h"
#include "tpm/eventlog.h"

#define MAX_EVENTS 64

struct ev {
    uint32_t pcr, type;
    struct tpm_digest_list d;
    const uint8_t *data;
    uint32_t len;
};

static struct ev accepted[MAX_EVENTS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    static const uint16_t algs[4] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
                                      TPM_ALG_SHA512 };
    struct tpm_banks b = { 0, { 0 } };
    unsigned rot = data[1] % 4;
    for (unsigned i = 0; i < 4; i++)
        if (data[0] & (1u << i))
            b.alg[b.count++] = algs[(i + rot) % 4];
    if (data[0] & 0x80)
        b.count = TPM_MAX_BANKS + 1;         /* too many: refused */
    uint32_t cap = get16(data, 2) % 16384u;
    uint8_t *mem = malloc(cap ? cap : 1);
    memset(mem, 0xee, cap);
    struct event_log log;
    uint32_t hdr = 32 + 28 + 4 * b.count + 1 + 7;
    int rc = evlog_init(&log, mem, cap, &b);
    bool ok = b.count >= 1 && b.count <= TPM_MAX_BANKS && hdr <= cap;
    FUZZ_ASSERT((rc == 0) == ok, "init %d for %u banks in %u bytes", rc, b.count, cap);
    if (rc) {
        free(mem);
        return 0;
    }
    FUZZ_ASSERT(log.used == hdr, "header of %u bytes, want %u", log.used, hdr);

    const uint8_t *p = data + 4, *end = data + size;
    const uint8_t *payload = end;            /* event data comes from the end, backwards */
    unsigned n = 0;
    while (end - p >= 4 && payload - p >= 8) {
        uint8_t pcr = p[0], type = p[1], len = p[2], flags = p[3];
        p += 4;
        struct tpm_digest_list d = { b.count, { { 0 } } };
        uint32_t size_needed = 12 + 4;
        for (unsigned i = 0; i < b.count; i++) {
            d.d[i].alg = b.alg[i];
            memset(d.d[i].bytes, pcr ^ (int)i, sizeof(d.d[i].bytes));
            size_needed += 2 + tpm_hash_size(b.alg[i]);
        }
        bool good = true;
        if (flags & 1) {
            d.count--;
            good = false;
        }
        if ((flags & 2) && b.count >= 2 && b.alg[0] != b.alg[1]) {
            struct tpm_digest t = d.d[0];
            d.d[0] = d.d[1];
            d.d[1] = t;
            good = false;
        }
        uint32_t dlen = len;
        if ((uint32_t)(payload - p) < dlen)
            dlen = (uint32_t)(payload - p);
        payload -= dlen;
        if (flags & 4)
            dlen = 0xffffffffu - (uint32_t)len; /* never fits; must not wrap the check */
        uint32_t used = log.used;
        rc = evlog_append(&log, pcr, 0x400u + type, &d, payload, dlen);
        bool fits = (uint64_t)used + size_needed + dlen <= cap;
        FUZZ_ASSERT((rc == 0) == (good && fits), "append %d: good %d fits %d", rc, good, fits);
        if (rc) {
            FUZZ_ASSERT(log.used == used, "a refused event changed used");
            continue;
        }
        FUZZ_ASSERT(log.used == used + size_needed + dlen, "used %u", log.used);
        if (n < MAX_EVENTS)
            accepted[n++] = (struct ev){ pcr, 0x400u + type, d, payload, dlen };
    }
    FUZZ_ASSERT(log.used <= cap, "used %u of %u", log.used, cap);
    for (uint32_t i = log.used; i < cap; i++)
        FUZZ_ASSERT(mem[i] == 0xee, "byte %u past the log written", i);

    /* read it back */
    FUZZ_ASSERT(get32(mem, 0) == 0 && get32(mem, 4) == EV_NO_ACTION, "header record");
    for (unsigned i = 8; i < 28; i++)
        FUZZ_ASSERT(mem[i] == 0, "header digest");
    FUZZ_ASSERT(get32(mem, 28) == hdr - 32, "Spec ID size");
    FUZZ_ASSERT(memcmp(mem + 32, "Spec ID Event03", 16) == 0, "signature");
    FUZZ_ASSERT(get32(mem, 56) == b.count, "numberOfAlgorithms");
    for (unsigned i = 0; i < b.count; i++)
        FUZZ_ASSERT(get16(mem, 60 + 4 * i) == b.alg[i] &&
                    get16(mem, 62 + 4 * i) == tpm_hash_size(b.alg[i]), "algorithm %u", i);
    size_t off = hdr;
    for (unsigned k = 0; k < n; k++) {
        const struct ev *e = &accepted[k];
        FUZZ_ASSERT(off + 12 <= log.used, "event %u past the end", k);
        FUZZ_ASSERT(get32(mem, off) == e->pcr && get32(mem, off + 4) == e->type &&
                    get32(mem, off + 8) == b.count, "event %u head", k);
        off += 12;
        for (unsigned i = 0; i < b.count; i++) {
            unsigned ds = tpm_hash_size(b.alg[i]);
            FUZZ_ASSERT(get16(mem, off) == b.alg[i], "event %u digest %u alg", k, i);
            FUZZ_ASSERT(memcmp(mem + off + 2, e->d.d[i].bytes, ds) == 0, "event %u digest", k);
            off += 2 + ds;
        }
        FUZZ_ASSERT(get32(mem, off) == e->len, "event %u size", k);
        FUZZ_ASSERT(e->len == 0 || memcmp(mem + off + 4, e->data, e->len) == 0, "event %u data", k);
        off += 4 + e->len;
    }
    if (n < MAX_EVENTS)
        FUZZ_ASSERT(off == log.used, "events end at %zu, used %u", off, log.used);
    free(mem);
    return 0;
}
