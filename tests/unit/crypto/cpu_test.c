/* SPDX-License-Identifier: MIT */
/*
 * The choice of crypto implementation from CPUID/XCR0 bits (crypto_choose, crypto_impl_usable),
 * the CR0/CR4/XCR0 plan a pre-kernel applies before SIMD code runs (simd_plan), the switch
 * (crypto_set_impl), and, on this host, cpu_features_read against /proc/cpuinfo's flags.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "crypto/cpu.h"
#include "crypto/hash.h"
#include "crypto_test_util.h"

#define SSE2_BITS (CPUID1_EDX_FXSR | CPUID1_EDX_SSE | CPUID1_EDX_SSE2)
#define AVX_ECX (CPUID1_ECX_SSSE3 | CPUID1_ECX_SSE41 | CPUID1_ECX_XSAVE | CPUID1_ECX_AVX)
#define XCR0_YMM (XCR0_X87 | XCR0_SSE | XCR0_AVX)

/* A CPU the OS has fully enabled: edx1/ecx1/ebx7 as given, XCR0 as the CPU supports. */
static struct cpu_features enabled(uint32_t edx1, uint32_t ecx1, uint32_t ebx7, uint64_t xcr0)
{
    struct cpu_features f = { 0 };
    f.max_leaf = 0xd;
    f.edx1 = edx1;
    f.ecx1 = ecx1 | ((ecx1 & CPUID1_ECX_XSAVE) ? CPUID1_ECX_OSXSAVE : 0);
    f.ebx7 = ebx7;
    f.xcr0_supported = xcr0;
    f.xcr0 = (ecx1 & CPUID1_ECX_XSAVE) ? xcr0 : 0;
    f.sse_enabled = true;
    return f;
}

static void expect(const struct cpu_features *f, enum crypto_impl sha1, enum crypto_impl sha256,
                   enum crypto_impl sha512, enum crypto_impl poly)
{
    struct crypto_choice c;
    crypto_choose(f, &c);
    assert_string_equal(crypto_impl_name(c.impl[CRYPTO_ALG_SHA1]), crypto_impl_name(sha1));
    assert_string_equal(crypto_impl_name(c.impl[CRYPTO_ALG_SHA256]), crypto_impl_name(sha256));
    assert_string_equal(crypto_impl_name(c.impl[CRYPTO_ALG_SHA512]), crypto_impl_name(sha512));
    assert_string_equal(crypto_impl_name(c.impl[CRYPTO_ALG_POLY1305]), crypto_impl_name(poly));
}

static void test_choice_by_cpu_generation(void **state)
{
    const uint32_t avx2_bmi = CPUID7_EBX_AVX2 | CPUID7_EBX_BMI1 | CPUID7_EBX_BMI2;
    struct cpu_features f;

    (void)state;
    /* i686, no SSE2 */
    f = enabled(CPUID1_EDX_FXSR | CPUID1_EDX_SSE, 0, 0, 0);
    expect(&f, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE,
           CRYPTO_IMPL_PORTABLE);
    /* SSE2 only */
    f = enabled(SSE2_BITS, 0, 0, 0);
    expect(&f, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE,
           CRYPTO_IMPL_SSE2);
    /* AVX2 + BMI (Haswell) */
    f = enabled(SSE2_BITS, AVX_ECX, avx2_bmi, XCR0_YMM);
    expect(&f, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_AVX2, CRYPTO_IMPL_AVX2);
    /* + SHA (Zen 1..3, Ice Lake without AVX-512 state) */
    f = enabled(SSE2_BITS, AVX_ECX, avx2_bmi | CPUID7_EBX_SHA, XCR0_YMM);
    expect(&f, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_AVX2, CRYPTO_IMPL_AVX2);
    /* + AVX-512 with its XCR0 state (Zen 4/5) */
    f = enabled(SSE2_BITS, AVX_ECX, avx2_bmi | CPUID7_EBX_SHA | CPUID7_EBX_AVX512F,
                XCR0_YMM | XCR0_AVX512);
    expect(&f, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_AVX2, CRYPTO_IMPL_AVX512);
    /* SHA extensions on an Atom without AVX: SHA-NI, SSE2 Poly1305 */
    f = enabled(SSE2_BITS, CPUID1_ECX_SSSE3 | CPUID1_ECX_SSE41, CPUID7_EBX_SHA, 0);
    expect(&f, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_SSE2);
}

