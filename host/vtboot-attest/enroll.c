/* SPDX-License-Identifier: MIT */
/*
 * vtboot-attest enroll: makes the attestation key and proves to the verifier that it lives in
 * the TPM whose EK the certificate names. Two parties, one process (both halves are kept
 * apart; the verifier's half uses only public data and OpenSSL):
 *
 *   TPM side       TPM2_Startup (a swtpm), the EK certificate from NV 0x01c00002 (or --ek-cert),
 *                  the EK (persistent 0x81010001, or the TCG default template as a primary),
 *                  the AK: a primary RSA 2048 restricted signing key (RSASSA-SHA256) in the
 *                  endorsement hierarchy, persisted at --ak-handle (an object there is evicted)
 *   verifier side  the EK certificate chains to --ca; the AK's public area is an AK
 *                  (restricted, sign, fixedTPM, ...); MakeCredential in software to the
 *                  certificate's key for the AK's name, with a random secret
 *   TPM side       TPM2_ActivateCredential(AK, EK) under the EK's policy (PolicySecret of the
 *                  endorsement hierarchy)
 *   verifier side  the secret came back: the AK is in the EK's TPM. The record is written.
 */
#include "attest.h"
#include "credential.h"
#include "log.h"
#include "tpm.h"
#include "tpmquote.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <unistd.h>
#include <openssl/core_names.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tss2/tss2_mu.h>

struct enroll {
    const char *tcti, *ca, *ca_chain, *out, *ek_cert_file, *owner_auth_file;
    uint32_t ak_handle;
    struct tpm tpm;
    X509 *ek_cert;
    EVP_PKEY *ek_key;
    TPM2B_PUBLIC *ek_pub, *ak_pub;
    ESYS_TR ek, ak;
    bool ek_transient;
    TPML_PCR_SELECTION banks;
};

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;

    printf("enroll: FAIL: ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    return -1;
}

/* the TCG default EK template (EK Credential Profile, RSA 2048, template L-1) */
static void ek_template(TPM2B_PUBLIC *t)
{
    static const uint8_t policy_a[32] = {
        0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8, 0x1a, 0x90, 0xcc, 0x8d, 0x46, 0xa5,
        0xd7, 0x24, 0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52, 0x0b, 0x64, 0xf2, 0xa1, 0xda, 0x1b,
        0x33, 0x14, 0x69, 0xaa,
    };

    memset(t, 0, sizeof(*t));
    t->publicArea.type = TPM2_ALG_RSA;
    t->publicArea.nameAlg = TPM2_ALG_SHA256;
    t->publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
                                     TPMA_OBJECT_SENSITIVEDATAORIGIN |
                                     TPMA_OBJECT_ADMINWITHPOLICY | TPMA_OBJECT_RESTRICTED |
                                     TPMA_OBJECT_DECRYPT;
    t->publicArea.authPolicy.size = 32;
    memcpy(t->publicArea.authPolicy.buffer, policy_a, 32);
    t->publicArea.parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_AES;
    t->publicArea.parameters.rsaDetail.symmetric.keyBits.aes = 128;
    t->publicArea.parameters.rsaDetail.symmetric.mode.aes = TPM2_ALG_CFB;
    t->publicArea.parameters.rsaDetail.scheme.scheme = TPM2_ALG_NULL;
    t->publicArea.parameters.rsaDetail.keyBits = 2048;
    t->publicArea.unique.rsa.size = 256;
}

static void ak_template(TPM2B_PUBLIC *t)
{
    memset(t, 0, sizeof(*t));
    t->publicArea.type = TPM2_ALG_RSA;
    t->publicArea.nameAlg = TPM2_ALG_SHA256;
    t->publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
                                     TPMA_OBJECT_SENSITIVEDATAORIGIN |
                                     TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_RESTRICTED |
                                     TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_NODA;
    t->publicArea.parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_NULL;
    t->publicArea.parameters.rsaDetail.scheme.scheme = TPM2_ALG_RSASSA;
    t->publicArea.parameters.rsaDetail.scheme.details.rsassa.hashAlg = TPM2_ALG_SHA256;
    t->publicArea.parameters.rsaDetail.keyBits = 2048;
}

