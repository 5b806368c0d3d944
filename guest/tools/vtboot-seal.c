/* SPDX-License-Identifier: MIT */
/*
 * vtboot-seal: seals a secret to the current PCR 17 and 18 (SHA-256 bank) from inside the
 * guest, and unseals it later, with vtboot's own TPM code over /dev/tpm0. Tests use it to show
 * that what is sealed to a launched state does not unseal after the launch ended.
 *
 *   vtboot-seal seal              prints "sealed=<hex>" and "secret-sha256=<hex>"
 *   vtboot-seal unseal <hex>      prints "unseal=ok secret-sha256=<hex>" or
 *                                 "unseal=failed rc=0x<rc> <reason>", exit status 0 / 1
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crypto/hash.h"
#include "tpm/tpm2.h"
#include "tpmdev.h"
#include "tpm/tpm2_seal.h"

static const unsigned pcrs[] = { 17, 18 };

static void hex(const char *key, const uint8_t *p, size_t n)
{
    printf("%s=", key);
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
}

static int unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = strlen(s);
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    return (int)(n / 2);
}

static int seal(struct tpm2 *t)
{
    struct tpm_banks bank = { 1, { TPM_ALG_SHA256 } };
    struct tpm_digest_list d;
    uint8_t values[64], policy[TPM2_POLICY_DIGEST_SIZE], secret[32], digest[32];
    struct tpm2_sealed s;
    uint32_t primary;

    for (unsigned i = 0; i < 2; i++) {
        if (tpm2_pcr_read(t, pcrs[i], &bank, &d))
            return fprintf(stderr, "%s\n", t->err), 1;
        memcpy(values + 32 * i, d.d[0].bytes, 32);
    }
    tpm2_policy_pcr_digest(TPM_ALG_SHA256, pcrs, 2, values, policy);
    if (tpm2_get_random(t, secret, sizeof(secret)) || tpm2_create_storage_primary(t, &primary) ||
        tpm2_seal(t, primary, policy, secret, sizeof(secret), &s))
        return fprintf(stderr, "%s\n", t->err), 1;
    tpm2_flush_context(t, primary);
    uint8_t blob[4 + sizeof(s.private_area) + sizeof(s.public_area)];
    size_t n = 0;
    blob[n++] = (uint8_t)(s.private_size >> 8);
    blob[n++] = (uint8_t)s.private_size;
    memcpy(blob + n, s.private_area, s.private_size);
    n += s.private_size;
    blob[n++] = (uint8_t)(s.public_size >> 8);
    blob[n++] = (uint8_t)s.public_size;
    memcpy(blob + n, s.public_area, s.public_size);
    n += s.public_size;
    hash_buffer(TPM_ALG_SHA256, secret, sizeof(secret), digest);
    hex("sealed", blob, n);
    printf("\n");
    hex("secret-sha256", digest, sizeof(digest));
    printf("\n");
    return 0;
}

static int unseal(struct tpm2 *t, const char *arg)
{
    static uint8_t blob[4 + TPM2_SEALED_PRIVATE_MAX + TPM2_SEALED_PUBLIC_MAX];
    struct tpm2_sealed s;
    uint8_t secret[TPM2_SEAL_MAX], digest[32];
    uint32_t primary, item, session;
    uint16_t len;
    int n = unhex(arg, blob, sizeof(blob));
    if (n < 4)
        return fprintf(stderr, "bad blob\n"), 2;
    s.private_size = (uint16_t)(blob[0] << 8 | blob[1]);
    if (s.private_size > sizeof(s.private_area) || 2u + s.private_size + 2u > (unsigned)n)
        return fprintf(stderr, "bad blob\n"), 2;
    memcpy(s.private_area, blob + 2, s.private_size);
    const uint8_t *p = blob + 2 + s.private_size;
    s.public_size = (uint16_t)(p[0] << 8 | p[1]);
    if (s.public_size > sizeof(s.public_area) || 4u + s.private_size + s.public_size != (unsigned)n)
        return fprintf(stderr, "bad blob\n"), 2;
    memcpy(s.public_area, p + 2, s.public_size);

    int rc = tpm2_create_storage_primary(t, &primary);
    if (!rc)
        rc = tpm2_load(t, primary, &s, &item);
    if (!rc)
        rc = tpm2_start_policy_session(t, &session);
    if (!rc)
        rc = tpm2_policy_pcr(t, session, TPM_ALG_SHA256, pcrs, 2);
    if (!rc)
        rc = tpm2_unseal(t, item, session, secret, sizeof(secret), &len);
    if (rc) {
        printf("unseal=failed rc=0x%x %s\n", rc < 0 ? 0 : rc, t->err);
        return 1;
    }
    hash_buffer(TPM_ALG_SHA256, secret, len, digest);
    printf("unseal=ok ");
    hex("secret-sha256", digest, sizeof(digest));
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    int fd = open("/dev/tpm0", O_RDWR);
    struct tpm2 t = { .transmit = tpmdev_transmit, .ctx = &fd };
    if (fd < 0)
        return fprintf(stderr, "/dev/tpm0: %s\n", strerror(errno)), 2;
    if (argc == 2 && strcmp(argv[1], "seal") == 0)
        return seal(&t);
    if (argc == 3 && strcmp(argv[1], "unseal") == 0)
        return unseal(&t, argv[2]);
    fprintf(stderr, "usage: vtboot-seal seal | unseal <hex>\n");
    return 2;
}
