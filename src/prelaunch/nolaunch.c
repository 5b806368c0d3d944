/* SPDX-License-Identifier: MIT */
#include "abi/vtboot_ext.h"
#include "common/boot.h"
#include "common/ext_block.h"
#include "common/launch_policy.h"
#include "common/launch_tpm.h"
#include "common/pcr_cap.h"
#include "log/printk.h"
#include "prelaunch/nolaunch.h"

void nolaunch_decide(const struct boot_info *bi)
{
    const struct vtboot_options *opts = boot_options();

    (void)bi;
    launch_policy_init(opts);
    if (!launch_tpm_find(opts->extpol_alg)) {
        launch_tpm_release();
        if (launch_policy_apply(TB_ERR_TPM_NOT_READY) == TB_ACT_UNMEASURED_LAUNCH)
            pr_err("UNMEASURED LAUNCH: no TPM; PCRs untouched, Linux starts without a measured "
                   "launch\n");
        return;
    }
    ext_block()->flags |= VTBOOT_EXT_TPM;
    launch_policy_read();
    launch_tpm_release();
    if (launch_policy_apply(TB_ERR_TXT_NOT_SUPPORTED) == TB_ACT_UNMEASURED_LAUNCH)
        pr_err("UNMEASURED LAUNCH: PCRs 17-19 untouched, Linux starts without a measured "
               "launch\n");
}

void nolaunch_cap_unconfirmed(const struct vtboot_options *opts)
{
    if (!launch_tpm_find(opts->extpol_alg)) {
        launch_tpm_release();
        pr_err("cannot cap PCRs 17-19: no usable TPM\n");
        return;
    }
    pcr_cap_now("a launch was requested and not confirmed");
    launch_tpm_forget();
}