static int create_primary(struct enroll *e, TPM2B_PUBLIC *tmpl, ESYS_TR *tr, TPM2B_PUBLIC **pub,
                          const char *what)
{
    TPM2B_SENSITIVE_CREATE sens = { 0 };
    TPM2B_DATA outside = { 0 };
    TPML_PCR_SELECTION none = { 0 };
    TSS2_RC rc = Esys_CreatePrimary(e->tpm.esys, ESYS_TR_RH_ENDORSEMENT, ESYS_TR_PASSWORD,
                                    ESYS_TR_NONE, ESYS_TR_NONE, &sens, tmpl, &outside, &none, tr,
                                    pub, NULL, NULL, NULL);

    if (rc != TSS2_RC_SUCCESS) {
        tpm_fail(&e->tpm, what, rc);
        return fail("%s", e->tpm.err);
    }
    return 0;
}

/* TPM side: the EK certificate, the EK, the AK (persisted) */
static int tpm_side(struct enroll *e)
{
    char err[512];
    TPM2B_PUBLIC tmpl;
    ESYS_TR old, transient;
    TSS2_RC rc;

    if (tpm_banks(&e->tpm, &e->banks))
        return fail("%s", e->tpm.err);
    if (e->ek_cert_file) {
        e->ek_cert = cert_load(e->ek_cert_file, err, sizeof(err));
        if (!e->ek_cert)
            return fail("%s", err);
    } else {
        uint8_t *der;
        size_t len;
        const unsigned char *p;

        if (tpm_nv_read(&e->tpm, ATTEST_EK_CERT_NV, &der, &len))
            return fail("no EK certificate in the TPM (%s): make the state with swtpm_setup "
                        "--create-ek-cert", e->tpm.err);
        p = der;
        e->ek_cert = d2i_X509(NULL, &p, (long)len);
        free(der);
        if (!e->ek_cert)
            return fail("NV index 0x%08x does not hold an X.509 certificate", ATTEST_EK_CERT_NV);
    }
    if (tpm_persistent(&e->tpm, ATTEST_EK_HANDLE, &e->ek, &e->ek_pub)) {
        ek_template(&tmpl);
        if (create_primary(e, &tmpl, &e->ek, &e->ek_pub, "creating the EK"))
            return -1;
        e->ek_transient = true;
    }

    /* TPM2_EvictControl needs the owner's authorization (vtboot-qemu keeps it with the state) */
    if (e->owner_auth_file) {
        TPM2B_AUTH auth = { 0 };
        size_t n;
        uint8_t *a = file_read_all(e->owner_auth_file, &n, sizeof(auth.buffer) + 1);

        if (!a)
            return fail("--owner-auth %s: %s (at most %zu bytes)", e->owner_auth_file,
                        strerror(errno), sizeof(auth.buffer));
        auth.size = (UINT16)n;
        memcpy(auth.buffer, a, n);
        explicit_bzero(a, n);
        free(a);
        rc = Esys_TR_SetAuth(e->tpm.esys, ESYS_TR_RH_OWNER, &auth);
        explicit_bzero(&auth, sizeof(auth));
        if (rc != TSS2_RC_SUCCESS) {
            tpm_fail(&e->tpm, "the owner authorization", rc);
            return fail("%s", e->tpm.err);
        }
    }
    /* the AK: a fresh primary key, persisted where an older one is evicted */
    if (tpm_persistent(&e->tpm, e->ak_handle, &old, NULL) == 0) {
        ESYS_TR gone;

        rc = Esys_EvictControl(e->tpm.esys, ESYS_TR_RH_OWNER, old, ESYS_TR_PASSWORD, ESYS_TR_NONE,
                               ESYS_TR_NONE, e->ak_handle, &gone);
        if (rc != TSS2_RC_SUCCESS) {
            tpm_fail(&e->tpm, "evicting the old object", rc);
            return fail("0x%08x is taken: %s", e->ak_handle, e->tpm.err);
        }
    }
    ak_template(&tmpl);
    if (create_primary(e, &tmpl, &transient, &e->ak_pub, "creating the AK"))
        return -1;
    rc = Esys_EvictControl(e->tpm.esys, ESYS_TR_RH_OWNER, transient, ESYS_TR_PASSWORD,
                           ESYS_TR_NONE, ESYS_TR_NONE, e->ak_handle, &e->ak);
    Esys_FlushContext(e->tpm.esys, transient);
    if (rc != TSS2_RC_SUCCESS) {
        tpm_fail(&e->tpm, "persisting the AK", rc);
        return fail("%s", e->tpm.err);
    }
    return 0;
}

