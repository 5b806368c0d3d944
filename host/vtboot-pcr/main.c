/* SPDX-License-Identifier: MIT */
/*
 * vtboot-pcr: PCR values a vtboot launch produces, from the files alone.
 *
 *   vtboot-pcr predict --kernel F [--cmdline S] [--initrd F] [--initrd-cmdline S]
 *                      [--module F[=S]]... [--policy F] [--bank ALG]... [--pcr-map da|legacy]
 *                      [--vtboot F] [--vtboot-cmdline S] [-v]
 *   vtboot-pcr check-mle F
 *
 * Strings are the exact ones vtboot receives from its loader: vtboot-qemu --print-cmdline and
 * --print-modules print them. Output, one line per PCR and bank: "17:sha256=<hex>".
 */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "mle.h"
#include "predict.h"

static void usage(FILE *f)
{
    fprintf(f,
"usage: vtboot-pcr predict --kernel F [--cmdline S] [--initrd F] [--initrd-cmdline S]\n"
"                          [--module F[=S]]... [--policy F] [--bank sha1|sha256|sha384|sha512]...\n"
"                          [--pcr-map da|legacy] [--vtboot F] [--vtboot-cmdline S] [-v]\n"
"Prints the PCR 17, 18 and 19 values of a launched vtboot (default banks sha1 and sha256),\n"
"computed with OpenSSL from the files: the MLE (vtboot's ELF with its command line), the\n"
"policy (a tb_polgen file; default: tboot's default policy), and each module as\n"
"H(H(its string) || H(image)); gzip files are unpacked first, as GRUB and tb_polgen do.\n"
"  --cmdline S, --initrd-cmdline S, --module F=S, --vtboot-cmdline S: the exact strings vtboot\n"
"  gets (vtboot-qemu --print-modules / --print-cmdline print them; QEMU includes the file name).\n"
"  --vtboot F   vtboot's ELF (default: vtboot next to this program's bin/ directory)\n"
"  -v           show every extend on stderr\n"
"usage: vtboot-pcr check-mle F\n"
"Checks vtboot's ELF F (or a gzip of it): a valid MLE header, every byte the file loads inside\n"
"the MLE it describes, and the MLE made of file bytes only; exit 0, or 1 saying what is not.\n");
}

/* A file's contents, unpacked if it is gzip: what GRUB loads as a module and what tb_polgen
 * hashes (both read through a gzip filter). */
