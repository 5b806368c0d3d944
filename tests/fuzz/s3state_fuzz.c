/* SPDX-License-Identifier: MIT */
/*
 * S3's rules (src/tboot/s3rules.c) over the state vtboot leaves in RAM while the VM sleeps,
 * which anything running then can rewrite: s3_state_check, s3_counts_check, and the sealed
 * key's creation data as the resume reads it from the state (tpm2_creation_parse on
 * creation.data, at most its size, then s3_creation_verdict). Each is checked against an
 * independent statement of its rules and exact messages; the state digest must ignore
 * everything from `sealed` on and see a byte before it.
 *
 * Input (integers little-endian):
 *   u8 flags: bit 0 the header (magic, version, size) right, else the input's;
 *             bit 1 the state's counts those the suspend computes and the TPM now at the
 *             resume that follows (must pass), else both from the input;
 *             bits 2-5 the expected PCR digest and seal bank / parent name / locality /
 *             state digest taken from the parsed creation data (that rule passes), else
 *             from the input (and the state digest is the state's own)
 *   u32 magic, version, size, regions.n, vl.n, acpi.n, rsdp_len,
 *   u32 state reset, state restart, TPM reset, TPM restart,
 *   u16 seal bank, u8 launch locality (mod 5), 32 bytes PCR digest,
 *   u8 parent name size (at most TPM2_NAME_MAX) and its bytes,
 *   u16 creation.data_size, then creation.data (the rest, at most its size).
 */
#include "fuzz_common.h"

#include "tboot/s3rules.h"

struct reader {
    const uint8_t *p;
    size_t left;
};

static uint8_t rd8(struct reader *r)
{
    if (!r->left)
        return 0;
    r->left--;
    return *r->p++;
}

static uint16_t rd16(struct reader *r)
{
    uint16_t lo = rd8(r);
    return (uint16_t)(lo | rd8(r) << 8);
}

static uint32_t rd32(struct reader *r)
{
    uint32_t lo = rd16(r);
    return lo | (uint32_t)rd16(r) << 16;
}

static void rdn(struct reader *r, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = rd8(r);
}

#define NOT_OURS "no S3 state of vtboot's to resume"
#define MALFORMED "the resume state is malformed"
#define R_PCR "the sealed key was created outside this launch (PCR 17/18 at its creation are " \
              "not the launch's)"
#define R_PARENT "the sealed key was created under another parent key"
#define R_LOCALITY "the sealed key was created at another locality than the launch's"
#define R_OUTSIDE "the S3 state is not the one sealed with the key (changed while suspended)"

static const char *ref_verdict(const struct tpm2_creation_info *i, uint16_t bank,
                               const uint8_t *pcr, const uint8_t *name, uint16_t name_size,
                               unsigned loc, const uint8_t *digest)
{
    bool pcr_ok = i->pcr_banks == 1 && i->pcr_bank == bank && i->pcr_mask == 0x60000u &&
                  i->pcr_digest_size == 32 && !memcmp(i->pcr_digest, pcr, 32);
    if (!pcr_ok)
        return R_PCR;
    if (i->parent_name_size != name_size || memcmp(i->parent_name, name, name_size))
        return R_PARENT;
    if (i->locality != (1u << loc))
        return R_LOCALITY;
    if (i->outside_size != 32 || memcmp(i->outside, digest, 32))
        return R_OUTSIDE;
    return NULL;
}

