/* SPDX-License-Identifier: MIT */
/*
 * Differential fuzzing of every crypto implementation path this CPU can run (SHA-1/256/384/512:
 * portable, SHA-NI, AVX2; Poly1305: portable, SSE2, AVX2, AVX-512) against the portable code,
 * and of the portable code against OpenSSL when the target is linked with libcrypto (it is:
 * tests/fuzz.mk; the references are weak, so it also links without). Also hash_multi against
 * one hash per bank.
 *
 * Input: byte 0: repeat count - 1, mod 4 (the message is the payload, at most 1 KiB, repeated
 * up to 4 times, so that short inputs reach the multi-block vector loops: the widest, AVX-512
 * Poly1305, takes 512 bytes a step; longer messages only slowed the run down); byte 1: alignment
 * (0..63) and split-point seed; bytes 2..33: the Poly1305 key; the rest: the payload.
 */
#include "fuzz_common.h"

#include <openssl/evp.h>

#include "crypto/cpu.h"
#include "crypto/hash.h"
#include "crypto/poly1305.h"

#pragma weak EVP_Digest
#pragma weak EVP_sha1
#pragma weak EVP_sha256
#pragma weak EVP_sha384
#pragma weak EVP_sha512
#pragma weak EVP_MAC_fetch
#pragma weak EVP_MAC_CTX_new
#pragma weak EVP_MAC_CTX_free
#pragma weak EVP_MAC_init
#pragma weak EVP_MAC_update
#pragma weak EVP_MAC_final

enum { MAXPAYLOAD = 1024, MAXREPEAT = 4, MAXMSG = MAXPAYLOAD * MAXREPEAT + 64 };

static struct cpu_features cpu;
static uint8_t *msgbuf;
static EVP_MAC *mac;

static const uint16_t algs[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384, TPM_ALG_SHA512 };
static const enum crypto_alg which[] = { CRYPTO_ALG_SHA1, CRYPTO_ALG_SHA256, CRYPTO_ALG_SHA512,
                                         CRYPTO_ALG_SHA512 };

/* Split points from a small xorshift seeded by the input. */
static uint32_t split_state;

static size_t next_piece(size_t left)
{
    split_state ^= split_state << 13;
    split_state ^= split_state >> 17;
    split_state ^= split_state << 5;
    size_t k = split_state % 4 == 0 ? left : split_state % 700;
    return k < left ? k : left;
}

static void hash_streamed(uint16_t alg, const uint8_t *p, size_t len, uint8_t *out)
{
    struct hash_ctx ctx;
    FUZZ_ASSERT(hash_init(&ctx, alg) == 0, "hash_init");
    for (size_t off = 0; off < len;) {
        size_t k = next_piece(len - off);
        hash_update(&ctx, p + off, k);
        off += k;
    }
    hash_final(&ctx, out);
}

static void mac_streamed(const uint8_t key[32], const uint8_t *p, size_t len, uint8_t tag[16])
{
    struct poly1305_ctx ctx;
    poly1305_init(&ctx, key);
    for (size_t off = 0; off < len;) {
        size_t k = next_piece(len - off);
        poly1305_update(&ctx, p + off, k);
        off += k;
    }
    poly1305_final(&ctx, tag);
}

