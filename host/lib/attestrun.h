/* SPDX-License-Identifier: MIT */
/*
 * vtboot-qemu --attest: the whole attestation round trip around one boot, with vtboot-attest
 * (next to the launcher) doing the TPM and verifier work:
 *
 *   1. a fresh TPM state gets EKs with certificates from swtpm's local CA
 *      (swtpm_setup --create-ek-cert with swtpm_localca, the CA in --attest-ca DIR, made there
 *      on first use: swtpm-localca-rootca-cert.pem is the trust anchor, issuercert.pem the
 *      intermediate that signs EK certificates);
 *   2. enroll: a swtpm on the state for this step only (like the policy provisioning) and
 *      `vtboot-attest enroll --tpm swtpm:path=...`; the record goes to <dir>/enrolled;
 *   3. the kernel command line gets " vtboot.guest=attest" (the same on every boot); the
 *      nonce (32 random bytes) goes to the guest outside anything measured: as the item
 *      "nonce" of the launcher's page (hostpage.h), the file <dir>/hostpage.bin that QEMU maps
 *      as an ivshmem-plain device (qemu.h host_page); the guest's /init reads it with
 *      vtboot-hostpage, runs `vtboot-attest quote` and prints the evidence as hex;
 *   4. after the guest ends: the evidence from the serial log into <dir>/evidence.bin and
 *      `vtboot-attest verify` against the expectation (--expect-*, default what was booted:
 *      the expected kernel command line is exactly the booted one).
 *
 * <dir> is --attest-dir DIR, or attest/ in the launcher's temp dir.
 */
#ifndef HOST_ATTESTRUN_H
#define HOST_ATTESTRUN_H

#include "boot.h"

#include <stdbool.h>
#include <stdint.h>

struct attest_opts {
    bool on;
    const char *dir;                    /* --attest-dir */
    const char *ca_dir;                 /* --attest-ca (default <out>/swtpm-localca) */
    const char *kernel, *initrd, *cmdline, *vtboot, *vtboot_cmdline, *policy;   /* --expect-* */
};

/* The launcher's options for it (opts.c hands them over): 0 taken, -1 bad value (reported). */
enum {
    ATTEST_OPT_ATTEST, ATTEST_OPT_DIR, ATTEST_OPT_CA, ATTEST_OPT_KERNEL, ATTEST_OPT_INITRD,
    ATTEST_OPT_CMDLINE, ATTEST_OPT_VTBOOT, ATTEST_OPT_VTBOOT_CMDLINE, ATTEST_OPT_POLICY,
    ATTEST_OPT_N,
};
extern const char *const attest_opt_names[ATTEST_OPT_N];      /* "attest", "attest-dir", ... */
int attest_opt(struct attest_opts *a, int which, const char *arg);
/* --help text for them */
extern const char attest_help[];

struct attest_run {
    struct attest_opts o;
    uint8_t nonce_bin[32];
    char nonce[65];                     /* hex */
    char *cmdline;                      /* the booted kernel command line (" vtboot.guest=attest") */
    char *dir, *ca_dir, *tool, *serial_path;
    char *host_page;                    /* <dir>/hostpage.bin: the nonce for QEMU's ivshmem */
    const char *boot_policy;            /* --policy of the boot, or NULL */
    int result;                         /* -1 not run, 0 passed, 1 failed */
    char summary[640];
};

/* Sets the run up: nonce, command line, directories (outdir: the launcher's out/). */
int attestrun_init(struct attest_run *a, const struct attest_opts *o, const char *cmdline,
                   const char *outdir);
/* After the temp dir exists: <dir>, the serial log path (if the caller gives none) and the
 * host page with the nonce (a->host_page, for QEMU). */
int attestrun_prepare(struct attest_run *a, const char *tmp, const char *serial_log);
/* A fresh state with EK certificates (swtpm_setup --create-ek-cert): 0, -1, 128+signal. */
int attestrun_setup_state(struct attest_run *a, const char *statedir, const char *banks,
                          const char *workdir);
/* Enrolls the TPM in statedir (a swtpm for this step only): 0, -1 or 128+signal. */
int attestrun_enroll(struct attest_run *a, const char *statedir, const char *workdir);
/* After the guest ended: evidence from the serial log, then verify against the expectation
 * for this loader (booted: the launcher's files and strings). Logs every check and sets
 * a->result and a->summary. */
void attestrun_verify(struct attest_run *a, const struct boot *booted, enum loader l,
                      const char *workdir);
/* The last line: "attestation passed: ...", "attestation FAILED: ..." or "attestation not
 * done: the guest did not power off"; true only if it passed. */
bool attestrun_report(const struct attest_run *a);

#endif
