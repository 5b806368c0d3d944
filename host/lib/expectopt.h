/* SPDX-License-Identifier: MIT */
/*
 * The command-line options that name an expected launch, one parser for the tools that take
 * them: vtboot-pcr predict and vtboot-attest verify (whose expectation must be exactly
 * vtboot-pcr's prediction, so both read the same options the same way):
 *
 *   --vtboot F  --vtboot-cmdline S  --kernel F  --cmdline S  --initrd F  --initrd-cmdline S
 *   --module F[=S]...  --policy F  --pcr-map da|legacy  [--xen F  --xen-cmdline S]
 *   [--sinit F  --os-sinit-caps X  --lcp-policy F]   (an Intel TXT launch: txtexpect.h)
 *
 * A tool puts EXPECT_LONGOPTS(base) (and EXPECT_LONGOPTS_XEN(base) if it lays Xen out as
 * module 0) into its getopt_long table and hands every value from base to base + EXPECT_OPT_N
 * - 1 to expect_opt(). What is missing stays NULL: each tool says what it defaults or needs.
 * expect_opts_files() then lays the modules out in vtboot's order (expect.h's expect_files),
 * and after expect_load() expect_opts_txt() makes it a TXT launch's expectation if --sinit
 * was given (EXPECT_LONGOPTS_TXT).
 */
#ifndef HOST_EXPECTOPT_H
#define HOST_EXPECTOPT_H

#include "expect.h"
#include "txtexpect.h"

#include <stdbool.h>

enum {
    EXPECT_OPT_VTBOOT, EXPECT_OPT_VTBOOT_CMDLINE, EXPECT_OPT_KERNEL, EXPECT_OPT_CMDLINE,
    EXPECT_OPT_INITRD, EXPECT_OPT_INITRD_CMDLINE, EXPECT_OPT_MODULE, EXPECT_OPT_POLICY,
    EXPECT_OPT_PCR_MAP, EXPECT_OPT_XEN, EXPECT_OPT_XEN_CMDLINE,
    EXPECT_OPT_SINIT, EXPECT_OPT_OS_SINIT_CAPS, EXPECT_OPT_LCP_POLICY,
    EXPECT_OPT_N,
};

/* getopt_long entries (struct option initializers); names that share a prefix keep one order */
#define EXPECT_LONGOPTS(base) \
    { "vtboot", required_argument, NULL, (base) + EXPECT_OPT_VTBOOT }, \
    { "vtboot-cmdline", required_argument, NULL, (base) + EXPECT_OPT_VTBOOT_CMDLINE }, \
    { "kernel", required_argument, NULL, (base) + EXPECT_OPT_KERNEL }, \
    { "cmdline", required_argument, NULL, (base) + EXPECT_OPT_CMDLINE }, \
    { "initrd", required_argument, NULL, (base) + EXPECT_OPT_INITRD }, \
    { "initrd-cmdline", required_argument, NULL, (base) + EXPECT_OPT_INITRD_CMDLINE }, \
    { "module", required_argument, NULL, (base) + EXPECT_OPT_MODULE }, \
    { "policy", required_argument, NULL, (base) + EXPECT_OPT_POLICY }, \
    { "pcr-map", required_argument, NULL, (base) + EXPECT_OPT_PCR_MAP }
#define EXPECT_LONGOPTS_XEN(base) \
    { "xen", required_argument, NULL, (base) + EXPECT_OPT_XEN }, \
    { "xen-cmdline", required_argument, NULL, (base) + EXPECT_OPT_XEN_CMDLINE }
#define EXPECT_LONGOPTS_TXT(base) \
    { "sinit", required_argument, NULL, (base) + EXPECT_OPT_SINIT }, \
    { "os-sinit-caps", required_argument, NULL, (base) + EXPECT_OPT_OS_SINIT_CAPS }, \
    { "lcp-policy", required_argument, NULL, (base) + EXPECT_OPT_LCP_POLICY }

struct expect_opts {
    const char *prog;                /* "vtboot-pcr": the prefix of the messages */
    bool xen;                        /* the tool takes --xen: one module slot less for --module */
    const char *vtboot, *vtboot_cmdline, *kernel, *cmdline, *initrd, *initrd_cmdline;
    const char *xen_file, *xen_cmdline, *policy;
    const char *sinit, *lcp_policy;  /* a TXT launch: the SINIT, the PO index's policy */
    uint32_t os_sinit_caps;          /* TXT_EXPECT_TBOOT_OS_SINIT_CAPS unless --os-sinit-caps */
    bool caps_given;
    enum pcr_map map;                /* PCR_MAP_DA unless --pcr-map legacy */
    unsigned nextra;
    const char *extra[PREDICT_MAX_MODULES];     /* --module F[=S], as given */
    char *files[PREDICT_MAX_MODULES];           /* their file names (expect_opts_files) */
};

void expect_opts_init(struct expect_opts *o, const char *prog, bool xen);
/* One option (which: EXPECT_OPT_*): 0, or -1 with "<prog>: <reason>" on stderr (usage: 2). */
int expect_opt(struct expect_opts *o, int which, const char *arg);
/* The modules in vtboot's order: Xen (if given), the kernel, the initrd (if given), then each
 * --module; a string not given is "". Sets f's modules, map, vtboot, vtboot_cmdline (or "")
 * and policy, as given. The module file names stay o's until expect_opts_free(). */
void expect_opts_files(struct expect_opts *o, struct expect_files *f);
void expect_opts_free(struct expect_opts *o);
/* With --sinit: loads the SINIT's part (txt_expect_load, and --lcp-policy) into t and makes in
 * a TXT launch's input (in->txt, and in->mle_bank: tboot's one bank). Without: nothing, 0.
 * --os-sinit-caps or --lcp-policy without --sinit is an error. 0, or -1 with the reason. */
int expect_opts_txt(const struct expect_opts *o, struct txt_expect *t, struct predict_input *in,
                    char *err, size_t errsz);

#endif
