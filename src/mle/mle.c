/* SPDX-License-Identifier: MIT */
/*
 * vtboot after the launch (tboot's post_launch): the MLE, entered only by the host's virtual
 * SENTER at its entry point (mle/entry.S), measured in PCR 17. It runs with the options
 * of its own measured command line, confirms the launch in PCR 17 before anything else (every
 * halt from then on caps PCRs 17-19), takes the platform over (mle/takeover.h: the
 * other CPUs parked in its own code), then checks what the pre-launch code left and boots or
 * resumes, re-validating every input it uses.
 */
#include <stdint.h>

#include "abi/tboot_log.h"
#include "boot/handoff.h"
#include "drivers/timer.h"
#include "common/boot.h"
#include "common/halt.h"
#include "common/simd_state.h"
#include "layout.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "log/memlog.h"
#include "log/printk.h"
#include "mle/launch.h"
#include "mle/s3.h"
#include "mle/takeover.h"

void mle_main(void) __attribute__((noreturn));

static uint8_t memlog_staging[TBOOT_LOG_SIZE] __attribute__((aligned(16)));

/* The pre-launch lines go into the memory log too (they are on the console already), marked
 * as what they are. */
static void keep_prelaunch_log(const struct handoff *h)
{
    size_t size, len;
    struct tboot_log *log = printk_memlog(&size);
    const char *text = handoff_log_text(h, &len);

    if (!log || !text || !len)
        return;
    printk_memlog_only(LOG_INFO, "the pre-launch code (not measured) logged %u bytes:\n",
                       (unsigned)len);
    memlog_append(log, size, text, len);
}

void mle_main(void)
{
    char err[128];

    timer_mark_entry();
    /* This CPU (the BSP) hashes: its SIMD state for the crypto paths before the first hash
     * (crypto/cpu.h); restored before the jump into Linux or its S3 resume vector. */
    boot_simd_enable();
    boot_log_init(memlog_staging, sizeof(memlog_staging));
    /* The command line the launch measured, and nothing else, sets the options. */
    mle_cmdline[MLE_CMDLINE_SIZE - 1] = '\0';
    boot_log_options(mle_cmdline);
    boot_banner("measured launch environment (entered by the virtual SENTER)");
    pr_info("command line: %s\n", mle_cmdline);
    timer_log_entry("MLE");
    boot_simd_log();
    launch_confirm(boot_options());
    mle_take_over_platform();
    mle_park_other_cpus("MLE");

    if (handoff_check(&handoff, err, sizeof(err))) {
        pr_err("%s\n", err);
        halt("nothing to launch");
    }
    if (handoff.kind == HANDOFF_S3_RESUME) {
        s3_resume_log();
        keep_prelaunch_log(&handoff);
        s3_resume();
    }
    keep_prelaunch_log(&handoff);
    launch_measure(boot_prepare(handoff.loader_magic, handoff.loader_info));
    boot_start();
}
