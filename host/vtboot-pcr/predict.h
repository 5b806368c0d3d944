/* SPDX-License-Identifier: MIT */
/*
 * What a vtboot launch leaves in PCRs 17-19, computed on the host with OpenSSL from the files
 * alone: PCR 17 from the dynamic launch of the MLE, then tboot's measurements (policy, modules)
 * in the order and PCRs tboot 1.10 uses with a TPM 2.0. An independent implementation of what
 * src/tboot/measure.c does inside vtboot.
 */
#ifndef VTBOOT_PCR_PREDICT_H
#define VTBOOT_PCR_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tboot/policy.h"

#define PREDICT_MAX_MODULES 16
#define PREDICT_NR_PCRS 24
#define PREDICT_MAX_DIGEST 64

struct predict_module {
    const char *cmdline;             /* the exact module string vtboot gets */
    const uint8_t *image;
    size_t size;
};

struct predict_input {
    const uint8_t *mle;
    size_t mle_size;
    const struct tb_policy *policy;
    enum pcr_map map;
    unsigned nr_modules;
    struct predict_module modules[PREDICT_MAX_MODULES];
};

struct pcr_bank {
    const char *name;                /* OpenSSL digest name: sha1, sha256, sha384, sha512 */
    unsigned size;
    uint8_t pcr[PREDICT_NR_PCRS][PREDICT_MAX_DIGEST];
};

/* Fills bank->pcr for the launched state; -1 if the digest is unknown to OpenSSL. */
int predict_bank(const struct predict_input *in, struct pcr_bank *bank, bool verbose);

#endif
