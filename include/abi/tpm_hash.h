/* SPDX-License-Identifier: MIT */
/* The hash algorithms of TPM PCR banks that vtboot measures into: TCG Algorithm Registry ID, digest
 * size, and the name tpm2-tools, the event log tools and OpenSSL use. The one table of these facts,
 * for vtboot and the host tools alike; it needs no other header, so it sits beside tpm2-tss's. */
#ifndef ABI_TPM_HASH_H
#define ABI_TPM_HASH_H

#include <stddef.h>
#include <stdint.h>

/* TPM_ALG_ID values (TPM 2.0 Part 2 §6.3). Not spelled TPM2_ALG_*: tpm2-tss's headers define those. */
#define TPM_ALG_SHA1 0x0004u
#define TPM_ALG_SHA256 0x000bu
#define TPM_ALG_SHA384 0x000cu
#define TPM_ALG_SHA512 0x000du

struct tpm_hash_alg {
    uint16_t id;
    uint16_t size;
    char name[8];                    /* an array, not a pointer: no relocation in vtboot */
};

static const struct tpm_hash_alg tpm_hash_algs[] = {
    { TPM_ALG_SHA1, 20, "sha1" },
    { TPM_ALG_SHA256, 32, "sha256" },
    { TPM_ALG_SHA384, 48, "sha384" },
    { TPM_ALG_SHA512, 64, "sha512" },
};

#define TPM_HASH_ALG_COUNT (sizeof(tpm_hash_algs) / sizeof(tpm_hash_algs[0]))

static inline const struct tpm_hash_alg *tpm_hash_find(uint16_t id)
{
    for (size_t i = 0; i < TPM_HASH_ALG_COUNT; i++)
        if (tpm_hash_algs[i].id == id)
            return &tpm_hash_algs[i];
    return NULL;
}

/* Digest size in bytes; 0 for an algorithm not in the table. */
static inline unsigned tpm_hash_size(uint16_t id)
{
    const struct tpm_hash_alg *a = tpm_hash_find(id);
    return a ? a->size : 0;
}

/* Lower-case name; NULL for an algorithm not in the table. */
static inline const char *tpm_hash_name(uint16_t id)
{
    const struct tpm_hash_alg *a = tpm_hash_find(id);
    return a ? a->name : NULL;
}

/* The algorithm named by the len bytes at name (not necessarily terminated); NULL if none. */
static inline const struct tpm_hash_alg *tpm_hash_by_name(const char *name, size_t len)
{
    for (size_t i = 0; i < TPM_HASH_ALG_COUNT; i++) {
        const char *n = tpm_hash_algs[i].name;
        size_t k = 0;
        while (k < len && n[k] && n[k] == name[k])
            k++;
        if (k == len && !n[k])
            return &tpm_hash_algs[i];
    }
    return NULL;
}

#endif