static const EVP_MD *md_of(uint16_t alg)
{
    return alg == TPM_ALG_SHA1     ? EVP_sha1()
           : alg == TPM_ALG_SHA256 ? EVP_sha256()
           : alg == TPM_ALG_SHA384 ? EVP_sha384()
                                   : EVP_sha512();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t ref[HASH_MAX_DIGEST_SIZE], got[HASH_MAX_DIGEST_SIZE], key[32];
    uint8_t multi[4][HASH_MAX_DIGEST_SIZE];
    uint8_t *outs[4] = { multi[0], multi[1], multi[2], multi[3] };

    if (!msgbuf) {
        cpu_features_read(&cpu, true);
        msgbuf = malloc(MAXMSG);
        FUZZ_ASSERT(msgbuf != NULL, "malloc");
        if (EVP_MAC_fetch)
            mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
    }
    if (size < 34)
        return 0;
    unsigned repeat = data[0] % MAXREPEAT + 1u, align = data[1] & 63;
    uint32_t seed = data[1];
    memcpy(key, data + 2, 32);
    data += 34;
    size -= 34;
    if (size > MAXPAYLOAD)
        size = MAXPAYLOAD;
    size_t len = size * repeat;
    uint8_t *msg = msgbuf + align;
    for (unsigned r = 0; r < repeat; r++)
        memcpy(msg + r * size, data, size);

    /* the hashes: every path against the portable one; the portable one against OpenSSL */
    for (size_t a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
        size_t n = tpm_hash_size(algs[a]);
        crypto_set_impl(which[a], CRYPTO_IMPL_PORTABLE);
        hash_buffer(algs[a], msg, len, ref);
        if (EVP_Digest) {
            unsigned int olen = 0;
            FUZZ_ASSERT(EVP_Digest(msg, len, got, &olen, md_of(algs[a]), NULL) == 1, "EVP");
            FUZZ_ASSERT(olen == n && !memcmp(got, ref, n), "%s portable != OpenSSL, len %zu",
                        tpm_hash_name(algs[a]), len);
        }
        for (int impl = 0; impl < CRYPTO_IMPL_COUNT; impl++) {
            if (!crypto_impl_usable(&cpu, which[a], (enum crypto_impl)impl))
                continue;
            FUZZ_ASSERT(crypto_set_impl(which[a], (enum crypto_impl)impl) == 0, "set_impl");
            hash_buffer(algs[a], msg, len, got);
            FUZZ_ASSERT(!memcmp(got, ref, n), "%s %s one-shot differs, len %zu",
                        tpm_hash_name(algs[a]), crypto_impl_name(impl), len);
            split_state = 0x9e3779b9u ^ seed ^ (uint32_t)len;
            hash_streamed(algs[a], msg, len, got);
            FUZZ_ASSERT(!memcmp(got, ref, n), "%s %s streamed differs, len %zu",
                        tpm_hash_name(algs[a]), crypto_impl_name(impl), len);
        }
    }

    /* one pass for all banks, with the paths crypto_select picks */
    crypto_select(&cpu);
    FUZZ_ASSERT(hash_multi(algs, 4, msg, len, outs) == 0, "hash_multi");
    for (size_t a = 0; a < 4; a++) {
        hash_buffer(algs[a], msg, len, ref);
        FUZZ_ASSERT(!memcmp(multi[a], ref, tpm_hash_size(algs[a])), "hash_multi %s differs",
                    tpm_hash_name(algs[a]));
    }

    /* Poly1305 */
    crypto_set_impl(CRYPTO_ALG_POLY1305, CRYPTO_IMPL_PORTABLE);
    poly1305_mac(key, msg, len, ref);
    if (mac) {
        EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
        size_t olen = 0;
        FUZZ_ASSERT(ctx && EVP_MAC_init(ctx, key, 32, NULL) == 1 &&
                        EVP_MAC_update(ctx, msg, len) == 1 &&
                        EVP_MAC_final(ctx, got, &olen, 16) == 1 && olen == 16,
                    "EVP_MAC");
        EVP_MAC_CTX_free(ctx);
        FUZZ_ASSERT(!memcmp(got, ref, 16), "poly1305 portable != OpenSSL, len %zu", len);
    }
    for (int impl = 0; impl < CRYPTO_IMPL_COUNT; impl++) {
        if (!crypto_impl_usable(&cpu, CRYPTO_ALG_POLY1305, (enum crypto_impl)impl))
            continue;
        FUZZ_ASSERT(crypto_set_impl(CRYPTO_ALG_POLY1305, (enum crypto_impl)impl) == 0, "set");
        poly1305_mac(key, msg, len, got);
        FUZZ_ASSERT(!memcmp(got, ref, 16), "poly1305 %s one-shot differs, len %zu",
                    crypto_impl_name(impl), len);
        split_state = 0x7f4a7c15u ^ seed ^ (uint32_t)len;
        mac_streamed(key, msg, len, got);
        FUZZ_ASSERT(!memcmp(got, ref, 16), "poly1305 %s streamed differs, len %zu",
                    crypto_impl_name(impl), len);
    }
    crypto_select_portable();
    return 0;
}
