/* SPDX-License-Identifier: MIT */
/* The choice of implementation from CPUID/XCR0 bits, and the switch that installs it. */
#include "crypto/cpu.h"

#include "crypto/impl.h"

static bool has_sse2(const struct cpu_features *f)
{
    const uint32_t need = CPUID1_EDX_FXSR | CPUID1_EDX_SSE | CPUID1_EDX_SSE2;
    return f->sse_enabled && (f->edx1 & need) == need;
}

/* AVX state is usable: the CPU has AVX and XSAVE, the OS set OSXSAVE and XCR0's SSE+AVX. */
static bool has_avx_os(const struct cpu_features *f)
{
    const uint32_t need = CPUID1_ECX_XSAVE | CPUID1_ECX_OSXSAVE | CPUID1_ECX_AVX;
    const uint64_t state = XCR0_X87 | XCR0_SSE | XCR0_AVX;
    return has_sse2(f) && (f->ecx1 & need) == need && (f->xcr0 & state) == state;
}

bool crypto_impl_usable(const struct cpu_features *f, enum crypto_alg alg,
                        enum crypto_impl impl)
{
    const uint32_t ssse3_41 = CPUID1_ECX_SSSE3 | CPUID1_ECX_SSE41;
    /* SHA-512's rounds use BMI1's andn and BMI2's rorx */
    const uint32_t bmi = CPUID7_EBX_BMI1 | CPUID7_EBX_BMI2;

    if (impl == CRYPTO_IMPL_PORTABLE)
        return alg < CRYPTO_ALG_COUNT;
    if (!f || !crypto_impl_built(alg, impl))
        return false;
    switch (impl) {
    case CRYPTO_IMPL_SSE2:
        return has_sse2(f);
    case CRYPTO_IMPL_AVX2:
        if (!has_avx_os(f) || !(f->ebx7 & CPUID7_EBX_AVX2))
            return false;
        return alg != CRYPTO_ALG_SHA512 || (f->ebx7 & bmi) == bmi;
    case CRYPTO_IMPL_AVX512:
        return has_avx_os(f) && (f->ebx7 & CPUID7_EBX_AVX512F) &&
               (f->xcr0 & XCR0_AVX512) == XCR0_AVX512;
    case CRYPTO_IMPL_SHANI:
        return has_sse2(f) && (f->ebx7 & CPUID7_EBX_SHA) && (f->ecx1 & ssse3_41) == ssse3_41;
    default:
        return false;
    }
}

/*
 * Fastest first. Under QEMU's TCG (which vtboot's tests use) every vector instruction is an
 * out-of-line helper call, and the portable code is the fastest: measured with QEMU 7.2
 * (qemu-i386 -cpu max, tests/unit/crypto/m32_selfcheck.c's paths, 4 MiB), SHA-512 AVX2 took
 * 2.2 times as long as the portable code, Poly1305 AVX2 1.9 times and SSE2 3.9 times. So a
 * CPU that says it is TCG gets the portable code whatever it reports.
 */
void crypto_choose(const struct cpu_features *f, struct crypto_choice *out)
{
    static const enum crypto_impl order[] = { CRYPTO_IMPL_SHANI, CRYPTO_IMPL_AVX512,
                                              CRYPTO_IMPL_AVX2, CRYPTO_IMPL_SSE2 };

    for (unsigned a = 0; a < CRYPTO_ALG_COUNT; a++) {
        out->impl[a] = CRYPTO_IMPL_PORTABLE;
        if (f && f->tcg)
            continue;
        for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
            if (crypto_impl_usable(f, (enum crypto_alg)a, order[i])) {
                out->impl[a] = order[i];
                break;
            }
        }
    }
}

void crypto_select(const struct cpu_features *f)
{
    struct crypto_choice c;

    crypto_choose(f, &c);
    for (unsigned a = 0; a < CRYPTO_ALG_COUNT; a++)
        crypto_set_impl((enum crypto_alg)a, c.impl[a]);
}

