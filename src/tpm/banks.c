/* SPDX-License-Identifier: MIT */
#include "abi/tpm_hash.h"
#include "lib/format.h"
#include "tpm/banks.h"

int tpm_banks_select(struct tpm_banks *b, uint16_t extpol, char *err, size_t errlen)
{
    if (!extpol)
        return 0;
    unsigned i = 0;
    while (i < b->count && b->alg[i] != extpol)
        i++;
    if (i == b->count) {
        fmt_snprintf(err, errlen, "extpol=%s but the TPM has no active %s bank",
                     tpm_hash_name(extpol), tpm_hash_name(extpol));
        return -1;
    }
    b->alg[0] = extpol;
    b->count = 1;
    return 0;
}

uint16_t tpm_banks_seal_bank(const struct tpm_banks *b)
{
    static const uint16_t pref[] = { TPM_ALG_SHA256, TPM_ALG_SHA384, TPM_ALG_SHA512,
                                     TPM_ALG_SHA1 };
    for (unsigned p = 0; p < sizeof(pref) / sizeof(pref[0]); p++)
        for (unsigned i = 0; i < b->count; i++)
            if (b->alg[i] == pref[p])
                return pref[p];
    return 0;
}
