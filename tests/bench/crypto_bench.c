/* SPDX-License-Identifier: MIT */
/*
 * Throughput of our SHA-1/256/384/512 and Poly1305 (src/crypto/) against OpenSSL's libcrypto,
 * measured side by side in one run, on 16 KiB and 1 MiB buffers. Host build only.
 *
 * Build and run without make (from the top of the checkout):
 *
 *   mkdir -p out && cc -std=gnu11 -O2 -Iinclude -Isrc tests/bench/crypto_bench.c \
 *       src/crypto/[a-z]*.c src/lib/string.c -lcrypto -o out/crypto_bench && out/crypto_bench
 *
 * Usage: crypto_bench [SECONDS]   (time per implementation and size, default 0.3; the two run
 *                                 alternately and each one's best round is kept)
 *
 * OpenSSL uses assembly (SHA-NI, AVX2, ...) where the CPU has it; to see it without SHA-NI, run
 * with OPENSSL_ia32cap=":~0x20000000" (CPUID.7:EBX bit 29). MB is 10^6 bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "crypto/hash.h"
#include "crypto/poly1305.h"

static volatile uint8_t sink;
static double seconds_per_run = 0.3;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef void (*bench_fn)(const void *arg, const uint8_t *buf, size_t len, uint8_t *out);

/*
 * Runs a and b alternately, 7 rounds of seconds_per_run / 7 each, so that both see the same
 * machine load; keeps each one's best MB/s.
 */
static void measure_pair(bench_fn fa, const void *arga, bench_fn fb, const void *argb,
                         const uint8_t *buf, size_t len, double *mbs_a, double *mbs_b)
{
    uint8_t out[EVP_MAX_MD_SIZE];

    *mbs_a = *mbs_b = 0;
    fa(arga, buf, len, out);             /* warm up */
    fb(argb, buf, len, out);
    for (int round = 0; round < 7; round++) {
        for (int which = 0; which < 2; which++) {
            bench_fn fn = which ? fb : fa;
            const void *arg = which ? argb : arga;
            double *best = which ? mbs_b : mbs_a;
            double t0 = now(), t;
            uint64_t iters = 0;
            do {
                fn(arg, buf, len, out);
                sink ^= out[0];
                iters++;
                t = now() - t0;
            } while (t < seconds_per_run / 7);
            double mbs = (double)iters * (double)len / t / 1e6;
            if (mbs > *best)
                *best = mbs;
        }
    }
}

static void ours_hash(const void *arg, const uint8_t *buf, size_t len, uint8_t *out)
{
    hash_buffer(*(const uint16_t *)arg, buf, len, out);
}

static void openssl_hash(const void *arg, const uint8_t *buf, size_t len, uint8_t *out)
{
    unsigned int n;
    EVP_Digest(buf, len, out, &n, (const EVP_MD *)arg, NULL);
}

static const uint8_t poly_key[32] = {
    0x85, 0xd6, 0xbe, 0x78, 0x57, 0x55, 0x6d, 0x33, 0x7f, 0x44, 0x52, 0xfe, 0x42, 0xd5, 0x06, 0xa8,
    0x01, 0x03, 0x80, 0x8a, 0xfb, 0x0d, 0xb2, 0xfd, 0x4a, 0xbf, 0xf6, 0xaf, 0x41, 0x49, 0xf5, 0x1b,
};

static void ours_poly1305(const void *arg, const uint8_t *buf, size_t len, uint8_t *out)
{
    (void)arg;
    poly1305_mac(poly_key, buf, len, out);
}

/* A fresh EVP_MAC_CTX per message, as a one-shot caller would; the fetch is done once. */
static void openssl_poly1305(const void *arg, const uint8_t *buf, size_t len, uint8_t *out)
{
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new((EVP_MAC *)arg);
    size_t n;
    EVP_MAC_init(ctx, poly_key, sizeof(poly_key), NULL);
    EVP_MAC_update(ctx, buf, len);
    EVP_MAC_final(ctx, out, &n, 16);
    EVP_MAC_CTX_free(ctx);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 16 * 1024, 1024 * 1024 };
    static const uint16_t algs[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
                                     TPM_ALG_SHA512 };
    const EVP_MD *mds[] = { EVP_sha1(), EVP_sha256(), EVP_sha384(), EVP_sha512() };
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
    size_t maxlen = sizes[1];
    uint8_t *buf = malloc(maxlen);

    if (argc > 1)
        seconds_per_run = atof(argv[1]);
    if (!buf || !mac || seconds_per_run <= 0) {
        fprintf(stderr, "usage: %s [SECONDS]\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < maxlen; i++)
        buf[i] = (uint8_t)(i * 2654435761u >> 13);

    printf("%-9s %8s %12s %14s %8s\n", "alg", "size", "ours MB/s", "openssl MB/s", "ratio");
    for (size_t a = 0; a <= sizeof(algs) / sizeof(algs[0]); a++) {
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            const char *name;
            double ours, theirs;
            if (a < sizeof(algs) / sizeof(algs[0])) {
                name = hash_alg_name(algs[a]);
                measure_pair(ours_hash, &algs[a], openssl_hash, mds[a], buf, sizes[s], &ours,
                             &theirs);
            } else {
                name = "poly1305";
                measure_pair(ours_poly1305, NULL, openssl_poly1305, mac, buf, sizes[s], &ours,
                             &theirs);
            }
            printf("%-9s %7zuK %12.0f %14.0f %8.2f\n", name, sizes[s] / 1024, ours, theirs,
                   ours / theirs);
            fflush(stdout);
        }
    }
    EVP_MAC_free(mac);
    free(buf);
    return 0;
}
