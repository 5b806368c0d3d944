/* SPDX-License-Identifier: MIT */
#include "abi/tboot_shared.h"
#include "abi/tcg_eventlog.h"
#include "abi/vtboot_ext.h"
#include "common/drtm_log.h"
#include "common/ext_block.h"
#include "common/halt.h"
#include "common/launch_policy.h"
#include "common/launch_tpm.h"
#include "common/pcr_cap.h"
#include "crypto/hash.h"
#include "drivers/timer.h"
#include "layout.h"
#include "lib/format.h"
#include "lib/string.h"
#include "log/printk.h"
#include "mle/launch.h"
#include "tboot/measure.h"
#include "tboot/shared_page.h"
#include "tpm/tpm2.h"

static struct launch_measurements lm;
static struct tpm_digest_list mle_digests;  /* H(MLE) per bank, for the event log */

/* H(0^n || H(MLE)) in every bank: what the dynamic launch leaves in PCR 17. */
static void expected_pcr17(struct tpm_digest_list *mle, struct tpm_digest_list *pcr17)
{
    const struct tpm_banks *banks = launch_banks();
    uint32_t size = sym_addr(_mle_end) - sym_addr(_mle_start);
    mle->count = pcr17->count = banks->count;
    for (unsigned i = 0; i < banks->count; i++) {
        uint16_t alg = banks->alg[i];
        mle->d[i].alg = pcr17->d[i].alg = alg;
        hash_buffer(alg, _mle_start, size, mle->d[i].bytes);
        memset(pcr17->d[i].bytes, 0, sizeof(pcr17->d[i].bytes));
        hash_extend(alg, pcr17->d[i].bytes, mle->d[i].bytes);
    }
}

void launch_confirm(const struct vtboot_options *opts)
{
    static struct tpm_digest_list want, got;
    struct tpm2 *tpm = launch_tpm();

    launch_policy_init(opts);
    timer_init();
    pcr_cap_arm();                   /* from here on every halt caps first */
    if (!launch_tpm_find(opts->extpol_alg))
        halt("launched, but the TPM is not usable");
    const struct tpm_banks *banks = launch_banks();
    uint64_t t0 = timer_tsc();
    expected_pcr17(&mle_digests, &want);
    timer_count_hashing(timer_tsc() - t0);
    if (tpm2_pcr_read(tpm, 17, banks, &got)) {
        pr_err("reading PCR 17: %s\n", tpm->err);
        halt("the launch cannot be confirmed");
    }
    for (unsigned i = 0; i < banks->count; i++) {
        if (memcmp(got.d[i].bytes, want.d[i].bytes, tpm_hash_size(banks->alg[i]))) {
            launch_tpm_print_digests("PCR 17 expected", &want);
            launch_tpm_print_digests("PCR 17 found", &got);
            pr_err("PCR 17 does not hold the launch of this MLE\n");
            halt("the launch cannot be confirmed");
        }
    }
    pr_info("dynamic launch confirmed: PCR 17 = H(0 || H(MLE)) in every bank\n");
    launch_tpm_print_digests("MLE", &mle_digests);
}

/* The event log's first event is the launch. It is written only now, once nothing a loader
 * put into vtboot's region is still there. */
void launch_log_start(void)
{
    if (drtm_log_start(launch_banks()) ||
        drtm_log_event(17, EV_TXT_MLE_HASH, &mle_digests, "vtboot: MLE (virtual SENTER)"))
        halt("the event log cannot hold the launch");
}

/* Extends and logs every measurement; false (with the reason logged) on the first failure. */
static bool extend_all(const struct vl_list *vl)
{
    struct tpm2 *tpm = launch_tpm();
    for (unsigned i = 0; i < vl->n; i++) {
        const struct vl_entry *v = &vl->e[i];
        if (tpm2_pcr_extend(tpm, v->pcr, &v->digests)) {
            pr_err("extending PCR %u: %s\n", v->pcr, tpm->err);
            return false;
        }
        pr_detail("extended PCR %u: %s\n", v->pcr, v->what);
        if (drtm_log_event(v->pcr, EV_TB_MEASUREMENT, &v->digests, v->what))
            return false;
    }
    return true;
}

