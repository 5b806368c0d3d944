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
#include "abi/vtboot_ext.h"
#include "arch/x86/io.h"
#include "arch/x86/segments.h"
#include "crypto/hash.h"
#include "drivers/timer.h"
#include "common/boot.h"
#include "common/ext_block.h"
#include "common/halt.h"
#include "common/launch_tpm.h"
#include "common/machine.h"
#include "common/pcr_cap.h"
#include "common/s3_platform.h"
#include "common/simd_state.h"
#include "layout.h"
#include "lib/format.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "log/memlog.h"
#include "log/printk.h"
#include "mle/launch.h"
#include "mle/s3.h"
#include "mle/takeover.h"
#include "tboot/integrity.h"
#include "tboot/s3rules.h"
#include "tboot/s3state.h"
#include "tboot/shared_page.h"
#include "tpm/banks.h"
#include "tpm/tpm2_seal.h"

#define REAL_MODE_LIMIT 0x100000u

extern char lowmem_start[], lowmem_end[];
void real_mode_jump(uint32_t vector) __attribute__((noreturn));

static const unsigned seal_pcrs[] = { 17, 18 };
static struct s3_secrets secrets;
static bool resumed;                 /* since the boot, the state of the boot lives in s3_state */

static struct s3_state *state(void)
{
    return s3_state_area();
}

static struct tboot_shared *shared(void)
{
    return (struct tboot_shared *)_shared_page;
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
    pcr_cap("S3 integrity");
    halt("S3 integrity check failed");
}

/* The seal bank's PCR 17 and 18 values, concatenated, and their count of bytes. */
static unsigned launch_pcr_values(struct tpm2 *t, uint16_t alg, uint8_t *values)
{
    struct tpm_banks bank = { 1, { alg } };
    struct tpm_digest_list pcr;
    unsigned n = tpm_hash_size(alg);

    for (unsigned i = 0; i < 2; i++) {
        if (tpm2_pcr_read(t, seal_pcrs[i], &bank, &pcr))
            integrity_halt(t->err);
        memcpy(values + i * n, pcr.d[0].bytes, n);
    }
    return 2 * n;
}

/* A MAC pass over 16 MiB or more of RAM says how far it got, a line per 10%
 * (tboot/progress.h); arg: "MACing" or "verifying". */
static void mac_progress(void *arg, unsigned item, unsigned percent, uint64_t total)
{
    (void)item;
    pr_info("S3: %s %llu bytes of RAM: %u%%\n", (const char *)arg, (unsigned long long)total,
            percent);
}

/*
 * The TPM part of suspending: a fresh MAC key; the TPM's reset and restart counts the next
 * resume will find; the state digest; the seal, to PCR 17/18 as launched, recording PCR 17/18
 * and the state digest in its creation data; the caps.
 */
static void seal_for_resume(struct s3_state *s)
{
    struct tpm2 *t = launch_tpm();
    uint8_t values[2 * TPM2_MAX_DIGEST], policy[TPM2_POLICY_DIGEST_SIZE];
    struct tpm2_clock clock;
    uint32_t primary;
    char err[160];

    if (!launch_tpm_acquire())
        integrity_halt("no TPM to seal the memory key with");
    s->seal_bank = tpm_banks_seal_bank(launch_banks());
    if (!s->seal_bank)
        integrity_halt("no PCR bank to seal to");
    launch_pcr_values(t, s->seal_bank, values);
    tpm2_policy_pcr_digest(s->seal_bank, seal_pcrs, 2, values, policy);
    if (tpm2_read_clock(t, &clock))
        integrity_halt(t->err);
    s3_counts_for_resume(&clock, &s->reset_count, &s->restart_count);

    if (tpm2_get_random(t, secrets.mac_key, sizeof(secrets.mac_key)))
        integrity_halt(t->err);
    static const struct progress_cb progress = { mac_progress, (void *)"MACing" };
    uint64_t t0 = timer_now_us(), tsc0 = timer_tsc();
    mac_regions_compute(secrets.mac_key, &s->regions, &s->linux_map, s->tags, &progress);
    timer_count_hashing(timer_tsc() - tsc0);
    pr_info("S3: MACed %u regions, %llu bytes of RAM, in %llu ms\n", s->regions.n,
            (unsigned long long)mac_regions_covered(&s->regions, &s->linux_map),
            (unsigned long long)((timer_now_us() - t0) / 1000));
    memcpy(secrets.s3_key, shared()->s3_key, sizeof(secrets.s3_key));
    s3_state_digest(s, secrets.state_digest);

    struct tpm2_creation_request req = { s->seal_bank, seal_pcrs, 2, secrets.state_digest,
                                         sizeof(secrets.state_digest) };
    if (tpm2_create_storage_primary(t, &primary) ||
        tpm2_seal_recorded(t, primary, policy, &secrets, sizeof(secrets), &req, &s->sealed,
                           &s->creation)) {
        fmt_snprintf(err, sizeof(err), "sealing the memory key: %s", t->err);
        integrity_halt(err);
    }
    tpm2_flush_context(t, primary);
    memzero_explicit(&secrets, sizeof(secrets));
    memzero_explicit(shared()->s3_key, sizeof(shared()->s3_key));
    pr_info("S3: key sealed to PCR 17 and 18 (%s) as launched, for the resume after TPM "
            "restart %u\n", tpm_hash_name(s->seal_bank), s->restart_count);
    pcr_cap("entering S3");
    launch_tpm_acquire();
    if (tpm2_shutdown(t, TPM2_SU_STATE))
        pr_warn("S3: %s\n", t->err);
    launch_tpm_release();
}