void crypto_select_portable(void)
{
    crypto_select(0);
}

const char *crypto_impl_name(enum crypto_impl impl)
{
    static const char *const names[CRYPTO_IMPL_COUNT] = {
        [CRYPTO_IMPL_PORTABLE] = "portable", [CRYPTO_IMPL_SSE2] = "sse2",
        [CRYPTO_IMPL_AVX2] = "avx2",         [CRYPTO_IMPL_AVX512] = "avx512",
        [CRYPTO_IMPL_SHANI] = "sha-ni",
    };
    return (unsigned)impl < CRYPTO_IMPL_COUNT ? names[impl] : "?";
}

const char *crypto_alg_label(enum crypto_alg alg)
{
    static const char *const names[CRYPTO_ALG_COUNT] = {
        [CRYPTO_ALG_SHA1] = "sha1", [CRYPTO_ALG_SHA256] = "sha256",
        [CRYPTO_ALG_SHA512] = "sha512", [CRYPTO_ALG_POLY1305] = "poly1305",
    };
    return (unsigned)alg < CRYPTO_ALG_COUNT ? names[alg] : "?";
}

void simd_plan(const struct cpu_features *f, uint32_t cr0, uint32_t cr4, uint64_t xcr0,
               struct simd_plan *out)
{
    const uint32_t sse = CPUID1_EDX_FXSR | CPUID1_EDX_SSE | CPUID1_EDX_SSE2;
    const uint32_t avx = CPUID1_ECX_XSAVE | CPUID1_ECX_AVX;
    const uint64_t avx_state = XCR0_X87 | XCR0_SSE | XCR0_AVX;
    struct cpu_features after = *f;
    struct crypto_choice choice;

    out->cr0 = cr0;
    out->cr4 = cr4;
    out->xcr0 = xcr0;
    out->set_xcr0 = false;
    out->simd = false;
    if ((f->edx1 & sse) != sse)
        return;                         /* no SIMD at all: nothing to enable */

    uint32_t new_cr0 = (cr0 & ~(CR0_EM | CR0_TS)) | CR0_MP;
    uint32_t new_cr4 = cr4 | CR4_OSFXSR | CR4_OSXMMEXCPT;
    uint64_t new_xcr0 = xcr0;
    bool set_xcr0 = false;
    if ((f->ecx1 & avx) == avx && (f->xcr0_supported & avx_state) == avx_state) {
        uint64_t want = avx_state;
        if ((f->ebx7 & CPUID7_EBX_AVX512F) && (f->xcr0_supported & XCR0_AVX512) == XCR0_AVX512)
            want |= XCR0_AVX512;
        new_cr4 |= CR4_OSXSAVE;
        /* XCR0 means something only while OSXSAVE is set; otherwise start from its reset value */
        new_xcr0 = ((cr4 & CR4_OSXSAVE) ? xcr0 : XCR0_X87) | want;
        set_xcr0 = true;
    }

    /* Enable only what a chosen path will use: nothing, if the choice is the portable code. */
    after.sse_enabled = true;
    if (new_cr4 & CR4_OSXSAVE) {
        after.ecx1 |= CPUID1_ECX_OSXSAVE;
        after.xcr0 = new_xcr0;
    }
    crypto_choose(&after, &choice);
    for (unsigned a = 0; a < CRYPTO_ALG_COUNT; a++)
        if (choice.impl[a] != CRYPTO_IMPL_PORTABLE)
            out->simd = true;
    if (!out->simd)
        return;
    out->cr0 = new_cr0;
    out->cr4 = new_cr4;
    out->xcr0 = new_xcr0;
    out->set_xcr0 = set_xcr0;
}

static void append(char *buf, size_t len, size_t *at, const char *s)
{
    while (*s && *at + 1 < len)
        buf[(*at)++] = *s++;
    buf[*at] = '\0';
}