static void test_what_the_os_enabled_counts(void **state)
{
    const uint32_t all7 = CPUID7_EBX_AVX2 | CPUID7_EBX_BMI1 | CPUID7_EBX_BMI2 | CPUID7_EBX_SHA |
                          CPUID7_EBX_AVX512F;
    struct cpu_features f;

    (void)state;
    /* SSE not enabled (CR4.OSFXSR clear): nothing but the portable code */
    f = enabled(SSE2_BITS, AVX_ECX, all7, XCR0_YMM | XCR0_AVX512);
    f.sse_enabled = false;
    expect(&f, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE,
           CRYPTO_IMPL_PORTABLE);
    /* OSXSAVE clear: no AVX state, so SSE paths only */
    f = enabled(SSE2_BITS, AVX_ECX, all7, XCR0_YMM | XCR0_AVX512);
    f.ecx1 &= ~CPUID1_ECX_OSXSAVE;
    f.xcr0 = 0;
    expect(&f, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_SSE2);
    /* XCR0 without the AVX bit */
    f = enabled(SSE2_BITS, AVX_ECX, all7, XCR0_YMM | XCR0_AVX512);
    f.xcr0 = XCR0_X87 | XCR0_SSE;
    expect(&f, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_SSE2);
    /* AVX state but not the AVX-512 state: AVX2 */
    f = enabled(SSE2_BITS, AVX_ECX, all7, XCR0_YMM | XCR0_AVX512);
    f.xcr0 = XCR0_YMM | XCR0_OPMASK;
    expect(&f, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_SHANI, CRYPTO_IMPL_AVX2, CRYPTO_IMPL_AVX2);
    /* AVX2 without BMI2: SHA-512 stays portable, Poly1305 does not care */
    f = enabled(SSE2_BITS, AVX_ECX, CPUID7_EBX_AVX2 | CPUID7_EBX_BMI1, XCR0_YMM);
    expect(&f, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE,
           CRYPTO_IMPL_AVX2);
    /* SHA without SSE4.1 */
    f = enabled(SSE2_BITS, CPUID1_ECX_SSSE3, CPUID7_EBX_SHA, 0);
    expect(&f, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE,
           CRYPTO_IMPL_SSE2);
}

/* Under QEMU TCG vector instructions are slow helpers: the portable code, whatever is reported. */
static void test_tcg_gets_the_portable_code(void **state)
{
    struct cpu_features f;

    (void)state;
    f = enabled(SSE2_BITS, AVX_ECX,
                CPUID7_EBX_AVX2 | CPUID7_EBX_BMI1 | CPUID7_EBX_BMI2 | CPUID7_EBX_SHA,
                XCR0_YMM);
    f.tcg = true;
    expect(&f, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE,
           CRYPTO_IMPL_PORTABLE);
    expect(NULL, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE, CRYPTO_IMPL_PORTABLE,
           CRYPTO_IMPL_PORTABLE);
}

