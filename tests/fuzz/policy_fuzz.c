/* SPDX-License-Identifier: MIT */
/*
 * tb_policy_parse on arbitrary NV contents, against an independent statement of tboot 1.10's
 * verify_policy rules (plus vtboot's 2124-byte limit): both must agree on every input. An
 * accepted policy is re-checked: its size within the input and the limit, its bytes the
 * input's (hash_alg 0 read as SHA-1), its entries laid end to end with every hash inside
 * bytes[0..size), lookups returning an element of entries (the first matching one). Small
 * accepted policies are also measured, with modules cut from the input, and the extends and
 * verdicts checked against the policy's entries.
 *
 * Input: the policy bytes as NV would hold them.
 */
#include "fuzz_common.h"

#include "tboot/measure.h"
#include "tboot/policy.h"

static unsigned dsize_of(uint8_t alg)
{
    switch (alg) {
    case 0x00: case 0x04: return 20;
    case 0x0b: return 32;
    case 0x0c: return 48;
    case 0x0d: return 64;
    default: return 0;
    }
}

/* The reference: the policy's size if valid, else 0. */
static size_t ref_validate(const uint8_t *b, size_t len)
{
    if (len < 12 || b[0] != 2 || b[1] >= 3 || !dsize_of(b[2]))
        return 0;
    size_t off = 12, d = dsize_of(b[2]);
    for (unsigned i = 0; i < b[11]; i++) {
        if (off + 8 > len)
            return 0;
        uint8_t mod = b[off], pcr = b[off + 1], ht = b[off + 2], nh = b[off + 7];
        if (mod > 127 && mod != 129 && mod != 130 && mod != 131)
            return 0;
        if (pcr > 23 && pcr != 255)
            return 0;
        if (ht > 1)
            return 0;
        if (off + 8 + nh * d > len)
            return 0;
        off += 8 + nh * d;
        if (off > 2124)
            return 0;
    }
    return off;
}