/* TPM side: TPM2_ActivateCredential under the EK's policy */
static int activate(struct enroll *e, const TPM2B_ID_OBJECT *blob,
                    const TPM2B_ENCRYPTED_SECRET *secret, TPM2B_DIGEST **got)
{
    TPMT_SYM_DEF sym = { .algorithm = TPM2_ALG_NULL };
    ESYS_TR sess = ESYS_TR_NONE;
    TSS2_RC rc;

    rc = Esys_StartAuthSession(e->tpm.esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                               ESYS_TR_NONE, ESYS_TR_NONE, NULL, TPM2_SE_POLICY, &sym,
                               TPM2_ALG_SHA256, &sess);
    if (rc == TSS2_RC_SUCCESS)
        rc = Esys_PolicySecret(e->tpm.esys, ESYS_TR_RH_ENDORSEMENT, sess, ESYS_TR_PASSWORD,
                               ESYS_TR_NONE, ESYS_TR_NONE, NULL, NULL, NULL, 0, NULL, NULL);
    if (rc != TSS2_RC_SUCCESS) {
        if (sess != ESYS_TR_NONE)
            Esys_FlushContext(e->tpm.esys, sess);
        return tpm_fail(&e->tpm, "the EK's policy session", rc);
    }
    rc = Esys_ActivateCredential(e->tpm.esys, e->ak, e->ek, ESYS_TR_PASSWORD, sess, ESYS_TR_NONE,
                                 blob, secret, got);
    Esys_FlushContext(e->tpm.esys, sess);
    if (rc != TSS2_RC_SUCCESS)
        return tpm_fail(&e->tpm, "TPM2_ActivateCredential", rc);
    return 0;
}

static bool same_rsa_key(EVP_PKEY *k, const TPMT_PUBLIC *p)
{
    BIGNUM *n = NULL;
    uint8_t buf[512];
    int len;
    bool same;

    if (p->type != TPM2_ALG_RSA || !EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_RSA_N, &n))
        return false;
    len = BN_bn2bin(n, buf);
    same = len == p->unique.rsa.size && !memcmp(buf, p->unique.rsa.buffer, (size_t)len);
    BN_free(n);
    return same;
}

