/* SPDX-License-Identifier: MIT */
#include "test_common.h"

#include "swtpm_sim.h"
#include "tool_check.h"

struct tool_run *tool_must_run(const char *const *argv, const char *const *env,
                               unsigned timeout_ms)
{
    static struct tool_run run;

    if (tool_run(&run, argv, env, timeout_ms) != 0)
        fail_msg("%s exited with %d: %s%s", argv[0], run.status, run.out, run.err);
    return &run;
}

void tool_must_run_on_sim(struct swtpm_sim *sim, const char *const *argv)
{
    char tcti[sizeof(sim->tcti) + 16];
    const char *env[] = { tcti, NULL };

    snprintf(tcti, sizeof(tcti), "TPM2TOOLS_TCTI=%s", sim->tcti);
    swtpm_sim_disconnect(sim);
    tool_must_run(argv, env, 10000);
}
