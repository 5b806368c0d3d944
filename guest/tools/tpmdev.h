/* SPDX-License-Identifier: MIT */
/* The guest tools' TPM transport: vtboot's TPM code (struct tpm2) over the kernel's /dev/tpm0. */
#ifndef GUEST_TOOLS_TPMDEV_H
#define GUEST_TOOLS_TPMDEV_H

#include <stddef.h>
#include <stdint.h>

/* struct tpm2's transmit, ctx an int * holding an open /dev/tpm0: one command written, one
 * response read (the kernel's character device frames both). */
int tpmdev_transmit(void *ctx, const uint8_t *cmd, size_t cmd_len, uint8_t *rsp, size_t rsp_cap,
                    size_t *rsp_len, char *err, size_t errlen);

#endif
