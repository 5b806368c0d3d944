/* SPDX-License-Identifier: MIT */
/*
 * vtboot before the launch (tboot's begin_launch), entered from the loader or from the S3
 * waking vector. Nothing here is measured and nothing here is trusted later: it finds its
 * command line and logging options, refuses modules that cannot be used (the MLE checks them
 * again), writes the command line into the MLE (so that the launch measures it), leaves the
 * MLE a hand-over, quiesces the platform (prelaunch/quiesce.h) and asks the host for the
 * launch. A launch never
 * comes back here. Without one, the policy decides whether Linux starts unmeasured, through
 * the same boot flow the MLE runs.
 */
#include <stdint.h>

#include "abi/tboot_log.h"
#include "boot/handoff.h"
#include "drivers/timer.h"
#include "drivers/vsenter.h"
#include "common/boot.h"
#include "common/halt.h"
#include "common/machine.h"
#include "common/s3_platform.h"
#include "layout.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "log/memlog.h"
#include "log/printk.h"
#include "prelaunch/nolaunch.h"
#include "prelaunch/quiesce.h"
#include "tboot/s3rules.h"
#include "tboot/s3state.h"

void prelaunch_boot(uint32_t magic, uint32_t info) __attribute__((noreturn));
void prelaunch_resume(void) __attribute__((noreturn));

/* Requests before giving up: an AP the firmware started just before (SeaBIOS starts them on
 * every S3 resume) may still take a SIPI it had pending after the first INIT. */
#define REQUEST_TRIES 3u

__attribute__((section(".handoff"))) struct handoff handoff;

/* Asks for the launch of this image; returns only without one, having said why. A request
 * the host never answered may have reset PCR 17 without a launch: that is capped first. */
static void request_launch(const struct vtboot_options *opts)
{
    enum vsenter_result r = VSENTER_ABSENT;
    char reason[96];

    timer_init();
    for (unsigned try = 1; try <= REQUEST_TRIES; try++) {
        prelaunch_quiesce();
        pr_info("requesting the dynamic launch (virtual SENTER) of the MLE at 0x%08x "
                "(header 0x%08x)\n", sym_addr(_mle_start), sym_addr(&mle_header));
        r = vsenter_request(sym_addr(_mle_start), sym_addr(&mle_header), reason,
                            sizeof(reason));
        if (r != VSENTER_REFUSED)
            break;
        pr_warn("the host refused the launch: %s\n", reason);
    }
    pr_err("NO DYNAMIC LAUNCH: %s%s\n",
           r == VSENTER_ABSENT ? "no virtual SENTER channel (platform without TXT)"
           : r == VSENTER_REFUSED ? "the host refused: " : "the host did not answer",
           r == VSENTER_REFUSED ? reason : "");
    if (r == VSENTER_NO_ANSWER)
        nolaunch_cap_unconfirmed(opts);
}

void prelaunch_boot(uint32_t magic, uint32_t info)
{
    timer_mark_entry();
    boot_log_init(handoff.log, sizeof(handoff.log));
    const struct boot_info *bi = boot_read_loader(magic, info);
    boot_log_options(bi->cmdline);
    boot_banner("pre-launch (not measured)");
    pr_info("command line: %s\n", bi->cmdline);
    timer_log_entry("pre-launch");
    boot_refuse_bad_modules();       /* no launch for modules the MLE would refuse */

    mle_cmdline_store(mle_cmdline, MLE_CMDLINE_SIZE, bi->cmdline);
    handoff_start(&handoff, HANDOFF_BOOT, magic, info);
    request_launch(boot_options());
    nolaunch_decide(boot_prepare(magic, info));
    boot_start();
}

void prelaunch_resume(void)
{
    const struct s3_state *s = s3_state_area();

    if (!s3_state_is_ours(s))
        machine_stop_cpu();   /* not ours to resume: no console known either */
    boot_log_init(handoff.log, sizeof(handoff.log));
    apply_log_options(&s->opts);
    pr_info("S3 resume: the firmware entered the waking vector\n");
    s3_restore_chipset(s);
    machine_init(s3_resume_rsdp(s));

    mle_cmdline_store(mle_cmdline, MLE_CMDLINE_SIZE, s->cmdline);
    handoff_start(&handoff, HANDOFF_S3_RESUME, 0, 0);
    request_launch(&s->opts);
    halt("S3: no launch to resume in");
}
