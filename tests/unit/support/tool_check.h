/* SPDX-License-Identifier: MIT */
/* A host tool (host_tools.h) that a cmocka test needs to succeed. */
#ifndef TESTS_TOOL_CHECK_H
#define TESTS_TOOL_CHECK_H

#include "host_tools.h"

/*
 * Runs argv as tool_run does (env may be NULL); if it does not exit with 0, the test fails
 * naming the tool, its exit status and its output. Returns the run (its output the caller may
 * edit), valid until the next call.
 */
struct tool_run *tool_must_run(const char *const *argv, const char *const *env,
                               unsigned timeout_ms);

struct swtpm_sim;

/* A tpm2-tools command that must succeed against the simulator (swtpm_sim.h): TPM2TOOLS_TCTI
 * names it, and the test's own connection is dropped first (swtpm serves one client at a time). */
void tool_must_run_on_sim(struct swtpm_sim *sim, const char *const *argv);

#endif
