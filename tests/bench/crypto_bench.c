/* SPDX-License-Identifier: MIT */
/*
 * Throughput of our SHA-1/256/384/512 and Poly1305 (src/crypto/, with the paths crypto_select
 * picks for this CPU) against OpenSSL's libcrypto, measured side by side in one run, on 64 KiB
 * and 64 MiB buffers. Host build only. Prints a table and, with --json, writes the figures as
 * a list of {"figure", "ours", "reference", "unit", "ratio", "target", "better", "met"}.
 *
 * Build and run without make (from the top of the checkout):
 *
 *   mkdir -p out && cc -std=gnu11 -O2 -Iinclude -Isrc tests/bench/crypto_bench.c \
 *       src/crypto/[a-z]*.c src/lib/string.c -lcrypto -o out/crypto_bench && out/crypto_bench
 *
 * Usage: crypto_bench [--json FILE] [--portable] [SECONDS]
 *   SECONDS     time per implementation and size (default 0.7); ours and OpenSSL run
 *               alternately, 7 rounds each, and each one's best round is kept
 *   --portable  measure the portable C code instead of the selected paths
 *
 * OpenSSL uses assembly (SHA-NI, AVX2, AVX-512, ...) where the CPU has it; to see it without
 * SHA-NI, run with OPENSSL_ia32cap=":~0x20000000" (CPUID.7:EBX bit 29). MB is 10^6 bytes.
 * Nothing here asserts: `make test` has no timing checks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "crypto/cpu.h"
#include "crypto/hash.h"
#include "crypto/poly1305.h"

#define ROUNDS 7

static volatile uint8_t sink;
static double seconds_per_run = 0.7;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef void (*bench_fn)(const void *arg, const uint8_t *buf, size_t len, uint8_t *out);

/*
 * Runs a and b alternately, ROUNDS rounds of seconds_per_run / ROUNDS each (at least one call),
 * so that both see the same machine load; keeps each one's best MB/s.
 */
static void measure_pair(bench_fn fa, const void *arga, bench_fn fb, const void *argb,
                         const uint8_t *buf, size_t len, double *mbs_a, double *mbs_b)
{
    uint8_t out[EVP_MAX_MD_SIZE];

    *mbs_a = *mbs_b = 0;
    fa(arga, buf, len, out);             /* warm up */
    fb(argb, buf, len, out);
    for (int round = 0; round < ROUNDS; round++) {
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
            } while (t < seconds_per_run / ROUNDS);
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

struct figure {
    char name[64];
    double ours, reference, ratio, target;
    int met;
};

static void json_write(const char *path, const struct figure *f, size_t n)
{
    FILE *out = fopen(path, "w");

    if (!out) {
        perror(path);
        exit(2);
    }
    fprintf(out, "[\n");
    for (size_t i = 0; i < n; i++)
        fprintf(out,
                "  {\"figure\": \"%s\", \"ours\": %.1f, \"reference\": %.1f, \"unit\": \"MB/s\", "
                "\"ratio\": %.3f, \"target\": %.2f, \"better\": \"higher\", \"met\": %s}%s\n",
                f[i].name, f[i].ours, f[i].reference, f[i].ratio, f[i].target,
                f[i].met ? "true" : "false", i + 1 < n ? "," : "");
    fprintf(out, "]\n");
    if (fclose(out) != 0) {
        perror(path);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 64u << 10, 64u << 20 };
    static const char *const size_names[] = { "64KiB", "64MiB" };
    static const uint16_t algs[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
                                     TPM_ALG_SHA512 };
    /* ours / OpenSSL, issue 13's targets on the development machine */
    static const double targets[] = { 0.9, 0.9, 0.9, 0.9, 0.6 };
    const EVP_MD *mds[] = { EVP_sha1(), EVP_sha256(), EVP_sha384(), EVP_sha512() };
    const size_t nalgs = sizeof(algs) / sizeof(algs[0]);
    const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
    struct figure figs[(sizeof(algs) / sizeof(algs[0]) + 1) * 2];
    size_t nfigs = 0;
    const char *json = NULL;
    int portable = 0, unmet = 0;
    struct cpu_features cpu;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--portable"))
            portable = 1;
        else
            seconds_per_run = atof(argv[i]);
    }
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
    size_t maxlen = sizes[nsizes - 1];
    uint8_t *buf = malloc(maxlen);
    if (!buf || !mac || seconds_per_run <= 0) {
        fprintf(stderr, "usage: %s [--json FILE] [--portable] [SECONDS]\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < maxlen; i++)
        buf[i] = (uint8_t)(i * 2654435761u >> 13);

    cpu_features_read(&cpu, 1);         /* a host OS has SSE enabled */
    crypto_select(portable ? NULL : &cpu);
    printf("paths:");
    for (unsigned a = 0; a < CRYPTO_ALG_COUNT; a++)
        printf(" %s=%s", crypto_alg_label((enum crypto_alg)a),
               crypto_impl_name(crypto_current_impl((enum crypto_alg)a)));
    printf("   (MB/s, best of %d rounds, %.2f s per implementation and size)\n", ROUNDS,
           seconds_per_run);
    printf("%-30s %10s %10s %7s %7s %4s\n", "figure", "ours", "reference", "ratio", "target",
           "met");
    for (size_t a = 0; a <= nalgs; a++) {
        for (size_t s = 0; s < nsizes; s++) {
            struct figure *f = &figs[nfigs++];
            const char *name;
            if (a < nalgs) {
                name = tpm_hash_name(algs[a]);
                measure_pair(ours_hash, &algs[a], openssl_hash, mds[a], buf, sizes[s], &f->ours,
                             &f->reference);
            } else {
                name = "poly1305";
                measure_pair(ours_poly1305, NULL, openssl_poly1305, mac, buf, sizes[s],
                             &f->ours, &f->reference);
            }
            snprintf(f->name, sizeof(f->name), "%s %s MB/s vs OpenSSL", name, size_names[s]);
            f->ratio = f->ours / f->reference;
            f->target = targets[a];
            f->met = f->ratio >= f->target;
            unmet += !f->met;
            printf("%-30s %10.0f %10.0f %7.2f %7.2f %4s\n", f->name, f->ours, f->reference,
                   f->ratio, f->target, f->met ? "yes" : "NO");
            fflush(stdout);
        }
    }
    printf("bench: %zu figures, %zu met, %d not met\n", nfigs, nfigs - (size_t)unmet, unmet);
    if (json) {
        json_write(json, figs, nfigs);
        printf("bench: wrote %s\n", json);
    }
    EVP_MAC_free(mac);
    free(buf);
    return 0;
}
