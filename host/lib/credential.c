/* SPDX-License-Identifier: MIT */
#include "credential.h"
#include "lib/bytes.h"
#include "tpmquote.h"
#include "util.h"

#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <string.h>
#include <tss2/tss2_mu.h>

int kdfa(uint16_t alg, const uint8_t *key, size_t keylen, const char *label, const uint8_t *u,
         size_t ulen, const uint8_t *v, size_t vlen, unsigned bits, uint8_t *out)
{
    const char *hname = tpm_hash_name(alg);
    const EVP_MD *md = hname ? EVP_get_digestbyname(hname) : NULL;
    size_t llen = strlen(label) + 1;          /* the label's terminating zero is hashed */
    size_t inlen = 4 + llen + ulen + vlen + 4, want = bits / 8, done = 0;
    uint8_t in[4 + 64 + 2 * sizeof(TPMU_NAME) + 4], blk[EVP_MAX_MD_SIZE];
    unsigned n;

    if (!md || bits % 8 || llen > 64 || ulen > sizeof(TPMU_NAME) || vlen > sizeof(TPMU_NAME))
        return -1;
    memcpy(in + 4, label, llen);
    if (ulen)
        memcpy(in + 4 + llen, u, ulen);
    if (vlen)
        memcpy(in + 4 + llen + ulen, v, vlen);
    store_be32(in + 4 + llen + ulen + vlen, bits);
    for (uint32_t i = 1; done < want; i++) {
        store_be32(in, i);
        if (!HMAC(md, key, (int)keylen, in, inlen, blk, &n))
            return -1;
        memcpy(out + done, blk, want - done < n ? want - done : n);
        done += want - done < n ? want - done : n;
    }
    OPENSSL_cleanse(blk, sizeof(blk));
    return 0;
}

int credential_make(EVP_PKEY *ek, uint16_t name_alg, unsigned aes_bits, const uint8_t *name,
                    size_t name_len, const uint8_t *cred, size_t cred_len, TPM2B_ID_OBJECT *blob,
                    TPM2B_ENCRYPTED_SECRET *secret, char *err, size_t errsz)
{
    const char *hname = tpm_hash_name(name_alg);
    const EVP_MD *md = hname ? EVP_get_digestbyname(hname) : NULL;
    unsigned dsize = tpm_hash_size(name_alg);
    uint8_t seed[64], sym[32], hkey[64], plain[sizeof(TPM2B_DIGEST)], iv[16] = { 0 };
    uint8_t mac_in[sizeof(TPM2B_DIGEST) + sizeof(TPMU_NAME)];
    TPM2B_DIGEST d = { 0 };
    size_t plen = 0, off = 0, slen;
    unsigned mlen;
    EVP_PKEY_CTX *pctx = NULL;
    EVP_CIPHER_CTX *cctx = NULL;
    const EVP_CIPHER *aes = aes_bits == 128 ? EVP_aes_128_cfb128()
                            : aes_bits == 256 ? EVP_aes_256_cfb128() : NULL;
    unsigned char *label = NULL;
    int outl = 0, rc = -1;

    memset(blob, 0, sizeof(*blob));
    memset(secret, 0, sizeof(*secret));
    if (!md || !aes)
        return errorf(err, errsz, "EK name algorithm 0x%04x / AES-%u not supported", name_alg,
                      aes_bits);
    if (cred_len == 0 || cred_len > dsize || name_len > sizeof(TPMU_NAME))
        return errorf(err, errsz, "a credential of %zu bytes (1 to %u)", cred_len, dsize);
    if (RAND_bytes(seed, (int)dsize) != 1)
        return errorf(err, errsz, "no random seed from OpenSSL");

    /* the seed, RSA-OAEP to the EK with the label "IDENTITY" (its zero byte included) */
    label = OPENSSL_malloc(9);
    slen = sizeof(secret->secret);
    if (!label || !(pctx = EVP_PKEY_CTX_new(ek, NULL)) || EVP_PKEY_encrypt_init(pctx) <= 0 ||
        EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_OAEP_PADDING) <= 0 ||
        EVP_PKEY_CTX_set_rsa_oaep_md(pctx, md) <= 0 || EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md) <= 0) {
        OPENSSL_free(label);
        errorf(err, errsz, "OpenSSL cannot set up RSA-OAEP with the EK");
        goto out;
    }
    memcpy(label, "IDENTITY", 9);
    if (EVP_PKEY_CTX_set0_rsa_oaep_label(pctx, label, 9) <= 0) {
        OPENSSL_free(label);
        errorf(err, errsz, "OpenSSL cannot set the OAEP label");
        goto out;
    }
    if (EVP_PKEY_encrypt(pctx, secret->secret, &slen, seed, dsize) <= 0) {
        errorf(err, errsz, "RSA-OAEP encryption to the EK failed");
        goto out;
    }
    secret->size = (uint16_t)slen;

    /* encIdentity = AES-CFB(KDFa(seed, "STORAGE", name), TPM2B_DIGEST(credential)) */
    d.size = (uint16_t)cred_len;
    memcpy(d.buffer, cred, cred_len);
    if (Tss2_MU_TPM2B_DIGEST_Marshal(&d, plain, sizeof(plain), &plen) != TSS2_RC_SUCCESS ||
        kdfa(name_alg, seed, dsize, "STORAGE", name, name_len, NULL, 0, aes_bits, sym) ||
        kdfa(name_alg, seed, dsize, "INTEGRITY", NULL, 0, NULL, 0, dsize * 8, hkey)) {
        errorf(err, errsz, "cannot derive the credential's keys");
        goto out;
    }
    cctx = EVP_CIPHER_CTX_new();
    /* the encrypted identity goes after the outer HMAC's TPM2B (2 + dsize bytes) */
    if (!cctx || !EVP_EncryptInit_ex(cctx, aes, NULL, sym, iv) ||
        !EVP_EncryptUpdate(cctx, blob->credential + 2 + dsize, &outl, plain, (int)plen) ||
        (size_t)outl != plen) {
        errorf(err, errsz, "AES-CFB encryption failed");
        goto out;
    }
    /* outerHMAC = HMAC(KDFa(seed, "INTEGRITY"), encIdentity || name) */
    memcpy(mac_in, blob->credential + 2 + dsize, plen);
    memcpy(mac_in + plen, name, name_len);
    d.size = (uint16_t)dsize;
    if (!HMAC(md, hkey, (int)dsize, mac_in, plen + name_len, d.buffer, &mlen) || mlen != dsize ||
        Tss2_MU_TPM2B_DIGEST_Marshal(&d, blob->credential, sizeof(blob->credential), &off) !=
            TSS2_RC_SUCCESS || off != 2 + dsize) {
        errorf(err, errsz, "HMAC of the credential failed");
        goto out;
    }
    blob->size = (uint16_t)(off + plen);
    rc = 0;
out:
    OPENSSL_cleanse(seed, sizeof(seed));
    OPENSSL_cleanse(sym, sizeof(sym));
    OPENSSL_cleanse(hkey, sizeof(hkey));
    OPENSSL_cleanse(plain, sizeof(plain));
    EVP_CIPHER_CTX_free(cctx);
    EVP_PKEY_CTX_free(pctx);
    return rc;
}
