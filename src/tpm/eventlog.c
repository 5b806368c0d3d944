/* SPDX-License-Identifier: MIT */
#include "abi/tcg_eventlog.h"
#include "lib/bytes.h"
#include "lib/string.h"
#include "tpm/eventlog.h"

int evlog_init(struct event_log *log, void *mem, uint32_t cap, const struct tpm_banks *banks)
{
    static const char vendor[] = "vtboot";
    uint32_t spec_size = (uint32_t)(sizeof(struct tcg_spec_id_header) +
                                    banks->count * sizeof(struct tcg_spec_id_alg) + 1 +
                                    sizeof(vendor));
    uint32_t total = (uint32_t)sizeof(struct tcg_pcr_event) + spec_size;

    if (banks->count == 0 || banks->count > TPM_MAX_BANKS || total > cap)
        return -1;
    log->buf = mem;
    log->cap = cap;
    log->banks = *banks;
    memset(log->buf, 0, total);

    uint8_t *p = log->buf;
    store_le32(p, 0);                          /* pcr_index */
    store_le32(p + 4, EV_NO_ACTION);
    store_le32(p + 28, spec_size);             /* digest[20] stays zero */
    p += sizeof(struct tcg_pcr_event);
    memcpy(p, TCG_SPEC_ID_SIGNATURE, sizeof(TCG_SPEC_ID_SIGNATURE));
    store_le32(p + 16, TCG_SPEC_ID_PLATFORM_CLIENT);
    p[20] = TCG_SPEC_ID_VERSION_MINOR;
    p[21] = TCG_SPEC_ID_VERSION_MAJOR;
    p[22] = TCG_SPEC_ID_ERRATA;
    p[23] = TCG_SPEC_ID_UINTN_SIZE_64;
    store_le32(p + 24, banks->count);
    p += sizeof(struct tcg_spec_id_header);
    for (unsigned i = 0; i < banks->count; i++, p += sizeof(struct tcg_spec_id_alg)) {
        store_le16(p, banks->alg[i]);
        store_le16(p + 2, (uint16_t)tpm_hash_size(banks->alg[i]));
    }
    *p++ = sizeof(vendor);
    memcpy(p, vendor, sizeof(vendor));
    log->used = total;
    return 0;
}

int evlog_append(struct event_log *log, uint32_t pcr, uint32_t type,
                 const struct tpm_digest_list *digests, const void *data, uint32_t data_len)
{
    uint32_t size = (uint32_t)sizeof(struct tcg_pcr_event2_head) + 4;

    if (digests->count != log->banks.count)
        return -1;
    for (unsigned i = 0; i < digests->count; i++) {
        if (digests->d[i].alg != log->banks.alg[i])
            return -1;
        size += 2 + tpm_hash_size(digests->d[i].alg);
    }
    if (data_len > log->cap || size + data_len > log->cap - log->used)
        return -1;

    uint8_t *p = log->buf + log->used;
    store_le32(p, pcr);
    store_le32(p + 4, type);
    store_le32(p + 8, digests->count);
    p += sizeof(struct tcg_pcr_event2_head);
    for (unsigned i = 0; i < digests->count; i++) {
        unsigned n = tpm_hash_size(digests->d[i].alg);
        store_le16(p, digests->d[i].alg);
        memcpy(p + 2, digests->d[i].bytes, n);
        p += 2 + n;
    }
    store_le32(p, data_len);
    if (data_len)
        memcpy(p + 4, data, data_len);
    log->used += size + data_len;
    return 0;
}