/* The log line names the choice and why; a short buffer cuts it, terminated. */
static void test_describe(void **state)
{
    const uint32_t avx2_bmi = CPUID7_EBX_AVX2 | CPUID7_EBX_BMI1 | CPUID7_EBX_BMI2;
    struct cpu_features f;
    char line[160], small[9];

    (void)state;
    f = enabled(SSE2_BITS, AVX_ECX, avx2_bmi | CPUID7_EBX_SHA | CPUID7_EBX_AVX512F,
                XCR0_YMM | XCR0_AVX512);
    crypto_describe(&f, line, sizeof(line));
    assert_string_equal(line, "SIMD: sha1=sha-ni sha256=sha-ni sha512=avx2 poly1305=avx512");
    f.tcg = true;
    crypto_describe(&f, line, sizeof(line));
    assert_string_equal(line, "portable code (QEMU TCG: SIMD is slower there): sha1=portable "
                              "sha256=portable sha512=portable poly1305=portable");
    f = enabled(CPUID1_EDX_FXSR | CPUID1_EDX_SSE, 0, 0, 0);
    crypto_describe(&f, line, sizeof(line));
    assert_string_equal(line, "portable code (no SIMD path this CPU can run): sha1=portable "
                              "sha256=portable sha512=portable poly1305=portable");
    crypto_describe(NULL, line, sizeof(line));
    assert_string_equal(line, "portable code (no CPU features read): sha1=portable "
                              "sha256=portable sha512=portable poly1305=portable");
    memset(small, 'x', sizeof(small));
    crypto_describe(NULL, small, sizeof(small));
    assert_string_equal(small, "portable");
}

/* What CPUID reports before vtboot changes anything: no OSXSAVE, XCR0 unreadable. */
static struct cpu_features raw(uint32_t edx1, uint32_t ecx1, uint32_t ebx7, uint64_t supported)
{
    struct cpu_features f = { 0 };
    f.max_leaf = 0xd;
    f.edx1 = edx1;
    f.ecx1 = ecx1;
    f.ebx7 = ebx7;
    f.xcr0_supported = supported;
    return f;
}

