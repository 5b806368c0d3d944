/* SPDX-License-Identifier: MIT */
/* vtboot-attest's TPM: an ESAPI context on a TCTI (the device in the guest, swtpm on the
 * host), and the few operations both enroll and quote need. */
#ifndef VTBOOT_ATTEST_TPM_H
#define VTBOOT_ATTEST_TPM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tss2/tss2_esys.h>

#define ATTEST_AK_HANDLE 0x81010002u       /* where enroll persists the AK */
#define ATTEST_EK_HANDLE 0x81010001u       /* swtpm_setup's RSA EK */
#define ATTEST_EK_CERT_NV 0x01c00002u      /* TCG: the RSA 2048 EK certificate */

struct tpm {
    ESYS_CONTEXT *esys;
    TSS2_TCTI_CONTEXT *tcti;
    bool swtpm;                 /* a swtpm TCTI: we power the TPM up (Startup) ourselves */
    bool started;               /* we sent TPM2_Startup: we send TPM2_Shutdown at the end */
    char err[256];
};

/* tcti: "device:PATH" or "swtpm:path=SOCK" (or "swtpm:host=H,port=P"); NULL: /dev/tpmrm0,
 * else /dev/tpm0. A swtpm gets TPM2_Startup(CLEAR) (already started is fine). 0, or -1 with
 * the reason in t->err. */
int tpm_open(struct tpm *t, const char *tcti);
/* TPM2_Shutdown(CLEAR) if we started the TPM; frees everything. */
void tpm_close(struct tpm *t);

/* The banks the TPM has active (TPM2_GetCapability(TPM_CAP_PCRS)). */
int tpm_banks(struct tpm *t, TPML_PCR_SELECTION *banks);
/* A persistent object's ESYS handle and public area (Esys_Free it); -1 if there is none. */
int tpm_persistent(struct tpm *t, uint32_t handle, ESYS_TR *tr, TPM2B_PUBLIC **pub);
/* An NV index's contents (malloc'd); -1 if it cannot be read. */
int tpm_nv_read(struct tpm *t, uint32_t index, uint8_t **data, size_t *len);

/* "TPM error 0x18b" and the like into t->err, returns -1. */
int tpm_fail(struct tpm *t, const char *what, TSS2_RC rc);

#endif
