/* SPDX-License-Identifier: MIT */
#include "crypto/hash.h"
#include "lib/format.h"
#include "lib/string.h"
#include "tboot/measure.h"

/* How much of a module is hashed between progress checks (hash_update_multi feeds every
 * bank HASH_MULTI_CHUNK bytes at a time within it). */
#define SLICE (1u << 20)

const uint8_t *digest_of(const struct tpm_digest_list *l, uint16_t alg)
{
    for (unsigned i = 0; i < l->count; i++)
        if (l->d[i].alg == alg)
            return l->d[i].bytes;
    return 0;
}

void measure_module(const struct module_ref *m, const struct tpm_banks *algs,
                    struct tpm_digest_list *out, const struct progress_cb *cb, unsigned item)
{
    static struct hash_ctx ctx[TPM_MAX_BANKS];
    const uint8_t *p = m->image;
    size_t cmdlen = strlen(m->cmdline);
    struct progress prog;

    out->count = algs->count;
    for (unsigned i = 0; i < algs->count; i++)
        hash_init(&ctx[i], algs->alg[i]);
    /* one pass: each chunk is read once and fed to every bank while it is in cache */
    progress_start(&prog, cb, item, m->size);
    for (uint64_t off = 0; off < m->size; off += SLICE) {
        uint32_t n = m->size - off < SLICE ? (uint32_t)(m->size - off) : SLICE;
        hash_update_multi(ctx, algs->count, p + off, n);
        progress_advance(&prog, n);
    }
    for (unsigned i = 0; i < algs->count; i++) {
        uint8_t image_digest[HASH_MAX_DIGEST_SIZE];
        struct tpm_digest *d = &out->d[i];
        d->alg = algs->alg[i];
        hash_final(&ctx[i], image_digest);
        hash_buffer(d->alg, m->cmdline, cmdlen, d->bytes);
        hash_extend(d->alg, d->bytes, image_digest);   /* H(H(cmdline) || H(image)) */
    }
}

void measure_policy(const struct tb_policy *p, const struct tpm_banks *banks,
                    struct tpm_digest_list *out)
{
    out->count = banks->count;
    for (unsigned i = 0; i < banks->count; i++) {
        uint8_t buf[4 + HASH_MAX_DIGEST_SIZE];
        uint16_t alg = banks->alg[i];
        size_t n = tpm_hash_size(alg);
        memset(buf, 0, sizeof(buf));
        memcpy(buf, &p->control, 4); /* little-endian, as tboot copies the field */
        if (p->control & TB_POLCTL_EXTEND_PCR17)
            hash_buffer(alg, p->bytes, p->size, buf + 4);
        out->d[i].alg = alg;
        hash_buffer(alg, buf, 4 + n, out->d[i].bytes);
    }
}

static int add(struct vl_list *vl, uint8_t pcr, const struct tpm_digest_list *d,
               const char *what)
{
    if (vl->n >= VL_MAX)
        return -1;
    struct vl_entry *e = &vl->e[vl->n++];
    e->pcr = pcr;
    e->digests = *d;
    strlcpy(e->what, what, sizeof(e->what));
    return 0;
}

static bool bank_has(const struct tpm_banks *b, uint16_t alg)
{
    for (unsigned i = 0; i < b->count; i++)
        if (b->alg[i] == alg)
            return true;
    return false;
}

/* The banks' digests out of a list that may also hold the policy's algorithm. */
static void bank_digests(const struct tpm_digest_list *all, const struct tpm_banks *banks,
                         struct tpm_digest_list *out)
{
    out->count = banks->count;
    for (unsigned i = 0; i < banks->count; i++) {
        out->d[i].alg = banks->alg[i];
        memcpy(out->d[i].bytes, digest_of(all, banks->alg[i]), tpm_hash_size(banks->alg[i]));
    }
}

int measure_launch(const struct tb_policy *p, const struct tpm_banks *banks, enum pcr_map map,
                   const struct module_ref *mods, unsigned nr_mods,
                   struct launch_measurements *out, const struct progress_cb *cb)
{
    struct tpm_digest_list d, all;
    struct tpm_banks algs = *banks;
    char what[VL_WHAT_MAX];

    memset(out, 0, sizeof(*out));
    if (banks->count == 0 || nr_mods > MEASURE_MAX_MODULES)
        return -1;
    if (!bank_has(&algs, p->hash_alg)) {
        if (algs.count >= TPM_MAX_BANKS)
            return -1;
        algs.alg[algs.count++] = p->hash_alg;      /* computed only for verification */
    }

    measure_policy(p, banks, &d);
    if (add(&out->vl, 17, &d, "vtboot: policy control and policy hash"))
        return -1;
    if (map == PCR_MAP_DA && add(&out->vl, 18, &d, "vtboot: policy control and policy hash"))
        return -1;

    out->nr_modules = nr_mods;
    for (unsigned i = 0; i < nr_mods; i++) {
        measure_module(&mods[i], &algs, &all, cb, i);
        memcpy(out->policy_digest[i], digest_of(&all, p->hash_alg), tpm_hash_size(p->hash_alg));
        bank_digests(&all, banks, &d);
        fmt_snprintf(what, sizeof(what), "vtboot: module %u: %s", i, mods[i].cmdline);
        if (i == 0 && add(&out->vl, map == PCR_MAP_DA ? 17 : 18, &d, what))
            return -1;

        const struct tb_policy_entry *e = tb_policy_find(p, i);
        if (!e) {
            out->verdict[i] = MODULE_NOT_IN_POLICY;
            continue;
        }
        if (e->pcr != TB_POL_PCR_NONE && add(&out->vl, e->pcr, &d, what))
            return -1;
        if (e->hash_type == TB_HTYPE_ANY)
            out->verdict[i] = MODULE_ACCEPTED_ANY;
        else
            out->verdict[i] = tb_policy_entry_accepts(p, e, out->policy_digest[i])
                                  ? MODULE_MATCHED : MODULE_MISMATCHED;
    }
    return 0;
}
