/* SPDX-License-Identifier: MIT */
#include "tpmprov.h"
#include "log.h"
#include "proc.h"
#include "sig.h"
#include "strv.h"
#include "swtpm.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOOL_TIMEOUT_MS 30000

struct prov {
    const char *workdir;
    char *out, *err;        /* the last tool's stdout and stderr */
    struct swtpm_server swtpm;
};

/* the command as a shell would take it, for messages */
static char *cmd_str(char *const argv[])
{
    char *out = xstrdup("");

    for (int i = 0; argv[i]; i++) {
        bool q = !*argv[i] || strpbrk(argv[i], " \t\"'$\\;&|<>()*?") != NULL;
        char *n = xasprintf(q ? "%s%s\"%s\"" : "%s%s%s", out, i ? " " : "", argv[i]);

        free(out);
        out = n;
    }
    return out;
}

/* Runs one tool with the TCTI; returns 0, -1 (reported) or 128+signal. */
static int tool(struct prov *pv, struct strv *a)
{
    int ofd = open(pv->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int efd = open(pv->err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    struct spawn_opts o = { NULL, -1, ofd, efd, NULL, 0 };
    struct proc p;
    int w, rc = -1;
    int64_t t0 = now_ms();

    strv_add(a, "-T");
    strv_add(a, pv->swtpm.tcti);
    if (ofd < 0 || efd < 0) {
        log_perr("open %s", ofd < 0 ? pv->out : pv->err);
        goto out;
    }
    if (proc_poll(&pv->swtpm.proc)) {
        log_err("the provisioning swtpm ended (%s):", proc_status_str(&pv->swtpm.proc));
        show_file(pv->swtpm.log, "  ", 4000);
        goto out;
    }
    if (proc_spawn(&p, a->v[0], a->v, &o) != 0)
        goto out;
    w = proc_wait(&p, TOOL_TIMEOUT_MS);
    if (w != 0)
        proc_stop(&p, 1000);
    if (w == 2) {
        rc = 128 + sig_terminating();
    } else if (w == 1) {
        log_err("%s did not finish in %d s", a->v[0], TOOL_TIMEOUT_MS / 1000);
    } else if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
        char *c = cmd_str(a->v);

        log_err("%s failed (%s): %s", a->v[0], proc_status_str(&p), c);
        free(c);
        show_file(pv->err, "  ", 4000);
    } else {
        log_dbg("%s: %d ms", a->v[0], (int)(now_ms() - t0));
        rc = 0;
    }
out:
    if (ofd >= 0)
        close(ofd);
    if (efd >= 0)
        close(efd);
    strv_free(a);
    return rc;
}

/* tpm2_getcap handles-nv-index lists "- 0x1200001" lines */
static bool listed(const char *path, uint32_t index)
{
    size_t len;
    uint8_t *txt = file_read_all(path, &len, 1 << 20);
    bool found = false;
    char *save = NULL;

    if (!txt)
        return false;
    txt = xrealloc(txt, len + 1);
    txt[len] = 0;
    for (char *l = strtok_r((char *)txt, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save)) {
        unsigned long v;
        char *end;

        while (*l == ' ' || *l == '-')
            l++;
        v = strtoul(l, &end, 16);
        found = end != l && (*end == 0 || *end == ' ' || *end == '\r') && v == index;
    }
    free(txt);
    return found;
}

int tpmprov_nv_write(const char *statedir, const char *workdir, uint32_t index, const char *file,
                     size_t size, bool fresh)
{
    struct prov pv = { 0 };
    char idx[16];
    struct strv a = { 0 };
    int rc = -1;
    int64_t t0 = now_ms();

    snprintf(idx, sizeof(idx), "0x%08x", index);
    pv.workdir = workdir;
    pv.out = xasprintf("%s/tpm2-tools.out", workdir);
    pv.err = xasprintf("%s/tpm2-tools.err", workdir);
    if (swtpm_server_start(&pv.swtpm, statedir, workdir, "prov") != 0)
        goto out;

    strv_add(&a, "tpm2_startup");
    strv_add(&a, "-c");
    if ((rc = tool(&pv, &a)) != 0)
        goto out;
    if (!fresh) {
        strv_add(&a, "tpm2_getcap");
        strv_add(&a, "handles-nv-index");
        if ((rc = tool(&pv, &a)) != 0)
            goto out;
        if (listed(pv.out, index)) {
            log_dbg("NV index %s exists: undefining it", idx);
            strv_add(&a, "tpm2_nvundefine");
            strv_add(&a, idx);
            strv_add(&a, "-C");
            strv_add(&a, "o");
            if ((rc = tool(&pv, &a)) != 0)
                goto out;
        }
    }
    strv_add(&a, "tpm2_nvdefine");
    strv_add(&a, idx);
    strv_add(&a, "-C");
    strv_add(&a, "o");
    strv_add(&a, "-s");
    strv_addf(&a, "%zu", size);
    strv_add(&a, "-a");
    strv_add(&a, TPMPROV_ATTRS);
    if ((rc = tool(&pv, &a)) != 0)
        goto out;
    strv_add(&a, "tpm2_nvwrite");
    strv_add(&a, idx);
    strv_add(&a, "-C");
    strv_add(&a, "o");
    strv_add(&a, "-i");
    strv_add(&a, file);
    if ((rc = tool(&pv, &a)) != 0)
        goto out;
    strv_add(&a, "tpm2_shutdown");
    strv_add(&a, "-c");
    if ((rc = tool(&pv, &a)) != 0)
        goto out;
    proc_stop(&pv.swtpm.proc, SWTPM_SERVER_STOP_MS);
    if (!WIFEXITED(pv.swtpm.proc.status) || WEXITSTATUS(pv.swtpm.proc.status) != 0) {
        log_err("the provisioning swtpm ended badly (%s):", proc_status_str(&pv.swtpm.proc));
        show_file(pv.swtpm.log, "  ", 4000);
        rc = -1;
        goto out;
    }
    log_dbg("NV index %s: %zu bytes written in %d ms", idx, size, (int)(now_ms() - t0));
    rc = 0;
out:
    swtpm_server_end(&pv.swtpm);
    strv_free(&a);
    free(pv.out);
    free(pv.err);
    return rc;
}
