/* SPDX-License-Identifier: MIT */
#include "crypto/hash.h"
#include "lib/format.h"
#include "lib/string.h"
#include "tboot/s3rules.h"

bool s3_state_is_ours(const struct s3_state *s)
{
    return s->magic == S3_STATE_MAGIC && s->version == S3_STATE_VERSION &&
           s->size == sizeof(*s);
}

int s3_state_check(const struct s3_state *s, char *err, size_t n)
{
    if (!s3_state_is_ours(s)) {
        strlcpy(err, "no S3 state of vtboot's to resume", n);
        return -1;
    }
    if (s->regions.n > TBOOT_MAX_MAC_REGIONS || s->vl.n > VL_MAX || s->acpi.n > ACPI_DIGESTS_MAX ||
        s->rsdp_len > BOOT_RSDP_MAX) {
        strlcpy(err, "the resume state is malformed", n);
        return -1;
    }
    return 0;
}

void s3_state_digest(const struct s3_state *s, uint8_t out[32])
{
    hash_buffer(TPM_ALG_SHA256, s, offsetof(struct s3_state, sealed), out);
}

void s3_counts_for_resume(const struct tpm2_clock *now, uint32_t *reset, uint32_t *restart)
{
    *reset = now->reset_count;
    *restart = now->restart_count + RESUME_RESTARTS;
}

int s3_counts_check(const struct s3_state *s, const struct tpm2_clock *now, char *err, size_t n)
{
    if (now->reset_count == s->reset_count && now->restart_count == s->restart_count)
        return 0;
    fmt_snprintf(err, n, "the S3 state is not for this resume: the TPM is at reset %u, restart "
                 "%u, the state was sealed for reset %u, restart %u (an older suspend's state?)",
                 now->reset_count, now->restart_count, s->reset_count, s->restart_count);
    return -1;
}

const char *s3_creation_verdict(const struct tpm2_creation_info *info, uint16_t seal_bank,
                                const uint8_t pcr_digest[32], const uint8_t *parent_name,
                                uint16_t parent_name_size, unsigned launch_locality,
                                const uint8_t state_digest[32])
{
    if (info->pcr_banks != 1 || info->pcr_bank != seal_bank ||
        info->pcr_mask != ((1u << 17) | (1u << 18)) || info->pcr_digest_size != 32 ||
        memcmp(info->pcr_digest, pcr_digest, 32))
        return "the sealed key was created outside this launch (PCR 17/18 at its creation are "
               "not the launch's)";
    if (info->parent_name_size != parent_name_size ||
        memcmp(info->parent_name, parent_name, parent_name_size))
        return "the sealed key was created under another parent key";
    if (info->locality != (1u << launch_locality))
        return "the sealed key was created at another locality than the launch's";
    if (info->outside_size != 32 || memcmp(info->outside, state_digest, 32))
        return "the S3 state is not the one sealed with the key (changed while suspended)";
    return NULL;
}
