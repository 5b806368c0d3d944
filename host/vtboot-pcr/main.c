/* SPDX-License-Identifier: MIT */
/*
 * vtboot-pcr: PCR values a vtboot launch produces, from the files alone.
 *
 *   vtboot-pcr predict [--xen F [--xen-cmdline S]] --kernel F [--cmdline S] [--initrd F]
 *                      [--initrd-cmdline S] [--module F[=S]]... [--policy F] [--bank ALG]... [--pcr-map da|legacy]
 *                      [--vtboot F] [--vtboot-cmdline S] [--format text|json|keylime] [-v]
 *                      [--sinit F [--os-sinit-caps X] [--lcp-policy F]]
 *   vtboot-pcr check-mle F
 *   vtboot-pcr audit-mle [--symbols FILE] [--format text|json] F   (audit.c)
 *
 * Strings are the exact ones vtboot receives from its loader: vtboot-qemu --print-cmdline and
 * --print-modules print them. Output, one line per PCR and bank: "17:sha256=<hex>"; or JSON
 * ({"sha1": {"17": "<hex>", ...}, ...}); or Keylime's tpm_policy ({"17": ["<hex>", ...], ...},
 * each list the PCR's value in every bank asked for, Keylime compares in its own hash).
 * The loading and the prediction live in host/lib (expect.c, predict.c), shared with
 * vtboot-attest verify.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "expect.h"
#include "expectopt.h"
#include "log.h"
#include "mle.h"
#include "predict.h"
#include "txtexpect.h"

static void usage(FILE *f)
{
    fprintf(f,
"usage: vtboot-pcr predict [--xen F [--xen-cmdline S]] --kernel F [--cmdline S] [--initrd F]\n"
"                          [--initrd-cmdline S]\n"
"                          [--module F[=S]]... [--policy F] [--bank sha1|sha256|sha384|sha512]...\n"
"                          [--pcr-map da|legacy] [--vtboot F] [--vtboot-cmdline S]\n"
"                          [--format text|json|keylime] [-v]\n"
"                          [--sinit F [--os-sinit-caps X] [--lcp-policy F]]\n"
"Prints the PCR 17, 18 and 19 values of a launched vtboot (default banks sha1 and sha256),\n"
"computed with OpenSSL from the files: the MLE (vtboot's ELF with its command line), the\n"
"policy (a tb_polgen file; default: tboot's default policy), and each module as\n"
"H(H(its string) || H(image)); gzip files are unpacked first, as GRUB and tb_polgen do.\n"
"  --cmdline S, --initrd-cmdline S, --module F=S, --vtboot-cmdline S: the exact strings vtboot\n"
"  gets (vtboot-qemu --print-modules / --print-cmdline print them; QEMU includes the file name).\n"
"  --vtboot F   vtboot's ELF (default: vtboot next to this program's bin/ directory)\n"
"  --xen F      module 0 is Xen (a multiboot kernel) with --xen-cmdline S, the kernel and\n"
"               initrd follow as modules 1 and 2 (dom0's), as vtboot-qemu --xen lays them out\n"
"  --format text     \"17:sha256=<hex>\" lines (default)\n"
"  --format json     {\"sha1\": {\"17\": \"<hex>\", \"18\": ..., \"19\": ...}, \"sha256\": ...}\n"
"  --format keylime  Keylime's tpm_policy: {\"17\": [\"<hex>\", ...], \"18\": ..., \"19\": ...},\n"
"                    each list the PCR's value in every bank asked for (Keylime matches the\n"
"                    one of its own tpm_hash_alg)\n"
"  --sinit F    an Intel TXT launch (vtboot-qemu --txt) with this SINIT ACM: PCRs 17 and 18\n"
"               start with the SINIT's events (docs/txt-platform.md 3.4 step 7: the ACM's\n"
"               digest with SENTER's EDX 0, the OsSinitData capabilities, no launch control\n"
"               policy, the MLE, the ACM's key) instead of vtboot's MLE; --vtboot F and\n"
"               --vtboot-cmdline S then name the MLE, e.g. Debian's /boot/tboot.gz, whose\n"
"               own extends (policy, modules) go to the SHA-256 bank only: tboot 1.10.5\n"
"               extends its one current algorithm when the ACM names embedded algorithms.\n"
"               The values hold after every S3 resume through tboot too: the resume's\n"
"               launch extends the same events, and tboot extends its saved ones again\n"
"  --os-sinit-caps X  OsSinitData.capabilities (default 0x601, what Debian's tboot 1.10.5\n"
"               sends with our SINIT)\n"
"  --lcp-policy F  the launch control policy in the TPM's PO index (lcp2_crtpol's --pol\n"
"               file): its control and bytes in place of \"no policy\"\n"
"  -v           show every extend on stderr\n"
"usage: vtboot-pcr check-mle F\n"
"Checks vtboot's ELF F (or a gzip of it): a valid MLE header, every byte the file loads inside\n"
"the MLE it describes, and the MLE made of file bytes only; exit 0, or 1 saying what is not.\n");
    audit_usage(f);
}

static void print_hex(const uint8_t *d, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        printf("%02x", d[i]);
}

static void print_pcrs(const char *format, const struct pcr_bank *banks, unsigned nbanks)
{
    if (!strcmp(format, "json")) {
        printf("{");
        for (unsigned b = 0; b < nbanks; b++) {
            printf("%s\n  \"%s\": {", b ? "," : "", banks[b].name);
            for (unsigned pcr = 17; pcr <= 19; pcr++) {
                printf("%s\"%u\": \"", pcr > 17 ? ", " : "", pcr);
                print_hex(banks[b].pcr[pcr], banks[b].size);
                printf("\"");
            }
            printf("}");
        }
        printf("\n}\n");
    } else if (!strcmp(format, "keylime")) {
        printf("{");
        for (unsigned pcr = 17; pcr <= 19; pcr++) {
            printf("%s\"%u\": [", pcr > 17 ? ", " : "", pcr);
            for (unsigned b = 0; b < nbanks; b++) {
                printf("%s\"", b ? ", " : "");
                print_hex(banks[b].pcr[pcr], banks[b].size);
                printf("\"");
            }
            printf("]");
        }
        printf("}\n");
    } else {
        for (unsigned pcr = 17; pcr <= 19; pcr++) {
            for (unsigned b = 0; b < nbanks; b++) {
                printf("%u:%s=", pcr, banks[b].name);
                print_hex(banks[b].pcr[pcr], banks[b].size);
                printf("\n");
            }
        }
    }
}

static const char *default_vtboot(void)
{
    static char path[PATH_MAX];
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return "out/vtboot";
    self[n] = '\0';
    snprintf(path, sizeof(path), "%s/../vtboot", dirname(self));
    return path;
}

int main(int argc, char **argv)
{
    enum { O_BANK = 256, O_FORMAT, O_EXPECT };
    static const struct option longopts[] = {
        EXPECT_LONGOPTS(O_EXPECT),
        EXPECT_LONGOPTS_XEN(O_EXPECT),
        EXPECT_LONGOPTS_TXT(O_EXPECT),
        { "bank", required_argument, 0, O_BANK },
        { "format", required_argument, 0, O_FORMAT },
        { "verbose", no_argument, 0, 'v' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *format = "text";
    unsigned nbanks = 0;
    static struct pcr_bank banks[4];
    static struct expect exp;
    static struct expect_opts eo;
    static struct txt_expect txt;
    struct expect_files f = { 0 };
    bool verbose = false;
    char err[256];
    int c;

    log_prog = "vtboot-pcr";
    if (argc == 3 && strcmp(argv[1], "check-mle") == 0)
        return mle_check_file(argv[2]) ? 1 : 0;
    if (argc >= 2 && strcmp(argv[1], "audit-mle") == 0)
        return audit_main(argc, argv);
    if (argc < 2 || strcmp(argv[1], "predict") != 0) {
        usage(argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) ? stdout : stderr);
        return argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) ? 0 : 2;
    }
    expect_opts_init(&eo, "vtboot-pcr", true);
    optind = 2;
    while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
        switch (c) {
        case O_EXPECT ... O_EXPECT + EXPECT_OPT_N - 1:
            if (expect_opt(&eo, c - O_EXPECT, optarg) != 0)
                return 2;
            break;
        case O_BANK:
            if (nbanks == 4) {
                fprintf(stderr, "vtboot-pcr: at most 4 banks\n");
                return 2;
            }
            banks[nbanks++] = (struct pcr_bank){ .name = optarg };
            break;
        case O_FORMAT:
            if (strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "keylime")) {
                fprintf(stderr, "vtboot-pcr: --format takes text, json or keylime\n");
                return 2;
            }
            format = optarg;
            break;
        case 'v': verbose = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!eo.kernel || optind != argc) {
        usage(stderr);
        return 2;
    }
    if (!eo.sinit && (eo.caps_given || eo.lcp_policy)) {
        fprintf(stderr, "vtboot-pcr: --%s needs --sinit\n",
                eo.caps_given ? "os-sinit-caps" : "lcp-policy");
        return 2;
    }
    if (!nbanks) {
        banks[nbanks++] = (struct pcr_bank){ .name = "sha1" };
        banks[nbanks++] = (struct pcr_bank){ .name = "sha256" };
    }

    expect_opts_files(&eo, &f);
    if (!f.vtboot)
        f.vtboot = default_vtboot();
    if (expect_load(&f, &exp, err, sizeof(err))) {
        fprintf(stderr, "vtboot-pcr: %s\n", err);
        return 1;
    }
    if (expect_opts_txt(&eo, &txt, &exp.in, err, sizeof(err))) {
        fprintf(stderr, "vtboot-pcr: %s\n", err);
        return 1;
    }
    expect_opts_free(&eo);

    for (unsigned b = 0; b < nbanks; b++) {
        if (verbose)
            fprintf(stderr, "bank %s:\n", banks[b].name);
        if (predict_bank(&exp.in, &banks[b], verbose)) {
            fprintf(stderr, "vtboot-pcr: unknown bank '%s' (sha1, sha256, sha384, sha512)\n",
                    banks[b].name);
            return 2;
        }
    }
    print_pcrs(format, banks, nbanks);
    expect_free(&exp);
    txt_expect_free(&txt);
    return fflush(stdout) == 0 ? 0 : 1;
}
