/* SPDX-License-Identifier: MIT */
/*
 * Which implementation of each hash and MAC runs: a pure decision from CPUID and XCR0 bits
 * (crypto_choose), the switch that installs it (crypto_select), and the CR0/CR4/XCR0 values a
 * pre-kernel must set before any SIMD code may run (simd_plan). The portable C code is the
 * default until crypto_select is called and whenever a CPU (or emulator) does not report what
 * a faster path needs.
 *
 * Every path computes the same function; tests force each one (crypto_set_impl) and compare it
 * with OpenSSL and with the portable code.
 *
 * Rules for the pre-kernel (vtboot):
 *  1. At entry (and at each re-entry: the S3 resume launch, shutdown_entry from Linux), on the
 *     CPU that will hash, before the first hash: simd_enable() (src/drivers/simd.h). It saves
 *     CR0, CR4 and XCR0 as found and, if crypto_choose picks any SIMD path (never under QEMU
 *     TCG, where the portable code is faster), clears CR0.EM and CR0.TS, sets CR0.MP,
 *     CR4.OSFXSR and CR4.OSXMMEXCPT, and with AVX CR4.OSXSAVE and the XCR0 bits for AVX (and
 *     AVX-512) state; then it installs the choice (crypto_select). CR0, CR4 and XCR0 are
 *     per CPU: a CPU that did not run simd_enable must not hash (parked APs never do).
 *  2. Before any jump into Linux (the kernel's 32-bit entry, the S3 waking vector):
 *     simd_restore() selects the portable code, zeroes the vector registers (they may hold
 *     Poly1305 key powers) and puts XCR0, CR4 and CR0 back as found, XCR0 first. Linux sets
 *     CR4 and XCR0 itself at boot and on resume (fpu__init_cpu, fpu__resume_cpu), but it is
 *     entered in the state a boot loader or firmware leaves, and that is the one found.
 *  3. Paths that run while Linux owns the FPU: vtboot does not save Linux's vector registers.
 *     shutdown_entry may use SIMD (after simd_enable, which keeps Linux's CR4/XCR0 bits and
 *     only adds) because nothing there returns to the running kernel: reboot, power off and
 *     halt end the machine, and for S3 Linux's save_processor_state has already saved its
 *     FPU state (kernel_fpu_begin) and resumes through the waking vector after a new launch.
 *     Any future path that returns into a running Linux must not hash with SIMD
 *     (crypto_select_portable() first) or must XSAVE/XRSTOR around it.
 *  4. Stack: in the 32-bit build the deepest SIMD frame is Poly1305's AVX-512 path, about
 *     1.6 KiB (AVX2 0.8, SSE2 0.5, SHA-NI 0.1; the portable SHA-512 already takes 1 KiB).
 *     The S3 suspend chain then uses about 3 KiB of shutdown_entry's 4 KiB per-CPU stack.
 */
#ifndef CRYPTO_CPU_H
#define CRYPTO_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPUID bits (Intel SDM Vol. 2A, CPUID; AMD APM Vol. 3, appendix E). */
#define CPUID1_EDX_FXSR      (1u << 24)
#define CPUID1_EDX_SSE       (1u << 25)
#define CPUID1_EDX_SSE2      (1u << 26)
#define CPUID1_ECX_SSSE3     (1u << 9)
#define CPUID1_ECX_SSE41     (1u << 19)
#define CPUID1_ECX_XSAVE     (1u << 26)
#define CPUID1_ECX_OSXSAVE   (1u << 27)
#define CPUID1_ECX_AVX       (1u << 28)
#define CPUID7_EBX_BMI1      (1u << 3)
#define CPUID7_EBX_BMI2      (1u << 8)
#define CPUID7_EBX_AVX2      (1u << 5)
#define CPUID7_EBX_AVX512F   (1u << 16)
#define CPUID7_EBX_SHA       (1u << 29)

/* XCR0 state components (Intel SDM Vol. 1, §13.1). */
#define XCR0_X87       (1ull << 0)
#define XCR0_SSE       (1ull << 1)
#define XCR0_AVX       (1ull << 2)
#define XCR0_OPMASK    (1ull << 5)
#define XCR0_ZMM_HI256 (1ull << 6)
#define XCR0_HI16_ZMM  (1ull << 7)
#define XCR0_AVX512    (XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM)

/* Control register bits. */
#define CR0_MP         (1u << 1)
#define CR0_EM         (1u << 2)
#define CR0_TS         (1u << 3)
#define CR4_OSFXSR     (1u << 9)
#define CR4_OSXMMEXCPT (1u << 10)
#define CR4_OSXSAVE    (1u << 18)

