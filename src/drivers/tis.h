/* SPDX-License-Identifier: MIT */
/*
 * The TPM 2.0 FIFO (TIS) interface at 0xfed40000 (TCG PC Client PTP): locality requests,
 * command/response transfer with burst counts, TCG timeouts and cancel. It is the transport
 * behind src/tpm/tpm2.c; nothing above it touches TPM registers.
 */
#ifndef DRIVERS_TIS_H
#define DRIVERS_TIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tis {
    unsigned locality;               /* the active one, or TIS_NO_LOCALITY */
    uint32_t did_vid;
};

#define TIS_NO_LOCALITY 0xffu

/* True if a TIS TPM answers through `locality` (DID/VID readable, ACCESS valid). */
bool tis_probe(struct tis *tis, unsigned locality, char *err, size_t errlen);
/* Gives up every locality in use and takes `locality`; false with err on timeout or if the
 * TPM is not a TPM 2.0. */
bool tis_request_locality(struct tis *tis, unsigned locality, char *err, size_t errlen);
void tis_release_locality(struct tis *tis);
/* tpm_transmit_fn for src/tpm/tpm2.c; ctx is a struct tis with an active locality. */
int tis_transmit(void *ctx, const uint8_t *cmd, size_t cmd_len, uint8_t *rsp, size_t rsp_cap,
                 size_t *rsp_len, char *err, size_t errlen);

#endif