static int write_record(struct enroll *e, const uint8_t *name, size_t name_len)
{
    char *path, hex[2 * sizeof(TPMU_NAME) + 1], banks[64], line[2 * sizeof(TPMU_NAME) + 8];
    uint8_t buf[sizeof(TPM2B_PUBLIC)];
    size_t off = 0;
    EVP_PKEY *pk;
    BIO *b;
    int rc = 0;

    if (mkdir_p(e->out, 0755))
        return fail("cannot make %s", e->out);
    if (Tss2_MU_TPM2B_PUBLIC_Marshal(e->ak_pub, buf, sizeof(buf), &off) != TSS2_RC_SUCCESS)
        return fail("cannot marshal the AK");
    path = xasprintf("%s/%s", e->out, REC_AK_PUB);
    rc |= file_write_all(path, buf, off);
    free(path);

    hex_encode(name, name_len, hex);
    snprintf(line, sizeof(line), "%s\n", hex);
    path = xasprintf("%s/%s", e->out, REC_AK_NAME);
    rc |= file_write_all(path, line, strlen(line));
    free(path);

    snprintf(line, sizeof(line), "0x%08x\n", e->ak_handle);
    path = xasprintf("%s/%s", e->out, REC_AK_HANDLE);
    rc |= file_write_all(path, line, strlen(line));
    free(path);

    pcrsel_banks_str(&e->banks, banks, sizeof(banks));
    snprintf(line, sizeof(line), "%s\n", banks);
    path = xasprintf("%s/%s", e->out, REC_BANKS);
    rc |= file_write_all(path, line, strlen(line));
    free(path);

    path = xasprintf("%s/%s", e->out, REC_AK_PEM);
    pk = public_pkey(&e->ak_pub->publicArea, line, sizeof(line));
    b = pk ? BIO_new_file(path, "w") : NULL;
    rc |= !(b && PEM_write_bio_PUBKEY(b, pk));
    BIO_free(b);
    EVP_PKEY_free(pk);
    free(path);

    path = xasprintf("%s/%s", e->out, REC_EK_CERT);
    b = BIO_new_file(path, "w");
    rc |= !(b && PEM_write_bio_X509(b, e->ek_cert));
    BIO_free(b);
    free(path);

    path = xasprintf("%s/%s", e->out, REC_EK_CHAIN);
    if (e->ca_chain) {
        size_t len;
        uint8_t *chain = file_read_all(e->ca_chain, &len, 1 << 20);

        rc |= !chain || file_write_all(path, chain, len);
        free(chain);
    } else {
        unlink(path);
    }
    free(path);
    return rc ? fail("cannot write the record in %s", e->out) : 0;
}

static int enroll(struct enroll *e)
{
    char err[512], subj[256], issuer[256];
    uint8_t name[2 + 64], cred[32];
    size_t name_len;
    TPM2B_ID_OBJECT blob;
    TPM2B_ENCRYPTED_SECRET secret;
    TPM2B_DIGEST *got = NULL;
    const TPMT_PUBLIC *ekp;
    unsigned aes_bits;
    int rc;

    if (tpm_open(&e->tpm, e->tcti))
        return fail("%s", e->tpm.err);
    if (tpm_side(e))
        return -1;

    /* verifier: the EK certificate */
    cert_subject(e->ek_cert, subj, sizeof(subj), false);
    cert_subject(e->ek_cert, issuer, sizeof(issuer), true);
    if (cert_verify(e->ek_cert, e->ca, e->ca_chain, err, sizeof(err)))
        return fail("the EK certificate (%s, issued by %s) does not chain to the CA %s: %s", subj,
                    issuer, e->ca, err);
    printf("enroll: EK certificate: %s, issued by %s, chains to the CA %s\n", subj, issuer, e->ca);
    e->ek_key = X509_get_pubkey(e->ek_cert);
    if (!e->ek_key || EVP_PKEY_get_base_id(e->ek_key) != EVP_PKEY_RSA)
        return fail("the EK certificate's key is not an RSA key (only RSA EKs are supported)");

    /* verifier: the AK is an attestation key; its name */
    if (ak_check(&e->ak_pub->publicArea, err, sizeof(err)))
        return fail("the AK is not an attestation key: %s", err);
    if (public_name(&e->ak_pub->publicArea, name, &name_len))
        return fail("cannot compute the AK's name");
    {
        char hex[2 * sizeof(name) + 1];

        hex_encode(name, name_len, hex);
        printf("enroll: AK 0x%08x: RSA 2048, restricted signing (RSASSA-SHA256), name %s\n",
               e->ak_handle, hex);
    }

    /* verifier: the credential, to the certificate's key, for the AK's name; the EK's name
     * algorithm and AES key size come from its public area (the TCG default: SHA-256, AES-128) */
    ekp = &e->ek_pub->publicArea;
    aes_bits = ekp->parameters.rsaDetail.symmetric.algorithm == TPM2_ALG_AES
                   ? ekp->parameters.rsaDetail.symmetric.keyBits.aes : 0;
    if (RAND_bytes(cred, sizeof(cred)) != 1)
        return fail("no random credential from OpenSSL");
    if (credential_make(e->ek_key, ekp->nameAlg, aes_bits, name, name_len, cred, sizeof(cred),
                        &blob, &secret, err, sizeof(err)))
        return fail("MakeCredential: %s", err);

    /* TPM: activate; verifier: compare */
    rc = activate(e, &blob, &secret, &got);
    if (rc || got->size != sizeof(cred) || memcmp(got->buffer, cred, sizeof(cred))) {
        bool same = same_rsa_key(e->ek_key, ekp);

        Esys_Free(got);
        return fail("the TPM could not activate the credential: the AK is not proven to be in "
                    "the TPM of the certified EK (%s%s)",
                    rc ? e->tpm.err : "a different secret came back",
                    same ? "" : "; the TPM's EK is not the certificate's key");
    }
    Esys_Free(got);
    printf("enroll: credential activated: the AK is in the TPM that holds the certified EK\n");
    if (write_record(e, name, name_len))
        return -1;
    {
        char banks[64];

        pcrsel_banks_str(&e->banks, banks, sizeof(banks));
        printf("enroll: ENROLLED: the record is in %s (PCR banks %s)\n", e->out, banks);
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
"usage: vtboot-attest enroll --ca ROOT.pem --out DIR [--tpm TCTI] [--ca-chain PEM]\n"
"                            [--ak-handle 0x81010002] [--ek-cert FILE] [--owner-auth FILE]\n"
"Creates an attestation key (RSA 2048, restricted signing, RSASSA-SHA256) in the TPM,\n"
"persists it at --ak-handle, and proves with TPM2_MakeCredential (done by the verifier in\n"
"software) and TPM2_ActivateCredential that it is in the TPM whose EK certificate (NV\n"
"0x01c00002, or --ek-cert) chains to ROOT.pem (intermediates from --ca-chain). Then writes\n"
"the enrollment record to DIR for verify. TCTI: device:/dev/tpmrm0 (default) or\n"
"swtpm:path=SOCKET. --owner-auth: the owner authorization (the file's bytes; vtboot-qemu's\n"
"vtboot-owner.auth in the TPM state directory), which persisting the AK needs. Exit 0 when\n"
"enrolled, 1 with an \"enroll: FAIL: ...\" line, 2 usage.\n");
}

