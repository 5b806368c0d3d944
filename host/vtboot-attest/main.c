/* SPDX-License-Identifier: MIT */
/*
 * vtboot-attest: remote attestation of a vtboot launch, on tpm2-tss (ESAPI; the device TCTI in
 * the guest, swtpm's on the host) and OpenSSL.
 *
 *   vtboot-attest enroll  make the AK, prove it is in the certified EK's TPM (enroll.c)
 *   vtboot-attest quote   in the guest: quote PCRs 17-19 with the nonce, collect the event log
 *                         into one evidence file (quote.c)
 *   vtboot-attest verify  on the host: every check, one verdict (verify.c)
 *   vtboot-attest export  the evidence's parts as tpm2-tools files (export.c)
 */
#include "attest.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
"usage: vtboot-attest enroll --ca ROOT.pem --out DIR [--tpm TCTI] [--ca-chain PEM]\n"
"                            [--ak-handle H] [--ek-cert FILE]\n"
"       vtboot-attest quote --nonce HEX -o EVIDENCE [--tpm TCTI] [--ak-handle H]\n"
"                           [--banks LIST] [--event-log FILE] [--msg F] [--sig F] [--pcrs F]\n"
"       vtboot-attest verify --evidence F --enrolled DIR --ca ROOT.pem --nonce HEX\n"
"                            --vtboot F --vtboot-cmdline S --kernel F --cmdline S\n"
"                            [--initrd F [--initrd-cmdline S]] [--module F[=S]]...\n"
"                            --policy FILE|default [--pcr-map da|legacy]\n"
"                            [--sinit F [--os-sinit-caps X] [--lcp-policy F]]\n"
"       vtboot-attest export EVIDENCE DIR\n"
"       vtboot-attest COMMAND --help\n");
}

int main(int argc, char **argv)
{
    log_prog = "vtboot-attest";
    /* tpm2-tss logs its own errors on stderr; ours say what failed */
    setenv("TSS2_LOG", "all+NONE", 0);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "enroll"))
        return cmd_enroll(argc - 1, argv + 1);
    if (!strcmp(argv[1], "quote"))
        return cmd_quote(argc - 1, argv + 1);
    if (!strcmp(argv[1], "verify"))
        return cmd_verify(argc - 1, argv + 1);
    if (!strcmp(argv[1], "export"))
        return cmd_export(argc - 1, argv + 1);
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    usage(stderr);
    return 2;
}
