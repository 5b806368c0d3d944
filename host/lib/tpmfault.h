/* SPDX-License-Identifier: MIT */
/*
 * TPM fault injection, the pure part: vtboot-qemu's --tpm-fault SPEC and the decision "answer
 * this TPM command with an error instead of passing it to swtpm?". The relay that applies it
 * sits on the TPM data channel (ctrlproxy.c).
 *
 * SPEC is CC[:H][@N]=RC:
 *   CC  a TPM 2.0 command: its name from TPM 2.0 Part 2 (TPM_CC, e.g. PCR_Read; any case; an
 *       optional TPM2_ or TPM_CC_ prefix), or its code in hex (0x17e)
 *   H   only commands whose first handle is H (decimal or 0x hex): PCR_Extend:17 is an extend
 *       of PCR 17, which the firmware never does (it measures at locality 0)
 *   N   the occurrence to fail, 1-based, counted over the whole run among the commands the
 *       spec names (default: every occurrence)
 *   RC  the response code, in hex, 0x1 to 0xffffffff (e.g. 0x101 TPM_RC_FAILURE)
 * A spec for an occurrence outranks one for every occurrence; a second spec for the same
 * command, handle and occurrence (or two for every occurrence) is refused.
 *
 * What counts as a command: bytes that reach the data channel as one piece (see ctrlproxy.c)
 * of at least 10 bytes with a TPM 2.0 tag (0x8001, 0x8002) and a size field equal to their
 * length. Anything else is never counted and never failed.
 */
#ifndef HOST_TPMFAULT_H
#define HOST_TPMFAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TPMFAULT_MAX 32                 /* specs per run */
#define TPMFAULT_NTH_MAX 1000000u
#define TPMFAULT_RESPONSE_SIZE 10u      /* tag, size, rc: what an error answer is */

struct tpmfault {
    uint32_t cc;                        /* command code */
    bool has_handle;                    /* only commands whose first handle is `handle` */
    uint32_t handle;
    uint32_t nth;                       /* occurrence to fail, 1-based; 0: every one */
    uint32_t rc;                        /* response code to answer */
    uint32_t seen;                      /* commands it named so far */
};

struct tpmfault_set {
    struct tpmfault f[TPMFAULT_MAX];
    int n;
};

/* Parses one SPEC. Returns 0, or -1 with a message (naming SPEC) in err. */
int tpmfault_parse(const char *spec, struct tpmfault *out, char *err, size_t errsz);
/* Parses SPEC and adds it to s. Returns 0, or -1 with a message in err (bad SPEC, a duplicate,
 * more than TPMFAULT_MAX). */
int tpmfault_add(struct tpmfault_set *s, const char *spec, char *err, size_t errsz);

/*
 * The command in buf (len bytes, as it reached the data channel): 1 if it is a well-formed
 * TPM 2.0 command (*cc set), 0 if not (too short, other tag, size field != len).
 */
int tpmfault_command(const uint8_t *buf, size_t len, uint32_t *cc);
/* The first handle of a well-formed command in buf, if it has 4 bytes for one; false if not. */
bool tpmfault_first_handle(const uint8_t *buf, size_t len, uint32_t *handle);
/*
 * One more command with code cc (and first handle *handle; NULL: none) reached the TPM:
 * counts it for every spec that names it and returns true if it is to be answered with *rc
 * (*nth: its occurrence number among what that spec names, from 1), false if it is to be
 * forwarded.
 */
bool tpmfault_check(struct tpmfault_set *s, uint32_t cc, const uint32_t *handle, uint32_t *rc,
                    uint32_t *nth);
/* The error answer: tag TPM_ST_NO_SESSIONS (0x8001), size 10, rc; big-endian. */
void tpmfault_response(uint8_t out[TPMFAULT_RESPONSE_SIZE], uint32_t rc);

/* The TPM 2.0 Part 2 name of a command code ("PCR_Read"), or NULL. */
const char *tpmfault_cc_name(uint32_t cc);
/* The table of known names: entry i (0-based) in *cc and *name; false past the end. */
bool tpmfault_cc_entry(size_t i, uint32_t *cc, const char **name);

#endif
