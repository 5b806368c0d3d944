/* SPDX-License-Identifier: MIT */
/*
 * A scripted TPM for src/tpm/tpm2.c: a queue of exchanges, each the exact command the code
 * must send and the response to give it (or a transport failure). Commands and responses are
 * written as hex (spaces, newlines and '|' ignored, so a test can lay out the fields); in a
 * response, the token SZ stands for the 4-byte big-endian total size, so a test writes only the
 * fields it means. A command that differs from the script, or one too many, is recorded (the
 * first such mismatch) and answered with a transport failure; FAKE_TPM_DONE() asserts that
 * there was none and that the whole script was used. No cmocka in here.
 */
#ifndef TESTS_FAKE_TPM_H
#define TESTS_FAKE_TPM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpm/tpm2.h"

#define FAKE_TPM_MAX_STEPS 32

/* Empties the script and the mismatch record; *t is set up to use the fake. */
void fake_tpm_reset(struct tpm2 *t);

/* Expects cmd_hex (NULL: any command) and answers rsp_hex. */
void fake_tpm_expect(const char *cmd_hex, const char *rsp_hex);
/* The same with raw bytes (cmd NULL: any command). */
void fake_tpm_expect_bytes(const void *cmd, size_t cmd_len, const void *rsp, size_t rsp_len);
/* Expects cmd_hex (NULL: any) and fails the transport with this message. */
void fake_tpm_expect_fail(const char *cmd_hex, const char *why);

/* Steps of the script not used yet. */
unsigned fake_tpm_pending(void);
/* "" or a description of the first unexpected command. */
const char *fake_tpm_mismatch(void);
/* Number of commands received since the reset, and the last one. */
unsigned fake_tpm_calls(void);
const uint8_t *fake_tpm_last_cmd(size_t *len);

/* Hex to bytes (the SZ token allowed); returns the length, aborts on bad hex or overflow. */
size_t fake_tpm_unhex(const char *hex, uint8_t *out, size_t cap);

/* Use after a call: the script matched and was used up. Needs cmocka. */
#define FAKE_TPM_DONE()                                                                      \
    do {                                                                                     \
        assert_string_equal(fake_tpm_mismatch(), "");                                        \
        assert_int_equal(fake_tpm_pending(), 0);                                             \
    } while (0)

#endif
