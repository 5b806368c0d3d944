/* SPDX-License-Identifier: MIT */
/*
 * The verifier's half of TPM2_MakeCredential, in software (OpenSSL), so that the secret never
 * passes through the TPM or the host it proves things about. Facts from the TPM 2.0 library
 * specification, Part 1: "Credential Protection" (the credential blob and the seed), KDFa
 * (SP 800-108 counter mode with HMAC), RSA-OAEP secret sharing with the label "IDENTITY".
 *
 *   seed         random, the size of the EK name algorithm's digest
 *   secret       RSA-OAEP(EK, seed), hash and MGF1 the EK's name algorithm, label "IDENTITY\0"
 *   symKey       KDFa(nameAlg, seed, "STORAGE", name, "", the EK's AES key bits)
 *   encIdentity  AES-CFB(symKey, IV 0, TPM2B_DIGEST(credential))
 *   hmacKey      KDFa(nameAlg, seed, "INTEGRITY", "", "", digest bits)
 *   outerHMAC    HMAC(nameAlg, hmacKey, encIdentity || name)
 *   blob         TPM2B_DIGEST(outerHMAC) || encIdentity       (a TPM2B_ID_OBJECT's buffer)
 *
 * name is the TPM name of the key to certify (the AK): only a TPM holding both the EK's private
 * key and an object of that name can give the credential back (TPM2_ActivateCredential).
 */
#ifndef HOST_CREDENTIAL_H
#define HOST_CREDENTIAL_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <tss2/tss2_tpm2_types.h>

/* KDFa: bits of output (a multiple of 8) into out. 0, or -1. */
int kdfa(uint16_t alg, const uint8_t *key, size_t keylen, const char *label, const uint8_t *u,
         size_t ulen, const uint8_t *v, size_t vlen, unsigned bits, uint8_t *out);

/* ek: the EK's RSA public key; name_alg and aes_bits: from the EK's public area (SHA-256 and
 * 128 for the TCG default EK). 0, or -1 with the reason in err. */
int credential_make(EVP_PKEY *ek, uint16_t name_alg, unsigned aes_bits, const uint8_t *name,
                    size_t name_len, const uint8_t *cred, size_t cred_len, TPM2B_ID_OBJECT *blob,
                    TPM2B_ENCRYPTED_SECRET *secret, char *err, size_t errsz);

#endif
