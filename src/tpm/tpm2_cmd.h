/* SPDX-License-Identifier: MIT */
/* The command framework of tpm2.c, shared with the other command files of src/tpm/. */
#ifndef TPM_TPM2_CMD_H
#define TPM_TPM2_CMD_H

#include "tpm/marshal.h"
#include "tpm/tpm2.h"

/* Starts a command in the shared command buffer. */
void tpm2_cmd_begin(struct tpm_writer *w, uint16_t tag, uint32_t cc);
/* One authorisation (session handle, empty nonce, no attributes, empty hmac). */
void tpm2_cmd_auth(struct tpm_writer *w, uint32_t session);
/* Sends, resends on RETRY, checks the response; see tpm2.c. */
int tpm2_cmd_execute(struct tpm2 *t, struct tpm_writer *w, const char *name,
                     struct tpm_reader *r, uint32_t *rsp_handle);
/* Zeroes the command buffer (it held a secret; the response may still be read). */
void tpm2_wipe_command(void);
/* The response parameters were consumed exactly. */
int tpm2_cmd_finish(struct tpm2 *t, struct tpm_reader *r, const char *name);

#endif
