/* SPDX-License-Identifier: MIT */
/*
 * vtboot-attest's evidence file: what `quote` collects in the guest and `verify` checks on the
 * host. Binary, little-endian:
 *
 *   magic    8 bytes  "VTBEVID1"
 *   length   u32      the whole file's size, header included
 *   records  each:  u16 type, u16 reserved (0), u32 length, length bytes
 *
 * Every record type at most once, in any order; an unknown type, a reserved field that is not
 * zero, a record running past the end or a length field that is not the file's size is an
 * error. Which records must be there is the verifier's business (a missing one fails its
 * check), not the parser's. The TPM structures are in the TPM's own marshalling (big-endian),
 * exactly as the TPM returned them, so the QUOTE and SIGNATURE records are the files
 * tpm2_checkquote reads (-m, -s) and PCR_VALUES is its -f file for the selection in
 * PCR_SELECTION (-l).
 */
#ifndef HOST_EVIDENCE_H
#define HOST_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#define EVIDENCE_MAGIC "VTBEVID1"
#define EVIDENCE_HDR_SIZE 12
#define EVIDENCE_MAX_SIZE (1u << 20)

enum evidence_type {
    EVID_AK_PUBLIC = 1,          /* TPM2B_PUBLIC of the key that signed the quote */
    EVID_QUOTE = 2,              /* TPMS_ATTEST (the TPM2B_ATTEST's bytes): the signed message */
    EVID_SIGNATURE = 3,          /* TPMT_SIGNATURE */
    EVID_PCR_SELECTION = 4,      /* TPML_PCR_SELECTION of the values below */
    EVID_PCR_VALUES = 5,         /* the PCR values in selection order, concatenated */
    EVID_EVENT_LOG = 6,          /* the D-RTM TCG event log, as read */
    EVID_EVENT_LOG_SOURCE = 7,   /* text: where the log came from, or why there is none */
    EVID_TPM_BANKS = 8,          /* TPML_PCR_SELECTION: the TPM's PCR banks (TPM2_GetCapability) */
    EVID_NONCE = 9,              /* the nonce the quoter was given */
    EVID_KERNEL_CMDLINE = 10,    /* text: the guest kernel's /proc/cmdline (a hint: the event log
                                  * keeps only 45 bytes of module 0's string) */
    EVID_NR_TYPES = 11,
};

struct evidence_rec {
    const uint8_t *data;         /* NULL: the record is not there */
    size_t len;
};

struct evidence {
    struct evidence_rec rec[EVID_NR_TYPES];
};

/* Splits buf into its records (pointing into buf). 0, or -1 with the reason in err. */
int evidence_parse(const uint8_t *buf, size_t len, struct evidence *ev, char *err, size_t errsz);

/* The file for ev's records (in type order); NULL if over EVIDENCE_MAX_SIZE. free() it. */
uint8_t *evidence_build(const struct evidence *ev, size_t *len);

/* "quote", "signature", ...: a record type's name for messages. */
const char *evidence_type_name(unsigned type);

#endif
