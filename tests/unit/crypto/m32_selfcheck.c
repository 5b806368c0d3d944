/* SPDX-License-Identifier: MIT */
/*
 * The crypto paths as vtboot runs them: built with vtboot's own flags (-m32 -march=i686
 * -ffreestanding -mgeneral-regs-only, 8 vector registers), linked without libc, run as a
 * 32-bit Linux process. Checks the portable code against known answers (FIPS 180-4 examples,
 * RFC 8439 §2.5.2), then every SIMD path this CPU has against the portable code: every length
 * 0..700 at four alignments, large buffers, random splits of a stream, and calls made with a
 * stack misaligned by 4, 8 and 12 bytes (vtboot's stack keeps no 16-byte alignment).
 *
 * Not a cmocka test (there is no 32-bit libcmocka); it prints cmocka's summary lines so that
 * tests/unit/run.sh counts it, and exits non-zero on any failure. Under QEMU TCG
 * (qemu-i386 -cpu max PROGRAM) it checks the paths TCG reports. Arguments: none.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/cpu.h"
#include "crypto/hash.h"
#include "crypto/poly1305.h"
#include "lib/string.h"

/* ---- a minimal runtime: _start, write, exit ---- */

int main32(void);

__asm__(".text\n"
        ".globl _start\n"
        "_start:\n"
        "    andl $-16, %esp\n"
        "    call main32\n"
        "    movl %eax, %ebx\n"
        "    movl $1, %eax\n"             /* exit */
        "    int $0x80\n"
        "    hlt\n"
        /* void misaligned_call(void (*fn)(void *), void *arg, unsigned mis): fn(arg) with
           the stack at the call mis bytes off 16-byte alignment */
        ".globl misaligned_call\n"
        "misaligned_call:\n"
        "    pushl %ebp\n"
        "    movl %esp, %ebp\n"
        "    andl $-16, %esp\n"
        "    subl 16(%ebp), %esp\n"
        "    subl $12, %esp\n"
        "    pushl 12(%ebp)\n"
        "    call *8(%ebp)\n"
        "    movl %ebp, %esp\n"
        "    popl %ebp\n"
        "    ret\n");

void misaligned_call(void (*fn)(void *), void *arg, unsigned mis);

static void sys_write(const char *s, size_t n)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(4), "b"(1), "c"(s), "d"(n) : "memory");
    (void)ret;
}

static void puts_(const char *s)
{
    sys_write(s, strlen(s));
}

static void putu(unsigned long v)
{
    char b[16];
    int i = sizeof(b);
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    sys_write(b + i, sizeof(b) - (size_t)i);
}

/* ---- test data ---- */

static uint32_t rng = 0x76746274;

static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

enum { BIG = (1 << 20) + 77 };
static uint8_t data[BIG + 64];
static unsigned checks, failures;

static void fail(const char *what, const char *alg, const char *impl, size_t len)
{
    failures++;
    if (failures > 20)
        return;
    puts_("FAIL: ");
    puts_(what);
    puts_(" ");
    puts_(alg);
    puts_(" ");
    puts_(impl);
    puts_(" length ");
    putu(len);
    puts_("\n");
}

static int unhex(const char *h, uint8_t *out)
{
    int n = 0;
    for (; h[0] && h[1]; h += 2) {
        int hi = h[0] <= '9' ? h[0] - '0' : h[0] - 'a' + 10;
        int lo = h[1] <= '9' ? h[1] - '0' : h[1] - 'a' + 10;
        out[n++] = (uint8_t)(hi << 4 | lo);
    }
    return n;
}

/* ---- known answers (portable code) ---- */

static void known_answers(void)
{
    static const struct {
        uint16_t alg;
        const char *digest;
    } abc[] = {
        { TPM_ALG_SHA1, "a9993e364706816aba3e25717850c26c9cd0d89d" },
        { TPM_ALG_SHA256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
        { TPM_ALG_SHA384, "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
                          "8086072ba1e7cc2358baeca134c825a7" },
        { TPM_ALG_SHA512, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                          "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f" },
    };
    uint8_t want[64], got[64];

    for (unsigned i = 0; i < sizeof(abc) / sizeof(abc[0]); i++) {
        int n = unhex(abc[i].digest, want);
        hash_buffer(abc[i].alg, "abc", 3, got);
        checks++;
        if (memcmp(got, want, (size_t)n))
            fail("known answer", tpm_hash_name(abc[i].alg), "portable", 3);
    }
    /* RFC 8439 §2.5.2 */
    uint8_t key[32], tag[16];
    unhex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b", key);
    unhex("a8061dc1305136c6c22b8baf0c0127a9", want);
    poly1305_mac(key, "Cryptographic Forum Research Group", 34, tag);
    checks++;
    if (memcmp(tag, want, 16))
        fail("known answer", "poly1305", "portable", 34);
}

/* ---- one computation, through whichever path is installed ---- */

static const uint16_t hash_algs[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
                                      TPM_ALG_SHA512 };
static const uint8_t mac_key[32] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                     1,    2,    3,    4,    5,    6,    7,    8,
                                     9,    10,   11,   12,   13,   14,   15,   16 };

