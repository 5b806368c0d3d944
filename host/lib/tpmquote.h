/* SPDX-License-Identifier: MIT */
/*
 * The TPM structures of an attestation, as outside input: a quote (TPMS_ATTEST), its
 * signature (TPMT_SIGNATURE), the attestation key's public area (TPM2B_PUBLIC), PCR selections
 * (TPML_PCR_SELECTION) and the PCR values that go with them. Unmarshalling is tpm2-tss's
 * (libtss2-mu); on top of it each parser insists on the exact length and checks what a
 * verifier relies on. The crypto (names, signature, PCR digest) is OpenSSL's. No I/O.
 */
#ifndef HOST_TPMQUOTE_H
#define HOST_TPMQUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <tss2/tss2_tpm2_types.h>

#include "abi/tpm_hash.h"

#define PCRSEL_MAX_PCR 23               /* a PC Client TPM has PCRs 0-23 */

/* A TPML_PCR_SELECTION's rules: at most 16 banks, each a known hash (SHA-1/256/384/512)
 * named once, sizeofSelect 3 or 4, no PCR above 23. 0, or -1 with the reason. */
int pcrsel_check(const TPML_PCR_SELECTION *s, char *err, size_t errsz);
/* Unmarshals exactly len bytes and checks them. */
int pcrsel_parse(const uint8_t *buf, size_t len, TPML_PCR_SELECTION *s, char *err,
                 size_t errsz);
bool pcrsel_has(const TPML_PCR_SELECTION *s, uint16_t alg, unsigned pcr);
/* How many PCR values the selection names, and their total size in bytes. */
size_t pcrsel_values_size(const TPML_PCR_SELECTION *s, unsigned *count);
/* The banks that select at least one PCR, as "sha1,sha256" (in the selection's order). */
void pcrsel_banks_str(const TPML_PCR_SELECTION *s, char *out, size_t outsz);
/* The same selection of PCRs in each of the banks: bits of `pcrs` (1 << n) in `algs`. */
void pcrsel_make(TPML_PCR_SELECTION *s, const uint16_t *algs, unsigned nalgs, uint32_t pcrs);
/* "sha1,sha256" -> algorithm IDs (each once, at most 4); 0, or -1 with the reason. */
int pcrsel_parse_banks(const char *text, uint16_t *algs, unsigned *n, char *err, size_t errsz);
/* tpm2-tools' PCR list for tpm2_checkquote -l: "sha1:17,18,19+sha256:17,18,19". */
void pcrsel_tools_str(const TPML_PCR_SELECTION *s, char *out, size_t outsz);

/* A quote: exactly len bytes of TPMS_ATTEST with magic TPM_GENERATED_VALUE, type
 * TPM_ST_ATTEST_QUOTE and a valid PCR selection. 0, or -1 with the reason. */
int quote_parse(const uint8_t *buf, size_t len, TPMS_ATTEST *q, char *err, size_t errsz);
/* A signature: exactly len bytes of TPMT_SIGNATURE, RSASSA or RSAPSS with a known hash. */
int sig_parse(const uint8_t *buf, size_t len, TPMT_SIGNATURE *sig, char *err, size_t errsz);
/* A public area: exactly len bytes of TPM2B_PUBLIC whose size field is the TPMT_PUBLIC's. */
int public_parse(const uint8_t *buf, size_t len, TPM2B_PUBLIC *pub, char *err, size_t errsz);

/* The TPM name of an object: nameAlg || H_nameAlg(TPMT_PUBLIC). 0, or -1. */
int public_name(const TPMT_PUBLIC *pub, uint8_t *name, size_t *len);
/* An attestation key's rules: RSA (2048 bits or more), restricted, sign, not decrypt,
 * fixedTPM, fixedParent, sensitiveDataOrigin, a name algorithm of SHA-256 or better. */
int ak_check(const TPMT_PUBLIC *pub, char *err, size_t errsz);
/* An OpenSSL key for an RSA public area (exponent 0 means 65537). */
EVP_PKEY *public_pkey(const TPMT_PUBLIC *pub, char *err, size_t errsz);
/* 1 if sig is a valid signature of msg by pkey, 0 if not, -1 on an error (reason in err). */
int sig_verify(EVP_PKEY *pkey, const TPMT_SIGNATURE *sig, const uint8_t *msg, size_t len,
               char *err, size_t errsz);
/* H_alg of the concatenated PCR values (what the TPM puts in a quote's pcrDigest). */
int pcr_digest(uint16_t alg, const uint8_t *values, size_t len, uint8_t *out, size_t *outlen);

#endif
