/* SPDX-License-Identifier: MIT */
/*
 * What a launch extends into which PCR, computed as tboot 1.10 does with a TPM 2.0
 * (tboot/common/policy.c: verify_g_policy, verify_all_modules, hash_module), for every bank:
 *   1. H(policy_control || H(policy)) into PCR 17, and with the details/authorities mapping
 *      also into PCR 18 (H(policy) is zeros when EXTEND_PCR17 is clear);
 *   2. module 0 as H(H(cmdline) || H(image)) into PCR 17 (DA) or 18 (legacy);
 *   3. every module i, module 0 included, once more into its policy entry's PCR unless "none".
 * In each bank the digests are what tboot's extpol=<that bank> would give. Module digests in
 * the policy's own algorithm are what verification compares with the policy's hashes.
 */
#ifndef TBOOT_MEASURE_H
#define TBOOT_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "tboot/policy.h"
#include "tboot/progress.h"
#include "tpm/tpm2.h"

#define VL_MAX 32u
#define MEASURE_MAX_MODULES 16u
#define VL_WHAT_MAX 64u

struct vl_entry {
    uint8_t pcr;
    struct tpm_digest_list digests;
    char what[VL_WHAT_MAX];          /* event data for the log */
};

struct vl_list {
    unsigned n;
    struct vl_entry e[VL_MAX];
};

struct module_ref {
    const char *cmdline;             /* the module string, verbatim */
    const void *image;
    uint32_t size;
};

enum module_verdict {
    MODULE_NOT_IN_POLICY,            /* no entry for it */
    MODULE_ACCEPTED_ANY,             /* entry with hash type "any": nothing to compare */
    MODULE_MATCHED,                  /* one of the entry's hashes */
    MODULE_MISMATCHED,
};

struct launch_measurements {
    struct vl_list vl;
    unsigned nr_modules;
    enum module_verdict verdict[MEASURE_MAX_MODULES];
    uint8_t policy_digest[MEASURE_MAX_MODULES][TPM2_MAX_DIGEST]; /* in the policy's algorithm */
};

/* H_alg(H_alg(cmdline) || H_alg(image)) for each algorithm of `algs`, in one pass over the
 * image (each chunk read once and fed to every bank). Progress (tboot/progress.h) goes to cb,
 * if not NULL, as module `item`. */
void measure_module(const struct module_ref *m, const struct tpm_banks *algs,
                    struct tpm_digest_list *out, const struct progress_cb *cb, unsigned item);

/* H_alg(policy_control || H_alg(policy) or zeros) for each bank. */
void measure_policy(const struct tb_policy *p, const struct tpm_banks *banks,
                    struct tpm_digest_list *out);

/* The whole list of extends and a verdict per module; -1 if banks is empty or too many
 * modules or entries. Each module's hashing progress goes to cb (NULL: none), item = its
 * number. */
int measure_launch(const struct tb_policy *p, const struct tpm_banks *banks, enum pcr_map map,
                   const struct module_ref *mods, unsigned nr_mods,
                   struct launch_measurements *out, const struct progress_cb *cb);

const uint8_t *digest_of(const struct tpm_digest_list *l, uint16_t alg);

#endif