int cmd_enroll(int argc, char **argv)
{
    enum { O_TPM = 256, O_CA, O_CA_CHAIN, O_OUT, O_AK_HANDLE, O_EK_CERT, O_OWNER_AUTH };
    static const struct option lo[] = {
        { "tpm", required_argument, NULL, O_TPM },
        { "ca", required_argument, NULL, O_CA },
        { "ca-chain", required_argument, NULL, O_CA_CHAIN },
        { "out", required_argument, NULL, O_OUT },
        { "ak-handle", required_argument, NULL, O_AK_HANDLE },
        { "ek-cert", required_argument, NULL, O_EK_CERT },
        { "owner-auth", required_argument, NULL, O_OWNER_AUTH },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct enroll e = { .ak_handle = ATTEST_AK_HANDLE };
    int c, rc;

    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case O_TPM: e.tcti = optarg; break;
        case O_CA: e.ca = optarg; break;
        case O_CA_CHAIN: e.ca_chain = optarg; break;
        case O_OUT: e.out = optarg; break;
        case O_EK_CERT: e.ek_cert_file = optarg; break;
        case O_OWNER_AUTH: e.owner_auth_file = optarg; break;
        case O_AK_HANDLE:
            if (parse_handle(optarg, &e.ak_handle)) {
                fprintf(stderr, "vtboot-attest: --ak-handle: a persistent handle 0x81xxxxxx\n");
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc || !e.out || !e.ca) {
        usage(stderr);
        return 2;
    }
    rc = enroll(&e);
    if (e.ek_transient)
        Esys_FlushContext(e.tpm.esys, e.ek);
    tpm_close(&e.tpm);
    X509_free(e.ek_cert);
    EVP_PKEY_free(e.ek_key);
    Esys_Free(e.ek_pub);
    Esys_Free(e.ak_pub);
    fflush(stdout);
    return rc ? 1 : 0;
}