static void test_simd_plan(void **state)
{
    const uint32_t reset_cr0 = 0x60000010u | 1u /* PE */, linux_cr4 = 0x3706f0u;
    struct simd_plan p;
    struct cpu_features f;

    (void)state;
    /* no SSE2: nothing changes */
    f = raw(CPUID1_EDX_FXSR | CPUID1_EDX_SSE, 0, 0, 0);
    simd_plan(&f, reset_cr0 | CR0_EM | CR0_TS, 0, XCR0_X87, &p);
    assert_false(p.simd);
    assert_int_equal(p.cr0, reset_cr0 | CR0_EM | CR0_TS);
    assert_int_equal(p.cr4, 0);
    assert_false(p.set_xcr0);

    /* SSE2 only: EM and TS cleared, MP set, OSFXSR and OSXMMEXCPT, no XCR0 */
    f = raw(SSE2_BITS, 0, 0, 0);
    simd_plan(&f, reset_cr0 | CR0_EM | CR0_TS, 0x20 /* PAE, kept */, XCR0_X87, &p);
    assert_true(p.simd);
    assert_int_equal(p.cr0, reset_cr0 | CR0_MP);
    assert_int_equal(p.cr4, 0x20 | CR4_OSFXSR | CR4_OSXMMEXCPT);
    assert_false(p.set_xcr0);

    /* AVX2 from reset (OSXSAVE off): XCR0 from its reset value 1, plus SSE and AVX */
    f = raw(SSE2_BITS, AVX_ECX, CPUID7_EBX_AVX2 | CPUID7_EBX_BMI1 | CPUID7_EBX_BMI2,
            XCR0_YMM);
    simd_plan(&f, reset_cr0, 0, 0x12345 /* garbage: OSXSAVE is off */, &p);
    assert_true(p.simd);
    assert_int_equal(p.cr4, CR4_OSFXSR | CR4_OSXMMEXCPT | CR4_OSXSAVE);
    assert_true(p.set_xcr0);
    assert_int_equal(p.xcr0, XCR0_YMM);

    /* AVX-512 supported: bits 5-7 together */
    f = raw(SSE2_BITS, AVX_ECX, CPUID7_EBX_AVX2 | CPUID7_EBX_AVX512F, XCR0_YMM | XCR0_AVX512 |
                                                                       (1ull << 9) /* PKRU */);
    simd_plan(&f, reset_cr0, 0, XCR0_X87, &p);
    assert_int_equal(p.xcr0, XCR0_YMM | XCR0_AVX512);
    /* AVX-512 partly supported in XCR0: not enabled (XSETBV would fault), AVX only */
    f.xcr0_supported = XCR0_YMM | XCR0_OPMASK | XCR0_ZMM_HI256;
    simd_plan(&f, reset_cr0, 0, XCR0_X87, &p);
    assert_int_equal(p.xcr0, XCR0_YMM);

    /* At shutdown, under Linux: its bits are kept (PKRU, AMX ...), nothing is cleared */
    f = raw(SSE2_BITS, AVX_ECX, CPUID7_EBX_AVX2 | CPUID7_EBX_AVX512F, XCR0_YMM | XCR0_AVX512 |
                                                                       (1ull << 9));
    simd_plan(&f, reset_cr0 | CR0_MP, linux_cr4 | CR4_OSXSAVE | CR4_OSFXSR,
              XCR0_YMM | XCR0_AVX512 | (1ull << 9), &p);
    assert_int_equal(p.cr4 & linux_cr4, linux_cr4);
    assert_int_equal(p.xcr0, XCR0_YMM | XCR0_AVX512 | (1ull << 9));

    /* AVX reported but XCR0 cannot hold its state: SSE only */
    f = raw(SSE2_BITS, AVX_ECX, CPUID7_EBX_AVX2, XCR0_X87 | XCR0_SSE);
    simd_plan(&f, reset_cr0, 0, XCR0_X87, &p);
    assert_true(p.simd);
    assert_false(p.set_xcr0);
    assert_int_equal(p.cr4 & CR4_OSXSAVE, 0);

    /* QEMU TCG reporting AVX2: the portable code is chosen, so nothing is enabled */
    f = raw(SSE2_BITS, AVX_ECX, CPUID7_EBX_AVX2 | CPUID7_EBX_BMI1 | CPUID7_EBX_BMI2, XCR0_YMM);
    f.tcg = true;
    simd_plan(&f, reset_cr0, 0, XCR0_X87, &p);
    assert_false(p.simd);
    assert_int_equal(p.cr0, reset_cr0);
    assert_int_equal(p.cr4, 0);
    assert_false(p.set_xcr0);
}

static void test_set_impl(void **state)
{
    (void)state;
    for (int a = 0; a < CRYPTO_ALG_COUNT; a++)
        assert_int_equal(crypto_set_impl((enum crypto_alg)a, CRYPTO_IMPL_PORTABLE), 0);
#if defined(__x86_64__) || defined(__i386__)
    assert_int_equal(crypto_set_impl(CRYPTO_ALG_SHA1, CRYPTO_IMPL_SHANI), 0);
    assert_int_equal(crypto_current_impl(CRYPTO_ALG_SHA1), CRYPTO_IMPL_SHANI);
    assert_int_equal(crypto_set_impl(CRYPTO_ALG_POLY1305, CRYPTO_IMPL_AVX512), 0);
#endif
    /* paths that do not exist */
    assert_int_equal(crypto_set_impl(CRYPTO_ALG_SHA1, CRYPTO_IMPL_AVX2), -1);
    assert_int_equal(crypto_set_impl(CRYPTO_ALG_POLY1305, CRYPTO_IMPL_SHANI), -1);
    assert_int_equal(crypto_set_impl(CRYPTO_ALG_SHA512, CRYPTO_IMPL_SSE2), -1);
    assert_int_equal(crypto_set_impl(CRYPTO_ALG_COUNT, CRYPTO_IMPL_PORTABLE), -1);
    assert_int_equal(crypto_current_impl(CRYPTO_ALG_SHA1), CRYPTO_IMPL_SHANI);
    crypto_select_portable();
    for (int a = 0; a < CRYPTO_ALG_COUNT; a++)
        assert_int_equal(crypto_current_impl((enum crypto_alg)a), CRYPTO_IMPL_PORTABLE);
    assert_string_equal(crypto_impl_name(CRYPTO_IMPL_COUNT), "?");
    assert_string_equal(crypto_alg_label(CRYPTO_ALG_POLY1305), "poly1305");
}

