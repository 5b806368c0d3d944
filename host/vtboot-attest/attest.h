/* SPDX-License-Identifier: MIT */
/* vtboot-attest's subcommands and what they share. */
#ifndef VTBOOT_ATTEST_H
#define VTBOOT_ATTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/x509.h>

int cmd_enroll(int argc, char **argv);
int cmd_quote(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* The enrollment record, a directory (written by enroll, read by verify):
 *   ak.pub       the AK's TPM2B_PUBLIC (also tpm2_checkquote -u)
 *   ak.pem       the AK as a PEM public key
 *   ak.name      the AK's TPM name, hex
 *   ak.handle    where it is persisted, "0x81010002"
 *   ek-cert.pem  the EK certificate the credential was made for
 *   ek-chain.pem the certificates between it and the CA (--ca-chain), if any
 *   banks        the TPM's PCR banks at enrollment, "sha1,sha256" */
#define REC_AK_PUB "ak.pub"
#define REC_AK_PEM "ak.pem"
#define REC_AK_NAME "ak.name"
#define REC_AK_HANDLE "ak.handle"
#define REC_EK_CERT "ek-cert.pem"
#define REC_EK_CHAIN "ek-chain.pem"
#define REC_BANKS "banks"

/* "0a1b..." (an even number of hex digits, 1 to max bytes) into out. */
int parse_hex(const char *s, uint8_t *out, size_t max, size_t *len);
/* A handle "0x81010002" (persistent range) into *h. */
int parse_handle(const char *s, uint32_t *h);

/* The certificate (PEM or DER) in path, or NULL with the reason in err. */
X509 *cert_load(const char *path, char *err, size_t errsz);
/* Checks cert against the trust anchors in ca_file, with chain_file's certificates (may be
 * NULL or missing) as untrusted intermediates. 0, or -1 with OpenSSL's reason. */
int cert_verify(X509 *cert, const char *ca_file, const char *chain_file, char *err,
                size_t errsz);
/* "CN=unknown" */
void cert_subject(X509 *cert, char *out, size_t outsz, bool issuer);

#endif
