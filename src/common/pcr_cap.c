/* SPDX-License-Identifier: MIT */
#include <stdint.h>

#include "abi/tcg_eventlog.h"
#include "common/drtm_log.h"
#include "common/launch_tpm.h"
#include "common/pcr_cap.h"
#include "lib/string.h"
#include "log/printk.h"

static bool armed;

void pcr_cap_arm(void)
{
    armed = true;
}

bool pcr_cap_armed(void)
{
    return armed;
}

/* Random values (fixed ones if the TPM gives none: still not the launch's), logged as caps. */
void pcr_cap_now(const char *why)
{
    static const uint8_t pcrs[] = { 17, 18, 19 };
    struct tpm2 *tpm = launch_tpm();
    const struct tpm_banks *banks = launch_banks();
    struct tpm_digest_list cap, now;

    if (!launch_tpm_acquire()) {
        pr_err("capping PCRs: %s\n", tpm->err);
        return;
    }
    cap.count = banks->count;
    for (unsigned i = 0; i < banks->count; i++) {
        cap.d[i].alg = banks->alg[i];
        if (tpm2_get_random(tpm, cap.d[i].bytes, tpm_hash_size(banks->alg[i])))
            memset(cap.d[i].bytes, 0xa5, sizeof(cap.d[i].bytes));
    }
    for (unsigned i = 0; i < sizeof(pcrs); i++) {
        if (tpm2_pcr_extend(tpm, pcrs[i], &cap))
            pr_err("capping PCR %u: %s\n", pcrs[i], tpm->err);
        if (drtm_log_started())
            drtm_log_event(pcrs[i], EV_TXT_CAP_VALUE, &cap, "vtboot: cap");
    }
    memzero_explicit(&cap, sizeof(cap));
    pr_info("capped PCRs 17-19 (%s)\n", why);
    if (tpm2_pcr_read(tpm, 17, banks, &now) == 0)
        launch_tpm_print_digests("PCR 17 after the cap,", &now);
    launch_tpm_release();
}

void pcr_cap(const char *why)
{
    if (!armed)
        return;
    armed = false;                   /* once: a failing cap must not recurse through a halt */
    if (!launch_tpm_usable()) {
        pr_err("cannot cap PCRs 17-19 (%s): no usable TPM\n", why);
        return;
    }
    pcr_cap_now(why);
}