/* Whether /proc/cpuinfo's first "flags" line lists flag (a whole word). */
static int cpuinfo_has(const char *flags, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = flags; (p = strstr(p, flag)) != NULL; p += n)
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == 0))
            return 1;
    return 0;
}

/*
 * This host: cpu_features_read and crypto_choose against the kernel's own reading of CPUID
 * (/proc/cpuinfo), so that a broken CPUID reader cannot quietly leave the SIMD paths untested.
 */
static void test_host_features_match_cpuinfo(void **state)
{
    static char flags[8192];
    struct cpu_features f;
    struct crypto_choice c;
    FILE *in = fopen("/proc/cpuinfo", "r");

    (void)state;
    if (!in)
        skip();
    flags[0] = 0;
    while (fgets(flags, sizeof(flags), in))
        if (!strncmp(flags, "flags", 5))
            break;
    fclose(in);
    assert_int_equal(strncmp(flags, "flags", 5), 0);
    cpu_features_read(&f, true);
    crypto_choose(&f, &c);
    print_message("host:");
    for (int a = 0; a < CRYPTO_ALG_COUNT; a++)
        print_message(" %s=%s", crypto_alg_label((enum crypto_alg)a),
                      crypto_impl_name(c.impl[a]));
    print_message("\n");
    assert_int_equal(!!(f.edx1 & CPUID1_EDX_SSE2), cpuinfo_has(flags, "sse2"));
    assert_int_equal(!!(f.ecx1 & CPUID1_ECX_AVX), cpuinfo_has(flags, "avx"));
    assert_int_equal(!!(f.ebx7 & CPUID7_EBX_AVX2), cpuinfo_has(flags, "avx2"));
    assert_int_equal(!!(f.ebx7 & CPUID7_EBX_BMI2), cpuinfo_has(flags, "bmi2"));
    assert_int_equal(!!(f.ebx7 & CPUID7_EBX_SHA), cpuinfo_has(flags, "sha_ni"));
    assert_int_equal(!!(f.ebx7 & CPUID7_EBX_AVX512F), cpuinfo_has(flags, "avx512f"));
    if (cpuinfo_has(flags, "sha_ni") && cpuinfo_has(flags, "sse4_1") && !f.tcg)
        assert_int_equal(c.impl[CRYPTO_ALG_SHA256], CRYPTO_IMPL_SHANI);
    if (cpuinfo_has(flags, "avx512f") && !f.tcg)
        assert_int_equal(c.impl[CRYPTO_ALG_POLY1305], CRYPTO_IMPL_AVX512);
    else if (cpuinfo_has(flags, "avx2") && !f.tcg)
        assert_int_equal(c.impl[CRYPTO_ALG_POLY1305], CRYPTO_IMPL_AVX2);
    if (cpuinfo_has(flags, "avx2") && cpuinfo_has(flags, "bmi2") && cpuinfo_has(flags, "bmi1") &&
        !f.tcg)
        assert_int_equal(c.impl[CRYPTO_ALG_SHA512], CRYPTO_IMPL_AVX2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choice_by_cpu_generation),
        cmocka_unit_test(test_what_the_os_enabled_counts),
        cmocka_unit_test(test_tcg_gets_the_portable_code),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_simd_plan),
        cmocka_unit_test(test_set_impl),
        cmocka_unit_test(test_host_features_match_cpuinfo),
    };
    return cmocka_run_group_tests_name("crypto/cpu", tests, NULL, NULL);
}
