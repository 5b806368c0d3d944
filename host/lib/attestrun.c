/* SPDX-License-Identifier: MIT */
#include "attestrun.h"
#include "guestreport.h"
#include "hostpage.h"
#include "log.h"
#include "proc.h"
#include "sig.h"
#include "strv.h"
#include "swtpm.h"
#include "tpmprov.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOOL_TIMEOUT_MS 60000
#define CA_ROOT "swtpm-localca-rootca-cert.pem"
#define CA_ISSUER "issuercert.pem"

const char *const attest_opt_names[ATTEST_OPT_N] = {
    [ATTEST_OPT_ATTEST] = "attest",
    [ATTEST_OPT_DIR] = "attest-dir",
    [ATTEST_OPT_CA] = "attest-ca",
    [ATTEST_OPT_KERNEL] = "expect-kernel",
    [ATTEST_OPT_INITRD] = "expect-initrd",
    [ATTEST_OPT_CMDLINE] = "expect-cmdline",
    [ATTEST_OPT_VTBOOT] = "expect-vtboot",
    [ATTEST_OPT_VTBOOT_CMDLINE] = "expect-vtboot-cmdline",
    [ATTEST_OPT_POLICY] = "expect-policy",
};

const char attest_help[] =
"  --attest            remote attestation round trip around the boot: a fresh TPM state gets\n"
"                      EK certificates from swtpm's local CA (--attest-ca), vtboot-attest\n"
"                      enrolls an AK, the guest quotes PCRs 17-19 over a nonce the launcher\n"
"                      chose (\" vtboot.guest=attest\" is appended to the kernel command\n"
"                      line; the nonce goes to the guest unmeasured, in a page QEMU maps as\n"
"                      an ivshmem-plain PCI device), and vtboot-attest verify checks the\n"
"                      evidence against the expectation (--expect-*; default: what is booted);\n"
"                      exit 5 if the guest powered off but the attestation failed\n"
"  --attest-dir DIR    keep the enrollment record (DIR/enrolled), the evidence, the\n"
"                      tpm2_checkquote files and verify's output in DIR\n"
"  --attest-ca DIR     swtpm-localca's directory, made on first use (default\n"
"                      out/swtpm-localca): DIR/" CA_ROOT " is the trust anchor\n"
"  --expect-kernel F, --expect-initrd F (\"\": none), --expect-cmdline S, --expect-vtboot F,\n"
"  --expect-vtboot-cmdline S, --expect-policy FILE|default\n"
"                      the launch the verifier expects (default: --kernel, --initrd, ...,\n"
"                      and --policy FILE, else tboot's default policy); module strings follow\n"
"                      the same rule as the boot's\n";

int attest_opt(struct attest_opts *a, int which, const char *arg)
{
    switch (which) {
    case ATTEST_OPT_ATTEST: a->on = true; return 0;
    case ATTEST_OPT_DIR: a->dir = arg; break;
    case ATTEST_OPT_CA: a->ca_dir = arg; break;
    case ATTEST_OPT_KERNEL: a->kernel = arg; break;
    case ATTEST_OPT_INITRD: a->initrd = arg; break;
    case ATTEST_OPT_CMDLINE: a->cmdline = arg; break;
    case ATTEST_OPT_VTBOOT: a->vtboot = arg; break;
    case ATTEST_OPT_VTBOOT_CMDLINE: a->vtboot_cmdline = arg; break;
    case ATTEST_OPT_POLICY: a->policy = arg; break;
    default: return -1;
    }
    if (!*arg && which != ATTEST_OPT_INITRD && which != ATTEST_OPT_CMDLINE &&
        which != ATTEST_OPT_VTBOOT_CMDLINE) {
        log_err("--%s: expected a %s", attest_opt_names[which],
                which == ATTEST_OPT_POLICY ? "file name or \"default\"" : "path");
        return -1;
    }
    return 0;
}

/* the kernel command line of an --attest boot: the nonce is not on it (it is measured) */
static char *attest_words(const char *cmdline)
{
    return xasprintf("%s%svtboot.guest=attest", cmdline, *cmdline ? " " : "");
}

int attestrun_init(struct attest_run *a, const struct attest_opts *o, const char *cmdline,
                   const char *outdir)
{
    char *self = self_dir();

    memset(a, 0, sizeof(*a));
    a->o = *o;
    a->result = -1;
    if (RAND_bytes(a->nonce_bin, sizeof(a->nonce_bin)) != 1) {
        log_err("--attest: no random nonce from OpenSSL");
        free(self);
        return -1;
    }
    hex_encode(a->nonce_bin, sizeof(a->nonce_bin), a->nonce);
    a->cmdline = attest_words(cmdline);
    a->ca_dir = o->ca_dir ? path_abs(o->ca_dir) : xasprintf("%s/swtpm-localca", outdir);
    a->tool = xasprintf("%s/vtboot-attest", self ? self : ".");
    free(self);
    if (!file_readable(a->tool)) {
        log_err("--attest: %s is missing (make builds it)", a->tool);
        return -1;
    }
    return 0;
}