static struct tb_policy pol;
static struct launch_measurements lm;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    uint8_t *buf = malloc(size ? size : 1);  /* exactly the input: ASan sees any overread */
    memcpy(buf, data, size);
    char err[128];
    memset(err, 0x5a, sizeof(err));
    int rc = tb_policy_parse(buf, (uint32_t)size, &pol, err, sizeof(err));
    size_t want = ref_validate(data, size);
    check_err(err, sizeof(err), rc);
    if (rc) {
        FUZZ_ASSERT(want == 0, "refused ('%s'), but valid with %zu bytes", err, want);
        free(buf);
        return 0;
    }
    FUZZ_ASSERT(want != 0, "accepted an invalid policy");
    FUZZ_ASSERT(pol.size == want, "size %u, want %zu", pol.size, want);
    FUZZ_ASSERT(pol.size <= size && pol.size <= TB_POLICY_MAX_SIZE, "size %u of %zu", pol.size,
                size);
    unsigned d = dsize_of(data[2]);
    FUZZ_ASSERT(pol.hash_alg == (data[2] ? data[2] : TPM_ALG_SHA1), "alg 0x%x", pol.hash_alg);
    FUZZ_ASSERT(tpm_hash_size(pol.hash_alg) == d, "digest size");
    FUZZ_ASSERT(pol.bytes[2] == (uint8_t)pol.hash_alg, "measured alg byte");
    FUZZ_ASSERT(memcmp(pol.bytes, data, 2) == 0 && memcmp(pol.bytes + 3, data + 3, pol.size - 3) == 0,
                "bytes differ from the input");
    FUZZ_ASSERT(pol.type == data[1] && pol.control == get32(data, 3), "header fields");
    FUZZ_ASSERT(pol.nr_entries == data[11], "%u entries of %u", pol.nr_entries, data[11]);
    size_t off = 12;
    for (unsigned i = 0; i < pol.nr_entries; i++) {
        const struct tb_policy_entry *e = &pol.entries[i];
        FUZZ_ASSERT(e->mod_num == data[off] && e->pcr == data[off + 1] &&
                    e->hash_type == data[off + 2] && e->nv_index == get32(data, off + 3) &&
                    e->num_hashes == data[off + 7], "entry %u fields", i);
        FUZZ_ASSERT(e->hashes == pol.bytes + off + 8, "entry %u hashes at the wrong place", i);
        off += 8 + (size_t)e->num_hashes * d;
        FUZZ_ASSERT(e->hashes + (size_t)e->num_hashes * d <= pol.bytes + pol.size,
                    "entry %u hashes past the policy", i);
    }
    FUZZ_ASSERT(off == pol.size, "entries end at %zu, size %u", off, pol.size);

    for (unsigned m = 0; m < 256; m++) {
        const struct tb_policy_entry *e = tb_policy_find(&pol, m);
        const struct tb_policy_entry *first = NULL;
        for (unsigned i = 0; i < pol.nr_entries && !first; i++)
            if (pol.entries[i].mod_num == m || pol.entries[i].mod_num == TB_POL_MOD_NUM_ANY)
                first = &pol.entries[i];
        FUZZ_ASSERT(e == first, "find(%u) is not the first match", m);
        if (e) {
            FUZZ_ASSERT(e >= pol.entries && e < pol.entries + pol.nr_entries,
                        "find(%u) outside entries", m);
            /* every hash of an image entry is accepted, and the first byte flipped is not
             * (unless another hash happens to be that) */
            for (unsigned h = 0; h < e->num_hashes; h++)
                FUZZ_ASSERT(tb_policy_entry_accepts(&pol, e, e->hashes + h * d), "own hash");
        }
    }

    /* measured: three modules cut from the input, two banks */
    if (size <= 1024) {
        struct module_ref mods[3] = {
            { "bzImage console=ttyS0", data, (uint32_t)(size / 3) },
            { "", data + size / 3, (uint32_t)(size / 3) },
            { "initrd", data, (uint32_t)size },
        };
        const struct tpm_banks banks = { 2, { TPM_ALG_SHA1, TPM_ALG_SHA256 } };
        enum pcr_map map = data[size - 1] & 1 ? PCR_MAP_LEGACY : PCR_MAP_DA;
        unsigned nm = data[size - 1] % 4;
        FUZZ_ASSERT(measure_launch(&pol, &banks, map, mods, nm, &lm, NULL) == 0, "measure_launch");
        unsigned want_n = (map == PCR_MAP_DA ? 2 : 1) + (nm ? 1 : 0);
        for (unsigned i = 0; i < nm; i++) {
            const struct tb_policy_entry *e = tb_policy_find(&pol, i);
            want_n += e && e->pcr != TB_POL_PCR_NONE;
            enum module_verdict v = lm.verdict[i];
            if (!e)
                FUZZ_ASSERT(v == MODULE_NOT_IN_POLICY, "module %u verdict %d", i, v);
            else if (e->hash_type == TB_HTYPE_ANY)
                FUZZ_ASSERT(v == MODULE_ACCEPTED_ANY, "module %u verdict %d", i, v);
            else
                FUZZ_ASSERT(v == (tb_policy_entry_accepts(&pol, e, lm.policy_digest[i])
                                      ? MODULE_MATCHED : MODULE_MISMATCHED),
                            "module %u verdict %d", i, v);
        }
        FUZZ_ASSERT(lm.vl.n == want_n, "%u extends, want %u", lm.vl.n, want_n);
        FUZZ_ASSERT(lm.vl.e[0].pcr == 17, "policy into %u", lm.vl.e[0].pcr);
        for (unsigned i = 0; i < lm.vl.n; i++) {
            FUZZ_ASSERT(lm.vl.e[i].pcr <= 23, "extend into PCR %u", lm.vl.e[i].pcr);
            FUZZ_ASSERT(lm.vl.e[i].digests.count == 2, "digests");
            FUZZ_ASSERT(memchr(lm.vl.e[i].what, 0, VL_WHAT_MAX), "what not terminated");
        }
    }
    free(buf);
    return 0;
}
