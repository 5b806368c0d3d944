/* SPDX-License-Identifier: MIT */
#include "tpm.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tss2/tss2_tcti_device.h>
#include <tss2/tss2_tcti_swtpm.h>
#include <unistd.h>

int tpm_fail(struct tpm *t, const char *what, TSS2_RC rc)
{
    /* TPM response codes are the low 12 bits of layer 0; others are tpm2-tss's own */
    if ((rc & 0xff0000u) == 0)
        snprintf(t->err, sizeof(t->err), "%s: TPM error 0x%x", what, rc);
    else
        snprintf(t->err, sizeof(t->err), "%s: tpm2-tss error 0x%x", what, rc);
    return -1;
}

int tpm_open(struct tpm *t, const char *tcti)
{
    TSS2_RC (*init)(TSS2_TCTI_CONTEXT *, size_t *, const char *);
    const char *conf;
    size_t size = 0;
    TSS2_RC rc;

    memset(t, 0, sizeof(*t));
    if (!tcti)
        tcti = access("/dev/tpmrm0", R_OK | W_OK) == 0 ? "device:/dev/tpmrm0" : "device:/dev/tpm0";
    if (!strncmp(tcti, "device:", 7)) {
        init = Tss2_Tcti_Device_Init;
        conf = tcti + 7;
    } else if (!strncmp(tcti, "swtpm:", 6)) {
        init = Tss2_Tcti_Swtpm_Init;
        conf = tcti + 6;
        t->swtpm = true;
    } else {
        snprintf(t->err, sizeof(t->err), "TCTI '%s': expected device:PATH or swtpm:path=SOCKET",
                 tcti);
        return -1;
    }
    rc = init(NULL, &size, conf);
    if (rc == TSS2_RC_SUCCESS) {
        t->tcti = calloc(1, size);
        if (!t->tcti)
            return tpm_fail(t, "out of memory", 0);
        rc = init(t->tcti, &size, conf);
    }
    if (rc != TSS2_RC_SUCCESS) {
        free(t->tcti);
        t->tcti = NULL;
        snprintf(t->err, sizeof(t->err), "cannot open the TPM at %s (tpm2-tss error 0x%x)", tcti,
                 rc);
        return -1;
    }
    rc = Esys_Initialize(&t->esys, t->tcti, NULL);
    if (rc != TSS2_RC_SUCCESS) {
        tpm_close(t);
        return tpm_fail(t, "Esys_Initialize", rc);
    }
    if (t->swtpm) {
        rc = Esys_Startup(t->esys, TPM2_SU_CLEAR);
        if (rc == TSS2_RC_SUCCESS)
            t->started = true;
        else if (rc != TPM2_RC_INITIALIZE) {
            tpm_close(t);
            return tpm_fail(t, "TPM2_Startup", rc);
        }
    }
    return 0;
}

void tpm_close(struct tpm *t)
{
    if (t->esys && t->started)
        Esys_Shutdown(t->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_SU_CLEAR);
    if (t->esys)
        Esys_Finalize(&t->esys);
    if (t->tcti) {
        Tss2_Tcti_Finalize(t->tcti);
        free(t->tcti);
    }
    t->esys = NULL;
    t->tcti = NULL;
    t->started = false;
}

int tpm_banks(struct tpm *t, TPML_PCR_SELECTION *banks)
{
    TPMS_CAPABILITY_DATA *cap = NULL;
    TPMI_YES_NO more;
    TSS2_RC rc;

    rc = Esys_GetCapability(t->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_CAP_PCRS, 0,
                            1, &more, &cap);
    if (rc != TSS2_RC_SUCCESS)
        return tpm_fail(t, "TPM2_GetCapability(PCRS)", rc);
    memset(banks, 0, sizeof(*banks));
    for (unsigned i = 0; i < cap->data.assignedPCR.count && i < TPM2_NUM_PCR_BANKS; i++) {
        const TPMS_PCR_SELECTION *s = &cap->data.assignedPCR.pcrSelections[i];
        bool active = false;

        for (unsigned b = 0; b < s->sizeofSelect && b < TPM2_PCR_SELECT_MAX; b++)
            active = active || s->pcrSelect[b];
        if (active)
            banks->pcrSelections[banks->count++] = *s;
    }
    Esys_Free(cap);
    return 0;
}

int tpm_persistent(struct tpm *t, uint32_t handle, ESYS_TR *tr, TPM2B_PUBLIC **pub)
{
    TSS2_RC rc = Esys_TR_FromTPMPublic(t->esys, handle, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                       tr);
    char what[64];

    snprintf(what, sizeof(what), "no object at 0x%08x", handle);
    if (rc != TSS2_RC_SUCCESS)
        return tpm_fail(t, what, rc);
    if (pub) {
        rc = Esys_ReadPublic(t->esys, *tr, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, pub, NULL,
                             NULL);
        if (rc != TSS2_RC_SUCCESS) {
            Esys_TR_Close(t->esys, tr);
            return tpm_fail(t, "TPM2_ReadPublic", rc);
        }
    }
    return 0;
}

int tpm_nv_read(struct tpm *t, uint32_t index, uint8_t **data, size_t *len)
{
    TPM2B_NV_PUBLIC *pub = NULL;
    ESYS_TR tr;
    TSS2_RC rc;
    size_t size, off = 0;
    char what[64];

    snprintf(what, sizeof(what), "NV index 0x%08x", index);
    rc = Esys_TR_FromTPMPublic(t->esys, index, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &tr);
    if (rc != TSS2_RC_SUCCESS)
        return tpm_fail(t, what, rc);
    rc = Esys_NV_ReadPublic(t->esys, tr, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &pub, NULL);
    if (rc != TSS2_RC_SUCCESS) {
        Esys_TR_Close(t->esys, &tr);
        return tpm_fail(t, what, rc);
    }
    size = pub->nvPublic.dataSize;
    Esys_Free(pub);
    *data = xmalloc(size ? size : 1);
    while (off < size) {
        TPM2B_MAX_NV_BUFFER *chunk = NULL;
        uint16_t n = (uint16_t)(size - off > 512 ? 512 : size - off);

        rc = Esys_NV_Read(t->esys, tr, tr, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, n,
                          (uint16_t)off, &chunk);
        if (rc != TSS2_RC_SUCCESS || chunk->size != n) {
            Esys_Free(chunk);
            Esys_TR_Close(t->esys, &tr);
            free(*data);
            return tpm_fail(t, what, rc);
        }
        memcpy(*data + off, chunk->buffer, n);
        Esys_Free(chunk);
        off += n;
    }
    Esys_TR_Close(t->esys, &tr);
    *len = size;
    return 0;
}