static void verify_modules(void)
{
    const struct tb_policy *policy = launch_policy();
    for (unsigned i = 0; i < lm.nr_modules; i++) {
        const struct tb_policy_entry *e = tb_policy_find(policy, i);
        char hex[2 * TPM2_MAX_DIGEST + 1];
        for (unsigned b = 0; b < tpm_hash_size(policy->hash_alg); b++)
            fmt_snprintf(hex + 2 * b, 3, "%02x", lm.policy_digest[i][b]);
        switch (lm.verdict[i]) {
        case MODULE_NOT_IN_POLICY:
            pr_err("module %u: not in the policy (%s %s)\n", i, tpm_hash_name(policy->hash_alg),
                   hex);
            launch_policy_apply(TB_ERR_MODULES_NOT_IN_POLICY);
            break;
        case MODULE_ACCEPTED_ANY:
            pr_info("module %u: accepted, policy allows any hash (%s %s)\n", i,
                    tpm_hash_name(policy->hash_alg), hex);
            break;
        case MODULE_MATCHED:
            pr_info("module %u: verified, %s %s matches the policy\n", i,
                    tpm_hash_name(policy->hash_alg), hex);
            break;
        case MODULE_MISMATCHED:
            pr_err("module %u: verification FAILED, %s %s is not among the policy's %u hash(es)\n",
                   i, tpm_hash_name(policy->hash_alg), hex, e ? e->num_hashes : 0);
            launch_policy_apply(TB_ERR_MODULE_VERIFICATION_FAILED);
            break;
        }
    }
}

/* A module of 16 MiB or more says how far its hashing got, a line per 10% (tboot/progress.h). */
static void module_progress(void *arg, unsigned item, unsigned percent, uint64_t total)
{
    (void)arg;
    pr_info("hashing module %u (%llu bytes, every bank): %u%%\n", item,
            (unsigned long long)total, percent);
}

void launch_measure(const struct boot_info *bi)
{
    static struct module_ref mods[BOOT_MAX_MODULES];
    struct tpm2 *tpm = launch_tpm();

    launch_log_start();
    launch_policy_read();
    for (unsigned i = 0; i < bi->nr_modules; i++)
        mods[i] = (struct module_ref){ bi->modules[i].string,
                                       (const void *)(uintptr_t)bi->modules[i].start,
                                       bi->modules[i].end - bi->modules[i].start };
    static const struct progress_cb progress = { module_progress, 0 };
    uint64_t t0 = timer_tsc();
    int rc = measure_launch(launch_policy(), launch_banks(), launch_pcr_map(), mods,
                            bi->nr_modules, &lm, &progress);
    timer_count_hashing(timer_tsc() - t0);
    if (rc) {
        pr_err("too many measurements (more than %u)\n", VL_MAX);
        launch_policy_apply(TB_ERR_FATAL);
    }
    verify_modules();
    if (!extend_all(&lm.vl))
        launch_policy_apply(TB_ERR_FATAL);
    ext_block()->flags |= VTBOOT_EXT_MEASURED;
    pr_info("measured launch: %u extends into PCRs 17-19, event log at 0x%08x (%u bytes)\n",
            lm.vl.n, sym_addr(_evtlog_start), drtm_log_used());
    /* tboot's s3_key: a secret for the kernel, kept sealed while the machine sleeps */
    struct tboot_shared *sp = (struct tboot_shared *)_shared_page;
    if (tpm2_get_random(tpm, sp->s3_key, sizeof(sp->s3_key)))
        launch_policy_apply(TB_ERR_FATAL);
    launch_tpm_release();
}

const struct vl_list *launch_measurements(void)
{
    return &lm.vl;
}

bool launch_extend_again(const struct vl_list *vl)
{
    lm.vl = *vl;
    if (!extend_all(vl))
        return false;
    pr_info("re-launched: %u measurements extended again, event log %u bytes\n", vl->n,
            drtm_log_used());
    return true;
}