/* The FACS's waking vector field (acpi_waking_vector decides); 0: no S3. */
static volatile uint32_t *waking_vector(const struct tboot_acpi_sleep_info *si)
{
    const struct acpi_platform *acpi = machine_acpi();
    struct acpi_waking_vector w = acpi_waking_vector(acpi ? acpi->facs : 0, si->wakeup_vector,
                                                     si->vector_width);
    if (w.field && w.kernel_differs)
        pr_warn("S3: the kernel's wakeup_vector 0x%llx (width %u) is not FACS+12 (0x%llx); "
                "using the FACS\n", (unsigned long long)si->wakeup_vector, si->vector_width,
                (unsigned long long)w.field);
    return w.field ? phys_map(w.field, 4) : 0;
}

void s3_suspend(void)
{
    struct tboot_shared *sp = shared();
    const struct tboot_acpi_sleep_info *si = &sp->acpi_sinfo;
    struct s3_state *s = state();
    char err[160];

    volatile uint32_t *vector = waking_vector(si);
    if (!vector)
        integrity_halt("refused: no FACS waking vector to point at vtboot (the resume could not "
                       "go through a launch)");
    if (!pcr_cap_armed()) {
        /* nothing was promised: the firmware resumes the kernel directly */
        pr_warn("S3: the launch was not measured; suspending without memory integrity\n");
        machine_sleep_as_kernel_asks(si);
        halt("S3 did not happen");
    }
    if (si->kernel_s3_resume_vector == 0 || si->kernel_s3_resume_vector >= REAL_MODE_LIMIT)
        integrity_halt("the kernel's S3 resume vector is not below 1 MiB");
    /* nothing of the kernel's runs on the other CPUs from here on (takeover.c) */
    mle_park_other_cpus("S3");

    if (!resumed) {
        /* after a resume, the boot's options, command line and map are those it persisted */
        memset(s, 0, sizeof(*s));
        s->magic = S3_STATE_MAGIC;
        s->version = S3_STATE_VERSION;
        s->size = sizeof(*s);
        s->opts = *boot_options();
        strlcpy(s->cmdline, boot_cmdline(), sizeof(s->cmdline));
        s->linux_map = *linux_e820_map();
    }
    s3_keep_rsdp(s);
    s->vl = *launch_measurements();
    s->ext_flags = ext_block()->flags;
    shared_page_fixed_get(sp, &s->shared);
    if (acpi_digest_tables(machine_acpi()->rsdp, &s->acpi, err, sizeof(err)))
        integrity_halt(err);
    s->kernel_resume_vector = si->kernel_s3_resume_vector;
    s3_save_chipset(s);
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
    timer_log_jump("S3 sleep");
    machine_sleep_as_kernel_asks(si);
    halt("S3 did not happen");
}

/*
 * Loads the sealed key and accepts it only if this TPM made it in this launch for this
 * suspend's state: TPM2_CertifyCreation checks the TPM's own ticket binding the creation data
 * to the object, whose PCR 17/18 must be those of the launch now, its parent the storage
 * primary, its locality the launch's, and its outsideInfo the digest of the state found now.
 * Then unseals it (PolicyPCR 17/18).
 */