/* What the CPU reports and what the OS (or vtboot) has enabled. */
struct cpu_features {
    uint32_t max_leaf;                  /* CPUID.0:EAX */
    uint32_t ecx1, edx1;                /* CPUID.1:ECX, EDX */
    uint32_t ebx7;                      /* CPUID.(7,0):EBX; 0 if max_leaf < 7 */
    uint64_t xcr0_supported;            /* CPUID.(0xD,0):EDX:EAX; 0 if max_leaf < 0xD */
    uint64_t xcr0;                      /* XGETBV(0) if CPUID says OSXSAVE, else 0 */
    bool sse_enabled;                   /* CR4.OSFXSR set, CR0.EM and CR0.TS clear */
    bool tcg;                           /* CPUID.0x40000000 says "TCGTCGTCGTCG" (QEMU TCG) */
};

enum crypto_impl {
    CRYPTO_IMPL_PORTABLE = 0,
    CRYPTO_IMPL_SSE2,                   /* Poly1305, 2 blocks in parallel */
    CRYPTO_IMPL_AVX2,                   /* Poly1305 4-way; SHA-512 (x86-64 builds only) */
    CRYPTO_IMPL_AVX512,                 /* Poly1305 8-way (AVX-512F) */
    CRYPTO_IMPL_SHANI,                  /* SHA-1, SHA-256: the SHA extensions (+ SSSE3, SSE4.1) */
    CRYPTO_IMPL_COUNT
};

enum crypto_alg {
    CRYPTO_ALG_SHA1 = 0,
    CRYPTO_ALG_SHA256,
    CRYPTO_ALG_SHA512,                  /* and SHA-384 */
    CRYPTO_ALG_POLY1305,
    CRYPTO_ALG_COUNT
};

struct crypto_choice {
    enum crypto_impl impl[CRYPTO_ALG_COUNT];
};

/* Which features a path needs (pure). */
bool crypto_impl_usable(const struct cpu_features *f, enum crypto_alg alg,
                        enum crypto_impl impl);
/* The fastest usable implementation of each algorithm (pure). */
void crypto_choose(const struct cpu_features *f, struct crypto_choice *out);

/* Installs crypto_choose(f)'s choice; f == NULL selects the portable code everywhere. */
void crypto_select(const struct cpu_features *f);
void crypto_select_portable(void);
/* Forces one path (tests, benchmarks); -1 if that path does not exist for alg in this build. */
int crypto_set_impl(enum crypto_alg alg, enum crypto_impl impl);
enum crypto_impl crypto_current_impl(enum crypto_alg alg);

const char *crypto_impl_name(enum crypto_impl impl);  /* "portable", "sse2", ... */
const char *crypto_alg_label(enum crypto_alg alg);    /* "sha1", "sha256", "sha512", ... */

/*
 * The control register and XCR0 values under which the SIMD paths crypto_choose would pick may
 * run, from the values found (pure). SSE needs CR0.EM = 0, CR0.TS = 0, CR0.MP = 1,
 * CR4.OSFXSR (and CR4.OSXMMEXCPT, so that a SIMD floating-point exception is #XM, not #UD);
 * AVX needs CR4.OSXSAVE and XCR0 bits 0-2, AVX-512 also bits 5-7 (all three or none: XSETBV
 * faults otherwise). Bits already set (Linux's, at shutdown) are kept; nothing the CPU lacks is
 * set. If the choice is the portable code everywhere (no SIMD, or QEMU TCG), simd is false and
 * the values are the ones found: nothing is changed. set_xcr0: XCR0 is to be written (only
 * with XSAVE, after CR4.OSXSAVE is set). f is what CPUID reports before any change.
 */
struct simd_plan {
    uint32_t cr0, cr4;
    uint64_t xcr0;
    bool set_xcr0;
    bool simd;                          /* some path will use vector registers */
};
void simd_plan(const struct cpu_features *f, uint32_t cr0, uint32_t cr4, uint64_t xcr0,
               struct simd_plan *out);

/*
 * One line for vtboot's log naming what crypto_choose picks for f and why (pure), e.g.
 *   "portable code (QEMU TCG: SIMD is slower there): sha1=portable sha256=portable ..."
 *   "SIMD: sha1=sha-ni sha256=sha-ni sha512=portable poly1305=avx512"
 * Cut to len - 1 bytes, always terminated (len > 0).
 */
void crypto_describe(const struct cpu_features *f, char *buf, size_t len);

/* Reads CPUID (and XGETBV when OSXSAVE is set); sse_enabled as given (CR0/CR4 are privileged). */
void cpu_features_read(struct cpu_features *f, bool sse_enabled);

#endif