void crypto_describe(const struct cpu_features *f, char *buf, size_t len)
{
    struct crypto_choice c;
    bool simd = false;
    size_t at = 0;

    if (!len)
        return;
    buf[0] = '\0';
    crypto_choose(f, &c);
    for (unsigned a = 0; a < CRYPTO_ALG_COUNT; a++)
        simd |= c.impl[a] != CRYPTO_IMPL_PORTABLE;
    append(buf, len, &at, simd ? "SIMD"
                          : !f ? "portable code (no CPU features read)"
                          : f->tcg ? "portable code (QEMU TCG: SIMD is slower there)"
                          : "portable code (no SIMD path this CPU can run)");
    append(buf, len, &at, ":");
    for (unsigned a = 0; a < CRYPTO_ALG_COUNT; a++) {
        append(buf, len, &at, " ");
        append(buf, len, &at, crypto_alg_label((enum crypto_alg)a));
        append(buf, len, &at, "=");
        append(buf, len, &at, crypto_impl_name(c.impl[a]));
    }
}

/* ---- the installed paths ---- */

/*
 * The pointers themselves live in sha1.c, sha256.c, sha512.c and poly1305.c, so that each of
 * those still links on its own (the guest's vtboot-seal takes only the hashes).
 */
static enum crypto_impl current[CRYPTO_ALG_COUNT];

bool crypto_impl_built(enum crypto_alg alg, enum crypto_impl impl)
{
    if (impl == CRYPTO_IMPL_PORTABLE)
        return alg < CRYPTO_ALG_COUNT;
#if CRYPTO_X86
    switch (alg) {
    case CRYPTO_ALG_SHA1:
    case CRYPTO_ALG_SHA256:
        return impl == CRYPTO_IMPL_SHANI;
    case CRYPTO_ALG_SHA512:
        return CRYPTO_SHA512_AVX2 && impl == CRYPTO_IMPL_AVX2;
    case CRYPTO_ALG_POLY1305:
        return impl == CRYPTO_IMPL_SSE2 || impl == CRYPTO_IMPL_AVX2 || impl == CRYPTO_IMPL_AVX512;
    default:
        return false;
    }
#else
    return false;
#endif
}

int crypto_set_impl(enum crypto_alg alg, enum crypto_impl impl)
{
    if (!crypto_impl_built(alg, impl))
        return -1;
    switch (alg) {
    case CRYPTO_ALG_SHA1:
        crypto_sha1_blocks = 0;
#if CRYPTO_X86
        if (impl == CRYPTO_IMPL_SHANI)
            crypto_sha1_blocks = sha1_blocks_shani;
#endif
        break;
    case CRYPTO_ALG_SHA256:
        crypto_sha256_blocks = 0;
#if CRYPTO_X86
        if (impl == CRYPTO_IMPL_SHANI)
            crypto_sha256_blocks = sha256_blocks_shani;
#endif
        break;
    case CRYPTO_ALG_SHA512:
        crypto_sha512_blocks = 0;
#if CRYPTO_SHA512_AVX2
        if (impl == CRYPTO_IMPL_AVX2)
            crypto_sha512_blocks = sha512_blocks_avx2;
#endif
        break;
    case CRYPTO_ALG_POLY1305:
        crypto_poly1305_blocks = 0;
#if CRYPTO_X86
        if (impl == CRYPTO_IMPL_SSE2)
            crypto_poly1305_blocks = poly1305_blocks_sse2;
        else if (impl == CRYPTO_IMPL_AVX2)
            crypto_poly1305_blocks = poly1305_blocks_avx2;
        else if (impl == CRYPTO_IMPL_AVX512)
            crypto_poly1305_blocks = poly1305_blocks_avx512;
#endif
        break;
    default:
        return -1;
    }
    current[alg] = impl;
    return 0;
}

enum crypto_impl crypto_current_impl(enum crypto_alg alg)
{
    return (unsigned)alg < CRYPTO_ALG_COUNT ? current[alg] : CRYPTO_IMPL_PORTABLE;
}
