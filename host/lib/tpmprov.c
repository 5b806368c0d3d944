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
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOOL_TIMEOUT_MS 30000
#define SECRET_BYTES 16

/* The authorizations the launcher keeps, and the TPMA_PERMANENT flag that says one is set. */
static const struct secret {
    const char *what, *file, *hierarchy, *flag;
} secrets[] = {
    { "owner", TPMPROV_OWNER_AUTH, "o", "ownerAuthSet" },
    { "lockout", TPMPROV_LOCKOUT_AUTH, "l", "lockoutAuthSet" },
};
#define NSECRETS (sizeof(secrets) / sizeof(secrets[0]))

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

/* tpm2_getcap properties-variable's "  ownerAuthSet:              1": 0, 1, or -1 if absent */
static int perm_flag(const char *path, const char *name)
{
    size_t len, nl = strlen(name);
    uint8_t *txt = file_read_all(path, &len, 1 << 20);
    int v = -1;
    char *save = NULL;

    if (!txt)
        return -1;
    txt = xrealloc(txt, len + 1);
    txt[len] = 0;
    for (char *l = strtok_r((char *)txt, "\n", &save); l && v < 0; l = strtok_r(NULL, "\n", &save)) {
        while (*l == ' ')
            l++;
        if (strncmp(l, name, nl) || l[nl] != ':')
            continue;
        l += nl + 1;
        while (*l == ' ')
            l++;
        if ((*l == '0' || *l == '1') && (l[1] == 0 || l[1] == '\r'))
            v = *l - '0';
    }
    free(txt);
    return v;
}

/* A new secret into path (which must not exist), mode 0600. */
static int write_secret(const char *path)
{
    uint8_t raw[SECRET_BYTES];
    char hex[2 * SECRET_BYTES + 1];
    int fd, rc = -1;

    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
        log_perr("getrandom");
        return -1;
    }
    hex_encode(raw, sizeof(raw), hex);
    explicit_bzero(raw, sizeof(raw));
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        log_perr("open %s", path);
    else if (write_full(fd, hex, 2 * SECRET_BYTES) != 0 || fsync(fd) != 0)
        log_perr("write %s", path);
    else
        rc = 0;
    if (fd >= 0)
        close(fd);
    explicit_bzero(hex, sizeof(hex));
    return rc;
}

/*
 * One authorization: kept already (its file exists), or set now from empty to a new secret
 * (NAME.new, renamed once the TPM has it). set: the TPM's flag for it. A NAME.new left by an
 * interrupted run is the secret the TPM has if the flag is set, and the one to set if not.
 */
static int take(struct prov *pv, const char *statedir, const struct secret *s, int set)
{
    char *path = xasprintf("%s/%s", statedir, s->file);
    char *next = xasprintf("%s.new", path);
    bool made = false;
    int rc = -1;

    if (access(path, F_OK) == 0) {
        rc = 0;
        goto out;
    }
    if (set < 0) {
        log_err("tpm2_getcap properties-variable: no %s", s->flag);
        goto out;
    }
    if (access(next, F_OK) != 0) {
        if (write_secret(next) != 0)
            goto out;
        made = true;
    }
    if (set == 0) {
        struct strv a = { 0 };

        strv_add(&a, "tpm2_changeauth");
        strv_add(&a, "-c");
        strv_add(&a, s->hierarchy);
        strv_addf(&a, "file:%s", next);
        int t = tool(pv, &a);

        if (t != 0) {           /* NAME.new stays: the TPM may have it (an interruption) */
            rc = t;
            goto out;
        }
    } else if (made) {
        log_err("the TPM state in %s has its %s authorization set, not by vtboot-qemu (which "
                "keeps its own in %s): the policy index cannot be kept from the guest; use a "
                "new state", statedir, s->what, path);
        unlink(next);
        goto out;
    }
    if (rename(next, path) != 0) {
        log_perr("rename %s", next);
        goto out;
    }
    log_dbg("the %s authorization of the TPM is kept in %s", s->what, path);
    rc = 0;
out:
    free(path);
    free(next);
    return rc;
}

char *tpmprov_owner_auth_path(const char *statedir)
{
    return xasprintf("%s/%s", statedir, TPMPROV_OWNER_AUTH);
}


/* a tpm2-tools NV command on index idx, authorized by the owner secret in the file owner */
static void owner_nv_tool(struct strv *a, const char *tool, const char *idx, const char *owner)
{
    strv_add(a, tool);
    strv_add(a, idx);
    strv_add(a, "-C");
    strv_add(a, "o");
    strv_add(a, "-P");
    strv_addf(a, "file:%s", owner);
}
int tpmprov_provision(const char *statedir, const char *workdir, uint32_t index,
                      const char *file, size_t size, bool fresh)
{
    struct prov pv = { 0 };
    char idx[16];
    char *owner = tpmprov_owner_auth_path(statedir);
    struct strv a = { 0 };
    int set[NSECRETS];
    bool kept = true;
    int rc = -1;
    int64_t t0 = now_ms();

    for (size_t i = 0; i < NSECRETS; i++) {
        char *path = xasprintf("%s/%s", statedir, secrets[i].file);
        char *next = xasprintf("%s.new", path);

        if (fresh) {            /* an earlier state's secrets: this one has none yet */
            unlink(path);
            unlink(next);
        }
        kept = kept && access(path, F_OK) == 0;
        free(path);
        free(next);
    }
    if (kept && !file) {
        free(owner);
        return 0;
    }
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
    if (!kept) {
        if (!fresh) {
            strv_add(&a, "tpm2_getcap");
            strv_add(&a, "properties-variable");
            if ((rc = tool(&pv, &a)) != 0)
                goto out;
        }
        for (size_t i = 0; i < NSECRETS; i++)
            set[i] = fresh ? 0 : perm_flag(pv.out, secrets[i].flag);
        for (size_t i = 0; i < NSECRETS; i++)
            if ((rc = take(&pv, statedir, &secrets[i], set[i])) != 0)
                goto out;
        if (!fresh)
            log_msg("took ownership of the TPM state in %s: its owner and lockout "
                    "authorizations are in %s/vtboot-*.auth", statedir, statedir);
    }
    if (file) {
        if (!fresh) {
            strv_add(&a, "tpm2_getcap");
            strv_add(&a, "handles-nv-index");
            if ((rc = tool(&pv, &a)) != 0)
                goto out;
            if (listed(pv.out, index)) {
                log_dbg("NV index %s exists: undefining it", idx);
                owner_nv_tool(&a, "tpm2_nvundefine", idx, owner);
                if ((rc = tool(&pv, &a)) != 0)
                    goto out;
            }
        }
        owner_nv_tool(&a, "tpm2_nvdefine", idx, owner);
        strv_add(&a, "-s");
        strv_addf(&a, "%zu", size);
        strv_add(&a, "-a");
        strv_add(&a, TPMPROV_ATTRS);
        if ((rc = tool(&pv, &a)) != 0)
            goto out;
        owner_nv_tool(&a, "tpm2_nvwrite", idx, owner);
        strv_add(&a, "-i");
        strv_add(&a, file);
        if ((rc = tool(&pv, &a)) != 0)
            goto out;
    }
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
    if (file)
        log_dbg("NV index %s: %zu bytes written in %d ms", idx, size, (int)(now_ms() - t0));
    rc = 0;
out:
    swtpm_server_end(&pv.swtpm);
    strv_free(&a);
    free(pv.out);
    free(pv.err);
    free(owner);
    return rc;
}
