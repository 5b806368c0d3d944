/* SPDX-License-Identifier: MIT */
/*
 * TPM 2.0 commands, marshalled and checked here, sent through a transport (the TIS driver in
 * the pre-kernel, a fake or swtpm in host tests). Every function returns 0 on success, the TPM
 * response code (> 0) if the TPM refused, or -1 if the transport failed or the response was
 * malformed, with the reason in tpm->err.
 */
#ifndef TPM_TPM2_H
#define TPM_TPM2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/tpm2.h"

#define TPM_MAX_BANKS 4u
#define TPM_NV_CHUNK 512u                /* bytes per NV_Read */
#define TPM2_MAX_RETRIES 20u             /* resends of a command the TPM answers RETRY */

struct tpm_digest {
    uint16_t alg;
    uint8_t bytes[TPM2_MAX_DIGEST];
};

/* One digest per bank, in bank order: a PCR value or what an extend adds. */
struct tpm_digest_list {
    unsigned count;
    struct tpm_digest d[TPM_MAX_BANKS];
};

struct tpm_banks {
    unsigned count;
    uint16_t alg[TPM_MAX_BANKS];
};

/* Sends cmd and receives the response (at most rsp_cap bytes); 0 or -1 with err filled. */
typedef int (*tpm_transmit_fn)(void *ctx, const uint8_t *cmd, size_t cmd_len, uint8_t *rsp,
                               size_t rsp_cap, size_t *rsp_len, char *err, size_t errlen);

/*
 * Whether a response header read from a transport frames a response: a response tag and a
 * size from the header's own 10 bytes up to rsp_cap. 0 with *size, or -1 with the header's
 * fields in err (a byte lost or added in the transfer gives a size that does not frame).
 */
int tpm2_response_framing(const uint8_t hdr[TPM2_HEADER_SIZE], size_t rsp_cap, size_t *size,
                          char *err, size_t errlen);

struct tpm2 {
    tpm_transmit_fn transmit;
    void *ctx;
    char err[128];
};

int tpm2_startup(struct tpm2 *t, uint16_t type);
int tpm2_shutdown(struct tpm2 *t, uint16_t type);
/* Banks with at least one PCR allocated, limited to algorithms vtboot can hash. */
int tpm2_get_pcr_banks(struct tpm2 *t, struct tpm_banks *banks);
/* PCR `pcr` in every bank of `banks`, in that order. */
int tpm2_pcr_read(struct tpm2 *t, unsigned pcr, const struct tpm_banks *banks,
                  struct tpm_digest_list *out);
int tpm2_pcr_extend(struct tpm2 *t, unsigned pcr, const struct tpm_digest_list *d);
int tpm2_get_random(struct tpm2 *t, uint8_t *out, unsigned n);
int tpm2_nv_read_public(struct tpm2 *t, uint32_t index, uint32_t *attributes, uint16_t *size);
/* Reads `size` bytes from offset 0 with the index's own (empty) password. */
int tpm2_nv_read(struct tpm2 *t, uint32_t index, uint8_t *out, uint16_t size);

#endif
