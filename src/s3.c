/* SPDX-License-Identifier: MIT */
/*
 * S3 with memory integrity, as tboot does it (integrity.c, tboot.c s3_launch), bound to the
 * launched PCRs. Suspend: MAC the kernel's regions under a fresh key, seal the key, tboot's
 * s3_key and a digest of the resume state to PCR 17/18 as launched, cap the PCRs, point the
 * FACS waking vector at the low page, sleep. Resume: the firmware jumps to the low page, whose
 * pre-launch code asks for a new dynamic launch (prelaunch.c); the MLE confirms it and comes
 * here: the same measurements again, unseal, check every region, give the kernel its s3_key
 * back and enter its resume vector in real mode. A resume that cannot prove the kernel's
 * memory unchanged never runs the kernel.
 */
#include <stdbool.h>
#include <stdint.h>

#include "abi/acpi.h"
#include "abi/tboot_log.h"
#include "abi/tboot_shared.h"
#include "arch/x86/io.h"
#include "arch/x86/segments.h"
#include "crypto/hash.h"
#include "drivers/acpi_pm.h"
#include "drivers/pci.h"
#include "drivers/timer.h"
#include "launch.h"
#include "layout.h"
#include "lib/format.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "log/memlog.h"
#include "log/printk.h"
#include "main.h"
#include "platform.h"
#include "s3.h"
#include "shutdown.h"
#include "tboot/integrity.h"
#include "tboot/s3state.h"
#include "tboot/shared_page.h"
#include "tpm/tpm2_seal.h"

#define REAL_MODE_LIMIT 0x100000u

extern char _s3_state[], _s3_state_end[];
extern char lowmem_start[], lowmem_end[];
void real_mode_jump(uint32_t vector) __attribute__((noreturn));

static const unsigned seal_pcrs[] = { 17, 18 };
static struct s3_secrets secrets;
static bool resumed;                 /* since the boot, the state of the boot lives in s3_state */

static struct s3_state *state(void)
{
    return (struct s3_state *)_s3_state;
}

const struct s3_state *s3_state_area(void)
{
    return state();
}

static struct tboot_shared *shared(void)
{
    return (struct tboot_shared *)_shared_page;
}

/*
 * q35's wake-up is a machine reset that clears the ICH9 LPC bridge's ACPI registers (PMBASE,
 * ACPI_CNTL, RCBA), and SeaBIOS programs them only at first boot: without them PM1a_CNT is
 * gone, and the next S3 or power off does nothing. A platform's firmware restores them on
 * resume; here vtboot's waking vector is that firmware.
 */
#define ICH9_LPC_DEV 31
#define ICH9_LPC_ID 0x29188086u              /* device 0x2918, vendor Intel */
static const unsigned lpc_regs[3] = { 0x40, 0x44, 0xf0 };

static void save_chipset(struct s3_state *s)
{
    if (pci_read32(ICH9_LPC_DEV, 0, 0) != ICH9_LPC_ID)
        return;
    for (unsigned i = 0; i < 3; i++)
        s->lpc_config[i] = pci_read32(ICH9_LPC_DEV, 0, lpc_regs[i]);
}

void s3_restore_chipset(const struct s3_state *s)
{
    if (!s->lpc_config[0] || pci_read32(ICH9_LPC_DEV, 0, 0) != ICH9_LPC_ID)
        return;
    for (unsigned i = 0; i < 3; i++)
        pci_write32(ICH9_LPC_DEV, 0, lpc_regs[i], s->lpc_config[i]);
    pr_detail("S3: ICH9 LPC PMBASE 0x%x, ACPI_CNTL 0x%x, RCBA 0x%x restored\n",
              s->lpc_config[0], s->lpc_config[1], s->lpc_config[2]);
}

void lowmem_install(void)
{
    memcpy(phys_map(LOWMEM_BASE, LOWMEM_SIZE), lowmem_start,
           (size_t)(lowmem_end - lowmem_start));
}

/* Ends a suspend or resume that cannot keep its promise: nothing sealed to the launch may
 * unseal after this, and the kernel does not run (vtboot deviates from tboot, which resumes
 * a nonfatal-policy kernel with PCR 18 capped). */
__attribute__((noreturn)) static void integrity_halt(const char *why)
{
    memzero_explicit(&secrets, sizeof(secrets));
    memzero_explicit(shared()->s3_key, sizeof(shared()->s3_key));
    pr_err("S3: %s\n", why);
    launch_cap_pcrs("S3 integrity");
    platform_halt("S3 integrity check failed");
}

static uint16_t seal_bank(const struct tpm_banks *b)
{
    static const uint16_t pref[] = { TPM2_ALG_SHA256, TPM2_ALG_SHA384, TPM2_ALG_SHA512,
                                     TPM2_ALG_SHA1 };
    for (unsigned p = 0; p < sizeof(pref) / sizeof(pref[0]); p++)
        for (unsigned i = 0; i < b->count; i++)
            if (b->alg[i] == pref[p])
                return pref[p];
    return 0;
}

