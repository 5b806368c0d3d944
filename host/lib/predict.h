/* SPDX-License-Identifier: MIT */
/*
 * What a vtboot launch leaves in PCRs 17-19, computed on the host with OpenSSL from the files
 * alone: PCR 17 from the dynamic launch of the MLE, then tboot's measurements (policy, modules)
 * in the order and PCRs tboot 1.10 uses with a TPM 2.0. An independent implementation of what
 * src/tboot/measure.c does inside vtboot. Shared by vtboot-pcr (predict) and vtboot-attest
 * (verify), so that a verifier checks against exactly what vtboot-pcr prints.
 */
#ifndef HOST_PREDICT_H
#define HOST_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tboot/policy.h"
#include "txt/drtm.h"

#define PREDICT_MAX_MODULES 16
#define PREDICT_NR_PCRS 24
#define PREDICT_MAX_DIGEST 64
/* the launch (a TXT launch: the SINIT's list), the policy twice, each module at most twice */
#define PREDICT_MAX_EVENTS (TXT_DRTM_NR_EVENTS + 2 + 2 * PREDICT_MAX_MODULES)

struct predict_module {
    const char *cmdline;             /* the exact module string vtboot gets */
    const uint8_t *image;
    size_t size;
};

struct predict_input {
    const uint8_t *mle;
    size_t mle_size;
    const struct tb_policy *policy;
    const struct txt_drtm_events *txt;   /* a TXT launch: the SINIT's events (host/lib/txtexpect.h)
                                          * in place of vtboot's one MLE extend; NULL: vtboot's */
    const char *mle_bank;                /* the one bank the MLE's own extends go to (Debian's
                                          * tboot after our SINIT); NULL: every bank (vtboot) */
    enum pcr_map map;
    unsigned nr_modules;
    struct predict_module modules[PREDICT_MAX_MODULES];
};

/* One extend, as vtboot logs it in its D-RTM event log (in that order). */
enum predict_what {
    PREDICT_MLE,                     /* the dynamic launch: H(MLE), event type 0x404 */
    PREDICT_TXT,                     /* a TXT launch's SINIT event (`module`: its index) */
    PREDICT_POLICY,                  /* H(policy_control || H(policy)) */
    PREDICT_MODULE,                  /* H(H(module string) || H(image)) */
};

struct predict_event {
    unsigned pcr;
    enum predict_what what;
    unsigned module;                 /* PREDICT_MODULE: its number */
    uint8_t digest[PREDICT_MAX_DIGEST];
};

struct pcr_bank {
    const char *name;                /* OpenSSL digest name: sha1, sha256, sha384, sha512 */
    unsigned size;
    uint8_t pcr[PREDICT_NR_PCRS][PREDICT_MAX_DIGEST];
    unsigned nr_events;              /* the extends, in order */
    struct predict_event events[PREDICT_MAX_EVENTS];
};

/* Fills bank->pcr and bank->events for the launched state; -1 if the digest is unknown to
 * OpenSSL. */
int predict_bank(const struct predict_input *in, struct pcr_bank *bank, bool verbose);

/* H(policy_control || H(policy)) in bank `name` (what predict_bank extends for the policy);
 * -1 if the digest is unknown. */
int predict_policy_digest(const struct tb_policy *p, const char *name, uint8_t *out,
                          unsigned *size);

#endif
