/* SPDX-License-Identifier: MIT */
/*
 * The SINIT's part of a TXT launch's expectation (docs/txt-platform.md 3.4 step 7): from the
 * SINIT ACM file, the D-RTM event list (src/txt/drtm.h) that predict_bank extends in place of
 * vtboot's one MLE measurement. The ACM's digest is SHA-256 over its signed ranges
 * (src/txt/acm.h), what SENTER's signature check hashed and sends to the TPM with EDX.
 */
#ifndef HOST_TXTEXPECT_H
#define HOST_TXTEXPECT_H

#include <stddef.h>
#include <stdint.h>

#include "txt/drtm.h"

/* OsSinitData.capabilities as Debian's tboot 1.10.5 sends them with our ACM (docs 3.4 step 3):
 * MONITOR wake-up, the TCG event log format, the PCR mapping it asks for */
#define TXT_EXPECT_TBOOT_OS_SINIT_CAPS 0x601u

/* The one bank Debian's tboot 1.10.5 extends after our SINIT: the ACM's TPM info says "embedded
 * algorithms" (ext_policy 2), so tboot hashes and extends with its current algorithm only, the
 * best of the ACM's list (SHA-1, SHA-256); its log says "extend policy: 2, current alg id: 0xb"
 * and its events carry one digest */
#define TXT_EXPECT_TBOOT_BANK "sha256"

struct txt_expect {
    uint8_t *acm;                        /* the file's bytes */
    size_t acm_size;
    uint8_t *policy;                     /* the PO index's bytes (txt_expect_set_policy) */
    size_t policy_size;
    struct txt_drtm_in in;
    struct txt_drtm_events events;
};

/* No launch control policy (none in TPM NV: control 0, the no-policy LCP hash), SENTER's EDX
 * 0 as tboot passes it. 0, or -1 with the reason in err. */
int txt_expect_load(const char *sinit, uint32_t os_sinit_caps, struct txt_expect *t, char *err,
                    size_t errsz);
/* The launch control policy the SINIT finds in the TPM's PO index: the file lcp2_crtpol wrote
 * (--pol), as written to NV. Its control goes into PCR 17 and its bytes into PCR 18 (docs 3.4
 * step 7). A policy the SINIT would refuse to parse is refused here. 0, or -1 with the reason. */
int txt_expect_set_policy(struct txt_expect *t, const char *path, char *err, size_t errsz);
void txt_expect_free(struct txt_expect *t);

#endif