static uint8_t *slurp(const char *path, size_t *len)
{
    gzFile f = gzopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    int got;
    if (!f) {
        fprintf(stderr, "vtboot-pcr: cannot open %s\n", path);
        exit(1);
    }
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 20;
            buf = realloc(buf, cap);
            if (!buf)
                exit(1);
        }
        got = gzread(f, buf + n, (unsigned)(cap - n > (1u << 30) ? 1u << 30 : cap - n));
        if (got > 0)
            n += (size_t)got;
    } while (got > 0);
    if (got < 0) {
        fprintf(stderr, "vtboot-pcr: cannot read %s\n", path);
        exit(1);
    }
    gzclose(f);
    *len = n;
    return buf;
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
    enum { O_KERNEL = 256, O_CMDLINE, O_INITRD, O_INITRD_CMDLINE, O_MODULE, O_POLICY, O_BANK,
           O_PCR_MAP, O_VTBOOT, O_VTBOOT_CMDLINE };
    static const struct option longopts[] = {
        { "kernel", required_argument, 0, O_KERNEL },
        { "cmdline", required_argument, 0, O_CMDLINE },
        { "initrd", required_argument, 0, O_INITRD },
        { "initrd-cmdline", required_argument, 0, O_INITRD_CMDLINE },
        { "module", required_argument, 0, O_MODULE },
        { "policy", required_argument, 0, O_POLICY },
        { "bank", required_argument, 0, O_BANK },
        { "pcr-map", required_argument, 0, O_PCR_MAP },
        { "vtboot", required_argument, 0, O_VTBOOT },
        { "vtboot-cmdline", required_argument, 0, O_VTBOOT_CMDLINE },
        { "verbose", no_argument, 0, 'v' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *kernel = NULL, *cmdline = "", *initrd = NULL, *initrd_cmdline = "";
    const char *policy_file = NULL, *vtboot = NULL, *vtboot_cmdline = "";
    const char *extra[PREDICT_MAX_MODULES];
    unsigned nextra = 0, nbanks = 0;
    struct pcr_bank banks[4];
    static struct tb_policy policy;
    struct predict_input in = { .map = PCR_MAP_DA };
    bool verbose = false;
    int c;

    if (argc == 3 && strcmp(argv[1], "check-mle") == 0)
        return mle_check_file(argv[2]) ? 1 : 0;
    if (argc < 2 || strcmp(argv[1], "predict") != 0) {
        usage(argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) ? stdout : stderr);
        return argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) ? 0 : 2;
    }
    optind = 2;
    while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
        switch (c) {
        case O_KERNEL: kernel = optarg; break;
        case O_CMDLINE: cmdline = optarg; break;
        case O_INITRD: initrd = optarg; break;
        case O_INITRD_CMDLINE: initrd_cmdline = optarg; break;
        case O_MODULE:
            if (nextra == PREDICT_MAX_MODULES - 2) {
                fprintf(stderr, "vtboot-pcr: too many modules\n");
                return 2;
            }
            extra[nextra++] = optarg;
            break;
        case O_POLICY: policy_file = optarg; break;
        case O_BANK:
            if (nbanks == 4) {
                fprintf(stderr, "vtboot-pcr: at most 4 banks\n");
                return 2;
            }
            banks[nbanks++] = (struct pcr_bank){ .name = optarg };
            break;
        case O_PCR_MAP:
            if (strcmp(optarg, "da") && strcmp(optarg, "legacy")) {
                fprintf(stderr, "vtboot-pcr: --pcr-map takes da or legacy\n");
                return 2;
            }
            in.map = strcmp(optarg, "legacy") == 0 ? PCR_MAP_LEGACY : PCR_MAP_DA;
            break;
        case O_VTBOOT: vtboot = optarg; break;
        case O_VTBOOT_CMDLINE: vtboot_cmdline = optarg; break;
        case 'v': verbose = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!kernel || optind != argc) {
        usage(stderr);
        return 2;
    }
    if (!nbanks) {
        banks[nbanks++] = (struct pcr_bank){ .name = "sha1" };
        banks[nbanks++] = (struct pcr_bank){ .name = "sha256" };
    }

    struct mle mle;
    if (mle_load(vtboot ? vtboot : default_vtboot(), vtboot_cmdline, &mle))
        return 1;
    in.mle = mle.bytes;
    in.mle_size = mle.size;

    if (policy_file) {
        size_t len;
        char err[160];
        uint8_t *raw = slurp(policy_file, &len);
        if (tb_policy_parse(raw, len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, &policy, err,
                            sizeof(err))) {
            fprintf(stderr, "vtboot-pcr: %s: %s\n", policy_file, err);
            return 1;
        }
        free(raw);
    } else {
        tb_policy_default(&policy, in.map);
    }
    in.policy = &policy;

    in.modules[in.nr_modules].cmdline = cmdline;
    in.modules[in.nr_modules].image = slurp(kernel, &in.modules[in.nr_modules].size);
    in.nr_modules++;
    if (initrd) {
        in.modules[in.nr_modules].cmdline = initrd_cmdline;
        in.modules[in.nr_modules].image = slurp(initrd, &in.modules[in.nr_modules].size);
        in.nr_modules++;
    }
    for (unsigned i = 0; i < nextra; i++) {
        char *eq = strchr(extra[i], '=');
        char *file = strndup(extra[i], eq ? (size_t)(eq - extra[i]) : strlen(extra[i]));
        in.modules[in.nr_modules].cmdline = eq ? eq + 1 : "";
        in.modules[in.nr_modules].image = slurp(file, &in.modules[in.nr_modules].size);
        in.nr_modules++;
        free(file);
    }

    for (unsigned b = 0; b < nbanks; b++) {
        if (verbose)
            fprintf(stderr, "bank %s:\n", banks[b].name);
        if (predict_bank(&in, &banks[b], verbose)) {
            fprintf(stderr, "vtboot-pcr: unknown bank '%s' (sha1, sha256, sha384, sha512)\n",
                    banks[b].name);
            return 2;
        }
    }
    for (unsigned pcr = 17; pcr <= 19; pcr++) {
        for (unsigned b = 0; b < nbanks; b++) {
            printf("%u:%s=", pcr, banks[b].name);
            for (unsigned i = 0; i < banks[b].size; i++)
                printf("%02x", banks[b].pcr[pcr][i]);
            printf("\n");
        }
    }
    mle_free(&mle);
    return 0;
}