int attestrun_prepare(struct attest_run *a, const char *tmp, const char *serial_log)
{
    a->dir = a->o.dir ? path_abs(a->o.dir) : xasprintf("%s/attest", tmp);
    if (mkdir_p(a->dir, 0755)) {
        log_perr("--attest-dir %s", a->dir);
        return -1;
    }
    a->serial_path = serial_log ? xstrdup(serial_log) : xasprintf("%s/serial.log", tmp);
    {
        /* the nonce for the guest, outside anything measured (hostpage.h) */
        struct hostpage_item it = { "nonce", a->nonce_bin, sizeof(a->nonce_bin) };
        uint8_t page[HOSTPAGE_SIZE];

        a->host_page = xasprintf("%s/hostpage.bin", a->dir);
        if (!hostpage_build(page, sizeof(page), &it, 1)) {
            log_err("--attest: the nonce does not fit the host page");
            return -1;
        }
        if (file_write_all(a->host_page, page, sizeof(page)) != 0) {
            log_perr("--attest: write %s", a->host_page);
            return -1;
        }
    }
    return 0;
}

/* swtpm_setup's config: the certificate tool and its configuration, with our CA directory */
static char *write_configs(struct attest_run *a, const char *workdir)
{
    char *localca = xasprintf("%s/swtpm-localca.conf", workdir);
    char *opts = xasprintf("%s/swtpm-localca.options", workdir);
    char *setup = xasprintf("%s/swtpm_setup.conf", workdir);
    char *t1 = xasprintf("statedir = %s\nsigningkey = %s/signkey.pem\nissuercert = %s/%s\n"
                         "certserial = %s/certserial\n", a->ca_dir, a->ca_dir, a->ca_dir,
                         CA_ISSUER, a->ca_dir);
    const char *t2 = "--platform-manufacturer vtboot\n--platform-version 2.1\n"
                     "--platform-model QEMU\n";
    char *t3 = xasprintf("create_certs_tool = swtpm_localca\ncreate_certs_tool_config = %s\n"
                         "create_certs_tool_options = %s\n", localca, opts);
    int rc = file_write_all(localca, t1, strlen(t1)) | file_write_all(opts, t2, strlen(t2)) |
             file_write_all(setup, t3, strlen(t3));

    free(t1);
    free(t3);
    free(localca);
    free(opts);
    if (rc) {
        log_perr("write %s", setup);
        free(setup);
        return NULL;
    }
    return setup;
}

int attestrun_setup_state(struct attest_run *a, const char *statedir, const char *banks,
                          const char *workdir)
{
    char *cfg = write_configs(a, workdir);
    char *lock = xasprintf("%s/.lock.vtboot-qemu", a->ca_dir);
    int fd = -1, rc = -1;

    if (!cfg)
        goto out;
    if (mkdir_p(a->ca_dir, 0755)) {
        log_perr("--attest-ca %s", a->ca_dir);
        goto out;
    }
    /* one CA is made at a time (swtpm_localca re-checks under its own lock, but a second one
     * could read a half-written issuer certificate) */
    fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        log_perr("lock %s", lock);
        goto out;
    }
    rc = swtpm_setup_state_ek(statedir, banks, workdir, cfg);
out:
    if (fd >= 0)
        close(fd);
    free(lock);
    free(cfg);
    return rc;
}

/* runs argv with stdout and stderr into out; 0 (exit 0), 1 (another exit), -1, 128+signal */
static int run_tool(char *const argv[], const char *out)
{
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    struct spawn_opts o = { NULL, -1, fd, fd, NULL, 0 };
    struct proc p;
    int w;

    if (fd < 0) {
        log_perr("open %s", out);
        return -1;
    }
    if (proc_spawn(&p, "vtboot-attest", argv, &o) != 0) {
        close(fd);
        return -1;
    }
    close(fd);
    w = proc_wait(&p, TOOL_TIMEOUT_MS);
    if (w != 0)
        proc_stop(&p, 1000);
    if (w == 2)
        return 128 + sig_terminating();
    if (w == 1) {
        log_err("%s did not finish in %d s", argv[0], TOOL_TIMEOUT_MS / 1000);
        return -1;
    }
    if (!WIFEXITED(p.status)) {
        log_err("vtboot-attest %s: %s", argv[1], proc_status_str(&p));
        return -1;
    }
    return WEXITSTATUS(p.status) == 0 ? 0 : 1;
}