static void state_digest(const struct s3_state *s, uint8_t out[32])
{
    hash_buffer(TPM_ALG_SHA256, s, offsetof(struct s3_state, sealed), out);
}

/* The TPM part of suspending: a fresh MAC key, the seal, the caps. */
static void seal_for_resume(struct s3_state *s)
{
    struct tpm2 *t = launch_tpm();
    struct tpm_digest_list pcr;
    uint8_t values[2 * TPM2_MAX_DIGEST], policy[TPM2_POLICY_DIGEST_SIZE];
    uint32_t primary;
    char err[160];

    if (!launch_tpm_acquire())
        integrity_halt("no TPM to seal the memory key with");
    struct tpm_banks bank = { 1, { seal_bank(launch_banks()) } };
    s->seal_bank = bank.alg[0];
    if (!s->seal_bank)
        integrity_halt("no PCR bank to seal to");
    unsigned n = tpm2_digest_size(s->seal_bank);
    for (unsigned i = 0; i < 2; i++) {
        if (tpm2_pcr_read(t, seal_pcrs[i], &bank, &pcr))
            integrity_halt(t->err);
        memcpy(values + i * n, pcr.d[0].bytes, n);
    }
    tpm2_policy_pcr_digest(s->seal_bank, seal_pcrs, 2, values, policy);

    if (tpm2_get_random(t, secrets.mac_key, sizeof(secrets.mac_key)))
        integrity_halt(t->err);
    uint64_t t0 = timer_now_us();
    mac_regions_compute(secrets.mac_key, &s->regions, &s->linux_map, s->tags);
    pr_info("S3: MACed %u regions, %llu bytes of RAM, in %llu ms\n", s->regions.n,
            (unsigned long long)mac_regions_covered(&s->regions, &s->linux_map),
            (unsigned long long)((timer_now_us() - t0) / 1000));
    memcpy(secrets.s3_key, shared()->s3_key, sizeof(secrets.s3_key));
    state_digest(s, secrets.state_digest);

    if (tpm2_create_storage_primary(t, &primary) ||
        tpm2_seal(t, primary, policy, &secrets, sizeof(secrets), &s->sealed)) {
        fmt_snprintf(err, sizeof(err), "sealing the memory key: %s", t->err);
        integrity_halt(err);
    }
    tpm2_flush_context(t, primary);
    memzero_explicit(&secrets, sizeof(secrets));
    memzero_explicit(shared()->s3_key, sizeof(shared()->s3_key));
    pr_info("S3: key sealed to PCR 17 and 18 (%s) as launched\n", tpm2_alg_name(s->seal_bank));
    launch_cap_pcrs("entering S3");
    launch_tpm_acquire();
    if (tpm2_shutdown(t, TPM2_SU_STATE))
        pr_warn("S3: %s\n", t->err);
    launch_tpm_release();
}

/* The firmware's waking vector field the kernel pointed at, checked against the FACS. */
static volatile uint32_t *waking_vector(const struct tboot_acpi_sleep_info *si)
{
    const struct acpi_platform *acpi = platform_acpi();
    uint64_t want = acpi && acpi->facs ? acpi->facs + FACS_FIRMWARE_WAKING_VECTOR : 0;
    if (si->vector_width == 32 && si->wakeup_vector && si->wakeup_vector == want)
        return phys_map(si->wakeup_vector, 4);
    if (want) {
        pr_warn("S3: the kernel's wakeup_vector 0x%llx (width %u) is not FACS+12 (0x%llx); "
                "using the FACS\n", (unsigned long long)si->wakeup_vector, si->vector_width,
                (unsigned long long)want);
        return phys_map(want, 4);
    }
    return 0;
}