static struct s3_state st;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct reader r = { data, size };
    char err[256], want[256];

    memset(&st, 0, sizeof(st));
    uint8_t flags = rd8(&r);
    st.magic = rd32(&r);
    st.version = rd32(&r);
    st.size = rd32(&r);
    if (flags & 1) {
        st.magic = S3_STATE_MAGIC;
        st.version = S3_STATE_VERSION;
        st.size = sizeof(st);
    }
    st.regions.n = rd32(&r);
    st.vl.n = rd32(&r);
    st.acpi.n = rd32(&r);
    st.rsdp_len = rd32(&r);
    st.reset_count = rd32(&r);
    st.restart_count = rd32(&r);
    struct tpm2_clock now = { 0 };
    now.reset_count = rd32(&r);
    now.restart_count = rd32(&r);
    uint16_t seal_bank = rd16(&r);
    unsigned locality = rd8(&r) % 5;
    uint8_t pcr_digest[32], name[TPM2_NAME_MAX], state_digest[32];
    rdn(&r, pcr_digest, sizeof(pcr_digest));
    uint16_t name_size = rd8(&r);
    if (name_size > TPM2_NAME_MAX)
        name_size = TPM2_NAME_MAX;
    rdn(&r, name, name_size);
    st.creation.data_size = rd16(&r);
    size_t body = r.left < sizeof(st.creation.data) ? r.left : sizeof(st.creation.data);
    memcpy(st.creation.data, r.p, body);
    st.seal_bank = seal_bank;

    /* the header and the bounds */
    bool ours = st.magic == 0x53335456u && st.version == S3_STATE_VERSION && st.size == sizeof(st);
    FUZZ_ASSERT(s3_state_is_ours(&st) == ours, "is_ours %d", !ours);
    bool sane = st.regions.n <= 32 && st.vl.n <= 32 && st.acpi.n <= 32 && st.rsdp_len <= 36;
    memset(err, 0x5a, sizeof(err));
    int rc = s3_state_check(&st, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    FUZZ_ASSERT((rc == 0) == (ours && sane), "check %d, ours %d sane %d", rc, ours, sane);
    if (rc)
        FUZZ_ASSERT(!strcmp(err, ours ? MALFORMED : NOT_OURS), "check said '%s'", err);

    /* the TPM's counts */
    if (flags & 2) {
        struct tpm2_clock at_suspend = now;
        s3_counts_for_resume(&at_suspend, &st.reset_count, &st.restart_count);
        FUZZ_ASSERT(st.reset_count == at_suspend.reset_count &&
                    st.restart_count == at_suspend.restart_count + 2u, "counts for resume");
        now.restart_count = at_suspend.restart_count + RESUME_RESTARTS;
    }
    memset(err, 0x5a, sizeof(err));
    rc = s3_counts_check(&st, &now, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    bool same = now.reset_count == st.reset_count && now.restart_count == st.restart_count;
    FUZZ_ASSERT((rc == 0) == same, "counts check %d", rc);
    if (flags & 2)
        FUZZ_ASSERT(rc == 0, "the resume after the suspend refused: %s", err);
    if (rc) {
        snprintf(want, sizeof(want), "the S3 state is not for this resume: the TPM is at reset "
                 "%u, restart %u, the state was sealed for reset %u, restart %u (an older "
                 "suspend's state?)", now.reset_count, now.restart_count, st.reset_count,
                 st.restart_count);
        FUZZ_ASSERT(!strcmp(err, want), "counts said '%s'", err);
    }

    /* the digest: every byte before `sealed`, none after */
    uint8_t d0[32], d1[32];
    s3_state_digest(&st, d0);
    memcpy(state_digest, d0, 32);
    struct tpm2_creation saved = st.creation;
    memset(&st.sealed, 0xa5, sizeof(st) - offsetof(struct s3_state, sealed));
    s3_state_digest(&st, d1);
    FUZZ_ASSERT(!memcmp(d0, d1, 32), "the digest covers bytes after `sealed`");
    st.creation = saved;
    size_t at = (size_t)now.reset_count % offsetof(struct s3_state, sealed);
    ((uint8_t *)&st)[at] ^= 0x01;
    s3_state_digest(&st, d1);
    FUZZ_ASSERT(memcmp(d0, d1, 32), "the digest misses byte %zu", at);
    ((uint8_t *)&st)[at] ^= 0x01;

    /* the creation data as the resume reads it: at most its buffer, exactly that in memory */
    size_t len = st.creation.data_size < sizeof(st.creation.data) ? st.creation.data_size
                                                                  : sizeof(st.creation.data);
    uint8_t *cd = malloc(len ? len : 1);
    memcpy(cd, st.creation.data, len);
    struct tpm2_creation_info info;
    memset(err, 0x5a, sizeof(err));
    rc = tpm2_creation_parse(cd, len, &info, err, sizeof(err));
    free(cd);
    check_err(err, sizeof(err), rc);
    if (rc)
        return 0;
    FUZZ_ASSERT(info.pcr_banks <= 1 && info.pcr_mask <= 0xffffffu &&
                info.pcr_digest_size <= sizeof(info.pcr_digest) &&
                info.parent_name_size <= sizeof(info.parent_name) &&
                info.outside_size <= sizeof(info.outside), "parsed fields out of bounds");
    if (flags & 4) {
        seal_bank = info.pcr_bank;
        memcpy(pcr_digest, info.pcr_digest, 32);
    }
    if (flags & 8) {
        name_size = info.parent_name_size;
        memcpy(name, info.parent_name, name_size);
    }
    if ((flags & 16) && info.locality && !(info.locality & (info.locality - 1)) &&
        info.locality < 32)
        locality = (unsigned)__builtin_ctz(info.locality);
    if (flags & 32)
        memcpy(state_digest, info.outside, 32);
    const char *v = s3_creation_verdict(&info, seal_bank, pcr_digest, name, name_size, locality,
                                        state_digest);
    const char *w = ref_verdict(&info, seal_bank, pcr_digest, name, name_size, locality,
                                state_digest);
    FUZZ_ASSERT((v == NULL) == (w == NULL) && (!v || !strcmp(v, w)), "verdict '%s', want '%s'",
                v ? v : "accepted", w ? w : "accepted");
    if (!v)
        FUZZ_ASSERT(info.outside_size == 32 && info.locality == 1u << locality &&
                    info.pcr_mask == ((1u << 17) | (1u << 18)), "accepted a foreign key");
    return 0;
}