int attestrun_enroll(struct attest_run *a, const char *statedir, const char *workdir)
{
    struct swtpm_server sw;
    char *out = xasprintf("%s/enroll.out", workdir);
    char *rec = xasprintf("%s/enrolled", a->dir);
    char *root = xasprintf("%s/%s", a->ca_dir, CA_ROOT);
    char *chain = xasprintf("%s/%s", a->ca_dir, CA_ISSUER);
    char *owner = tpmprov_owner_auth_path(statedir);
    struct strv argv = { 0 };
    int rc = -1;
    int64_t t0 = now_ms();

    if (swtpm_server_start(&sw, statedir, workdir, "attest") != 0)
        goto out;
    strv_add(&argv, a->tool);
    strv_add(&argv, "enroll");
    strv_addf(&argv, "--tpm=%s", sw.tcti);
    strv_addf(&argv, "--ca=%s", root);
    strv_addf(&argv, "--ca-chain=%s", chain);
    strv_addf(&argv, "--out=%s", rec);
    strv_addf(&argv, "--owner-auth=%s", owner);
    rc = run_tool(argv.v, out);
    if (rc == 1) {
        log_err("--attest: enrolling the TPM failed:");
        show_file(out, "  ", 0);
        rc = -1;
    } else if (rc == 0) {
        if (log_verbose)
            show_file(out, "vtboot-qemu: attest: ", 0);
        log_msg("attest: AK enrolled in %.2f s (record in %s)", (double)(now_ms() - t0) / 1000,
                rec);
    }
    swtpm_server_end(&sw);
out:
    strv_free(&argv);
    free(out);
    free(rec);
    free(root);
    free(chain);
    free(owner);
    return rc;
}

/* The last "VTBOOT-GUEST: <key>=<hex>" of the serial log (guestreport.h), decoded into path;
 * false if none, or not hex. */
static bool extract(const char *serial, size_t len, const char *key, const char *path)
{
    char *hex = guest_report_value(serial, len, key);
    size_t hl = hex ? strlen(hex) : 0, n = hl / 2;
    bool ok = hl && hl % 2 == 0;

    if (ok) {
        uint8_t *bin = xmalloc(n);

        for (size_t i = 0; i < n && ok; i++) {
            int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);

            ok = hi >= 0 && lo >= 0;
            bin[i] = (uint8_t)(hi << 4 | lo);
        }
        ok = ok && file_write_all(path, bin, n) == 0;
        free(bin);
    }
    free(hex);
    return ok;
}

/* verify's "VERDICT: FAIL (...)" line */
static void verdict_of(const char *path, char *out, size_t outsz)
{
    size_t len;
    char *txt = (char *)file_read_all(path, &len, 1 << 20);
    char *v = NULL;

    snprintf(out, outsz, "VERDICT: FAIL");
    for (size_t i = 0; txt && i + 8 <= len; i++)
        if ((i == 0 || txt[i - 1] == '\n') && !memcmp(txt + i, "VERDICT:", 8))
            v = txt + i;
    if (v)
        snprintf(out, outsz, "%.*s", (int)strcspn(v, "\n"), v);
    free(txt);
}

/* the name vtboot gets for F from QEMU -kernel: a gzip file is unpacked to its name minus .gz */
static char *qemu_name(const char *path)
{
    const char *base = path_base(path);
    size_t n = strlen(base);
    unsigned char m[2];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool gz = fd >= 0 && read(fd, m, 2) == 2 && m[0] == 0x1f && m[1] == 0x8b;

    if (fd >= 0)
        close(fd);
    if (gz && n > 3 && !strcmp(base + n - 3, ".gz"))
        return xasprintf("%.*s", (int)(n - 3), base);
    return xstrdup(base);
}