static void unseal_secrets(struct s3_state *s, const uint8_t digest[32])
{
    struct tpm2 *t = launch_tpm();
    struct tpm2_creation_info info;
    uint8_t name[TPM2_NAME_MAX], values[2 * TPM2_MAX_DIGEST], pcr_digest[32];
    uint16_t name_size = 0, len = 0;
    uint32_t primary, item, session;
    char err[200], why[160];

    if (tpm2_creation_parse(s->creation.data, s->creation.data_size < sizeof(s->creation.data)
                            ? s->creation.data_size : sizeof(s->creation.data), &info, why,
                            sizeof(why))) {
        fmt_snprintf(err, sizeof(err), "the sealed key's creation data is malformed: %s", why);
        integrity_halt(err);
    }
    if (tpm2_create_storage_primary_named(t, &primary, name, &name_size) ||
        tpm2_load(t, primary, &s->sealed, &item)) {
        fmt_snprintf(err, sizeof(err), "loading the sealed key: %s", t->err);
        integrity_halt(err);
    }
    if (tpm2_certify_creation(t, item, &s->creation)) {
        fmt_snprintf(err, sizeof(err), "the sealed key was not created by this TPM as its "
                     "creation data says (%s)", t->err);
        integrity_halt(err);
    }
    hash_buffer(TPM_ALG_SHA256, values, launch_pcr_values(t, s->seal_bank, values), pcr_digest);
    const char *refused = s3_creation_verdict(&info, s->seal_bank, pcr_digest, name, name_size,
                                              LAUNCH_LOCALITY, digest);
    if (refused)
        integrity_halt(refused);

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
    if (len != sizeof(secrets) || memcmp(digest, secrets.state_digest, 32))
        integrity_halt("the resume state changed while suspended");
}

void s3_resume_log(void)
{
    const struct s3_state *s = state();
    struct tboot_log *log = phys_map(TBOOT_LOG_ADDR, TBOOT_LOG_SIZE);

    if (s->opts.log_memory && log)
        printk_set_memlog(log, TBOOT_LOG_SIZE);
}

void s3_resume(void)
{
    struct s3_state *s = state();
    struct tpm2 *t = launch_tpm();
    struct tboot_shared *sp = shared();
    static struct acpi_digests acpi_now;
    struct tpm2_clock clock;
    uint8_t digest[32];
    char why[200];

    resumed = true;
    if (s3_state_check(s, why, sizeof(why)))
        integrity_halt(why);
    pr_info("S3 resume: launched again; checking what was suspended\n");
    s3_restore_chipset(s);
    machine_init(s3_resume_rsdp(s));
    launch_log_start();
    if (!launch_extend_again(&s->vl))
        integrity_halt("the re-launch failed");

    /* this suspend's state, for this resume only */
    if (!launch_tpm_acquire() || tpm2_read_clock(t, &clock))
        integrity_halt(t->err);
    if (s3_counts_check(s, &clock, why, sizeof(why)))
        integrity_halt(why);
    s3_state_digest(s, digest);
    unseal_secrets(s, digest);

    /* what the kernel uses after the wake-up besides its own memory */
    const char *field = shared_page_fixed_diff(&s->shared, sp);
    if (field) {
        fmt_snprintf(why, sizeof(why), "the shared page's %s changed while suspended", field);
        integrity_halt(why);
    }
    int bad = acpi_digest_tables(machine_acpi() ? machine_acpi()->rsdp : 0, &acpi_now, why,
                                 sizeof(why)) ? 0 : acpi_digests_compare(&s->acpi, &acpi_now);
    if (bad >= 0) {
        const struct acpi_table_digest *d = (unsigned)bad < s->acpi.n ? &s->acpi.t[bad]
                                                                      : &acpi_now.t[bad];
        fmt_snprintf(why, sizeof(why), "ACPI table %.4s at 0x%llx changed while suspended",
                     d->signature, (unsigned long long)d->addr);
        integrity_halt(why);
    }

    static const struct progress_cb progress = { mac_progress, (void *)"verifying" };
    uint64_t t0 = timer_now_us(), tsc0 = timer_tsc();
    bad = mac_regions_verify(secrets.mac_key, &s->regions, &s->linux_map, s->tags, &progress);
    timer_count_hashing(timer_tsc() - tsc0);
    if (bad >= 0) {
        fmt_snprintf(why, sizeof(why), "memory integrity FAILED: MAC region %d (0x%llx+0x%x) "
                     "changed while suspended", bad,
                     (unsigned long long)s->regions.r[bad].start, s->regions.r[bad].size);
        integrity_halt(why);
    }
    memcpy(sp->s3_key, secrets.s3_key, sizeof(sp->s3_key));
    memzero_explicit(&secrets, sizeof(secrets));
    sp->num_in_wfs = 0;              /* every AP was reset */
    ext_block()->flags |= s->ext_flags;
    launch_tpm_release();
    pr_info("S3: memory integrity verified: %u regions, %llu bytes, in %llu ms\n",
            s->regions.n, (unsigned long long)mac_regions_covered(&s->regions, &s->linux_map),
            (unsigned long long)((timer_now_us() - t0) / 1000));
    /* the way back to real mode runs from the low page: the measured copy, not what was there */
    lowmem_install();
    pr_info("S3: resuming Linux at 0x%llx\n", (unsigned long long)s->kernel_resume_vector);
    timer_log_jump("jump into Linux's S3 resume vector");
    boot_simd_restore();
    real_mode_jump((uint32_t)s->kernel_resume_vector);
}