void s3_suspend(void)
{
    struct tboot_shared *sp = shared();
    const struct tboot_acpi_sleep_info *si = &sp->acpi_sinfo;
    struct s3_state *s = state();
    char err[160];

    _Static_assert(sizeof(struct s3_state) <= 0x8000, "S3 state fits its area");
    volatile uint32_t *vector = waking_vector(si);
    if (!vector)
        integrity_halt("no FACS waking vector to point at vtboot");
    if (!launch_is_measured()) {
        /* nothing was promised: the firmware resumes the kernel directly */
        pr_warn("S3: the launch was not measured; suspending without memory integrity\n");
        acpi_pm1_sleep_kernel(si);
        platform_halt("S3 did not happen");
    }
    if (si->kernel_s3_resume_vector == 0 || si->kernel_s3_resume_vector >= REAL_MODE_LIMIT)
        integrity_halt("the kernel's S3 resume vector is not below 1 MiB");

    if (!resumed) {
        /* after a resume, the boot's options, command line and map are those it persisted */
        memset(s, 0, sizeof(*s));
        s->magic = S3_STATE_MAGIC;
        s->version = S3_STATE_VERSION;
        s->size = sizeof(*s);
        s->opts = *boot_options();
        strlcpy(s->cmdline, boot_cmdline(), sizeof(s->cmdline));
        s->rsdp = boot_rsdp();
        s->linux_map = *linux_e820_map();
    }
    s->vl = *launch_measurements();
    s->kernel_resume_vector = si->kernel_s3_resume_vector;
    save_chipset(s);
    if (mac_regions_from_shared(sp, &s->regions, err, sizeof(err)))
        integrity_halt(err);
    for (unsigned i = 0; i < s->regions.n; i++)
        pr_info("S3: MAC region %u: 0x%llx+0x%x\n", i,
                (unsigned long long)s->regions.r[i].start, s->regions.r[i].size);

    seal_for_resume(s);
    lowmem_install();
    *vector = LOWMEM_BASE;
    pr_info("S3: waking vector 0x%x; sleeping (PM1a_CNT 0x%04x)\n", LOWMEM_BASE,
            si->pm1a_cnt_val);
    acpi_pm1_sleep_kernel(si);
    platform_halt("S3 did not happen");
}

/* Unseals in the re-launched state and checks the state it seals. */
static void unseal_secrets(struct s3_state *s)
{
    struct tpm2 *t = launch_tpm();
    uint32_t primary, item, session;
    uint16_t len = 0;
    uint8_t digest[32];
    char err[200];

    if (tpm2_create_storage_primary(t, &primary) || tpm2_load(t, primary, &s->sealed, &item)) {
        fmt_snprintf(err, sizeof(err), "loading the sealed key: %s", t->err);
        integrity_halt(err);
    }
    int rc = tpm2_start_policy_session(t, &session);
    if (!rc)
        rc = tpm2_policy_pcr(t, session, s->seal_bank, seal_pcrs, 2);
    if (!rc)
        rc = tpm2_unseal(t, item, session, (uint8_t *)&secrets, sizeof(secrets), &len);
    tpm2_flush_context(t, item);
    tpm2_flush_context(t, primary);
    if (rc) {
        fmt_snprintf(err, sizeof(err), "the memory key does not unseal in this launch "
                     "(PCR 17/18 differ from the suspended launch): %s", t->err);
        integrity_halt(err);
    }
    state_digest(s, digest);
    if (len != sizeof(secrets) || memcmp(digest, secrets.state_digest, sizeof(digest)))
        integrity_halt("the resume state changed while suspended");
}

void s3_resume_log(void)
{
    const struct s3_state *s = state();
    struct tboot_log *log = phys_map(TBOOT_LOG_ADDR, TBOOT_LOG_SIZE);

    if (s->opts.log_memory && log && memlog_valid(log))
        printk_set_memlog(log);
}

void s3_resume(void)
{
    struct s3_state *s = state();

    resumed = true;
    if (s->magic != S3_STATE_MAGIC || s->version != S3_STATE_VERSION || s->size != sizeof(*s))
        integrity_halt("no S3 state of vtboot's to resume");
    if (s->regions.n > TBOOT_MAX_MAC_REGIONS || s->vl.n > VL_MAX)
        integrity_halt("the resume state is malformed");
    pr_info("S3 resume: launched again; checking what was suspended\n");
    s3_restore_chipset(s);
    platform_init(s->rsdp);
    launch_log_start();
    if (!launch_extend_again(&s->vl))
        integrity_halt("the re-launch failed");
    unseal_secrets(s);

    uint64_t t0 = timer_now_us();
    int bad = mac_regions_verify(secrets.mac_key, &s->regions, &s->linux_map, s->tags);
    if (bad >= 0) {
        char why[160];
        fmt_snprintf(why, sizeof(why), "memory integrity FAILED: MAC region %d (0x%llx+0x%x) "
                     "changed while suspended", bad,
                     (unsigned long long)s->regions.r[bad].start, s->regions.r[bad].size);
        integrity_halt(why);
    }
    struct tboot_shared *sp = shared();
    memcpy(sp->s3_key, secrets.s3_key, sizeof(sp->s3_key));
    memzero_explicit(&secrets, sizeof(secrets));
    sp->num_in_wfs = 0;              /* every AP was reset */
    launch_tpm_release();
    pr_info("S3: memory integrity verified: %u regions, %llu bytes, in %llu ms\n",
            s->regions.n, (unsigned long long)mac_regions_covered(&s->regions, &s->linux_map),
            (unsigned long long)((timer_now_us() - t0) / 1000));
    pr_info("S3: resuming Linux at 0x%llx\n", (unsigned long long)s->kernel_resume_vector);
    real_mode_jump((uint32_t)s->kernel_resume_vector);
}