struct job {
    int which;                          /* 0..3: hash_algs[which]; 4: poly1305 */
    const uint8_t *p;
    size_t len;
    uint8_t out[64];
};

static void run_job(void *arg)
{
    struct job *j = arg;
    if (j->which < 4)
        hash_buffer(hash_algs[j->which], j->p, j->len, j->out);
    else
        poly1305_mac(mac_key, j->p, j->len, j->out);
}

/* The same, streamed in random pieces. */
static void run_streamed(struct job *j)
{
    size_t off = 0;
    struct hash_ctx h;
    struct poly1305_ctx m;

    if (j->which < 4)
        hash_init(&h, hash_algs[j->which]);
    else
        poly1305_init(&m, mac_key);
    while (off < j->len) {
        size_t k = rnd() % 3 ? rnd() % 300 : rnd() % (j->len - off + 1);
        if (k > j->len - off)
            k = j->len - off;
        if (j->which < 4)
            hash_update(&h, j->p + off, k);
        else
            poly1305_update(&m, j->p + off, k);
        off += k;
    }
    if (j->which < 4)
        hash_final(&h, j->out);
    else
        poly1305_final(&m, j->out);
}

static enum crypto_alg alg_of(int which)
{
    static const enum crypto_alg a[] = { CRYPTO_ALG_SHA1, CRYPTO_ALG_SHA256, CRYPTO_ALG_SHA512,
                                         CRYPTO_ALG_SHA512, CRYPTO_ALG_POLY1305 };
    return a[which];
}

static const char *name_of(int which)
{
    return which < 4 ? tpm_hash_name(hash_algs[which]) : "poly1305";
}

/* Compares path impl with the portable code on one input; size = output bytes. */
static void compare(int which, enum crypto_impl impl, const uint8_t *p, size_t len, int how)
{
    static const size_t sizes[] = { 20, 32, 48, 64, 16 };
    struct job ref = { which, p, len, { 0 } }, got = { which, p, len, { 0 } };
    enum crypto_alg alg = alg_of(which);

    crypto_set_impl(alg, CRYPTO_IMPL_PORTABLE);
    run_job(&ref);
    crypto_set_impl(alg, impl);
    if (how == 0)
        run_job(&got);
    else if (how == 1)
        run_streamed(&got);
    else
        misaligned_call(run_job, &got, (unsigned)(how - 1) * 4);   /* 4, 8, 12 */
    crypto_set_impl(alg, CRYPTO_IMPL_PORTABLE);
    checks++;
    if (memcmp(ref.out, got.out, sizes[which]))
        fail(how == 0 ? "one-shot" : how == 1 ? "streamed" : "misaligned stack", name_of(which),
             crypto_impl_name(impl), len);
}

int main32(void)
{
    struct cpu_features f;
    unsigned paths = 0;

    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)rnd();
    known_answers();

    cpu_features_read(&f, true);        /* a Linux process: the kernel enabled SSE (and AVX) */
    puts_("m32: ");
    puts_(f.tcg ? "QEMU TCG; " : "");
    for (int which = 0; which < 5; which++) {
        for (int impl = CRYPTO_IMPL_SSE2; impl < CRYPTO_IMPL_COUNT; impl++) {
            if (!crypto_impl_usable(&f, alg_of(which), (enum crypto_impl)impl))
                continue;
            paths++;
            puts_(name_of(which));
            puts_("=");
            puts_(crypto_impl_name((enum crypto_impl)impl));
            puts_(" ");
            for (size_t len = 0; len <= 700; len++)
                for (unsigned a = 0; a < 4; a++)
                    compare(which, (enum crypto_impl)impl, data + a, len, 0);
            for (int k = 0; k < 30; k++) {
                size_t len = rnd() % 20000;
                compare(which, (enum crypto_impl)impl, data + rnd() % 64, len, 1);
            }
            for (int how = 2; how <= 4; how++)
                compare(which, (enum crypto_impl)impl, data + 1, 4096 + 17, how);
            compare(which, (enum crypto_impl)impl, data + 3, BIG, 0);
            compare(which, (enum crypto_impl)impl, data, BIG - 77, 0);
        }
    }
    puts_("\nm32: ");
    putu(paths);
    puts_(" SIMD paths, ");
    putu(checks);
    puts_(" checks, ");
    putu(failures);
    puts_(" failures\n");
    /* cmocka's summary lines, which tests/unit/run.sh counts */
    puts_("[==========] 1 test(s) run.\n");
    puts_(failures ? "[  FAILED  ] 1 test(s).\n" : "[  PASSED  ] 1 test(s).\n");
    return failures != 0;
}