void attestrun_verify(struct attest_run *a, const struct boot *booted, enum loader l,
                      const char *workdir)
{
    struct boot x = *booted;
    struct boot_strings s;
    struct strv argv = { 0 };
    char err[512], *serial, *ev = NULL, *out = NULL, *vname = NULL, *dirname = NULL;
    char *cmdline = NULL, *rec = NULL, *root = NULL;
    size_t len;
    int rc;
    int64_t t0 = now_ms();

    a->result = 1;
    serial = (char *)file_read_all(a->serial_path, &len, 64u << 20);
    if (!serial) {
        snprintf(a->summary, sizeof(a->summary), "cannot read the serial log %s",
                 a->serial_path);
        return;
    }
    ev = xasprintf("%s/evidence.bin", a->dir);
    out = xasprintf("%s/verify.txt", a->dir);
    {
        static const char *const files[][2] = {
            { "attest-quote-msg", "quote.msg" },
            { "attest-quote-sig", "quote.sig" },
            { "attest-quote-pcrs", "quote.pcrs" },
        };
        for (size_t i = 0; i < 3; i++) {
            char *p = xasprintf("%s/%s", a->dir, files[i][1]);

            unlink(p);
            extract(serial, len, files[i][0], p);
            free(p);
        }
    }
    unlink(ev);
    if (!extract(serial, len, "attest-evidence", ev)) {
        snprintf(a->summary, sizeof(a->summary), "the guest printed no evidence "
                 "(\"VTBOOT-GUEST: attest-evidence=\")");
        free(serial);
        goto out;
    }
    free(serial);

    /* the expectation, in the loader's strings */
    if (a->o.kernel)
        x.kernel = a->o.kernel;
    if (a->o.initrd)
        x.initrd = *a->o.initrd ? a->o.initrd : NULL;
    if (a->o.vtboot)
        x.vtboot = a->o.vtboot;
    if (a->o.vtboot_cmdline)
        x.vtboot_cmdline = a->o.vtboot_cmdline;
    if (a->o.cmdline)
        x.cmdline = cmdline = attest_words(a->o.cmdline);
    vname = l == LOADER_QEMU_MB1 ? qemu_name(x.vtboot) : NULL;
    {
        struct boot named = x;

        if (vname) {
            /* boot_strings takes the name from the path's basename */
            dirname = xasprintf("%s/%s", workdir, vname);
            named.vtboot = dirname;
        }
        if (boot_strings(&named, l, &s, err, sizeof(err)) != 0) {
            snprintf(a->summary, sizeof(a->summary), "the expectation: %s", err);
            goto out;
        }
    }
    rec = xasprintf("%s/enrolled", a->dir);
    root = xasprintf("%s/%s", a->ca_dir, CA_ROOT);
    strv_add(&argv, a->tool);
    strv_add(&argv, "verify");
    strv_addf(&argv, "--evidence=%s", ev);
    strv_addf(&argv, "--enrolled=%s", rec);
    strv_addf(&argv, "--ca=%s", root);
    strv_addf(&argv, "--nonce=%s", a->nonce);
    strv_addf(&argv, "--vtboot=%s", x.vtboot);
    strv_addf(&argv, "--vtboot-cmdline=%s", s.vtboot_cmdline);
    {
        /* module i is the file names[i + 1] (with Xen, Xen is module 0) */
        const char *paths[1 + BOOT_MODS_MAX];

        /* a TXT launch: the SINIT (and the LCP data) are the last modules, which tboot takes
         * out of the list before it measures; the SINIT's events are the expectation's too */
        int measured = s.nmods - s.acm - s.lcp_data;

        boot_files(&x, paths);
        if (s.acm)
            strv_addf(&argv, "--sinit=%s", paths[s.nmods - s.lcp_data]);
        for (int i = 0; i < measured; i++) {
            if (i == 0) {
                strv_addf(&argv, "--kernel=%s", paths[1]);
                strv_addf(&argv, "--cmdline=%s", s.mods[0]);
            } else if (i == 1 && !s.xen) {
                strv_addf(&argv, "--initrd=%s", paths[2]);
                strv_addf(&argv, "--initrd-cmdline=%s", s.mods[1]);
            } else {
                strv_addf(&argv, "--module=%s=%s", paths[i + 1], s.mods[i]);
            }
        }
    }
    strv_addf(&argv, "--policy=%s", a->o.policy ? a->o.policy
                                    : a->boot_policy ? a->boot_policy : "default");
    boot_strings_free(&s);
    {
        /* the exact verify command, one argument a line, to re-run it by hand */
        char *args = xasprintf("%s/verify.args", a->dir);
        FILE *f = fopen(args, "w");

        for (int i = 0; f && argv.v[i]; i++)
            fprintf(f, "%s\n", argv.v[i]);
        if (!f || fclose(f) != 0)
            log_perr("write %s", args);
        free(args);
    }
    rc = run_tool(argv.v, out);
    if (rc < 0 || rc > 1) {
        snprintf(a->summary, sizeof(a->summary), "vtboot-attest verify did not run");
        goto out;
    }
    show_file(out, "vtboot-qemu: attest: ", 0);
    a->result = rc;
    if (rc == 0)
        snprintf(a->summary, sizeof(a->summary), "every check passed (%.2f s)",
                 (double)(now_ms() - t0) / 1000);
    else
        verdict_of(out, a->summary, sizeof(a->summary));
out:
    strv_free(&argv);
    free(ev);
    free(out);
    free(vname);
    free(dirname);
    free(cmdline);
    free(rec);
    free(root);
}

bool attestrun_report(const struct attest_run *a)
{
    if (a->result < 0 && !a->summary[0])
        log_msg("attestation not done: the guest did not power off");
    else if (a->result == 0)
        log_msg("attestation passed: %s", a->summary);
    else
        log_msg("attestation FAILED: %s", a->summary);
    return a->result == 0;
}
