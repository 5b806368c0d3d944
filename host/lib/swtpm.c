/* SPDX-License-Identifier: MIT */
#include "swtpm.h"
#include "log.h"
#include "sig.h"
#include "sock.h"
#include "strv.h"
#include "util.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SWTPM_SETUP_TIMEOUT_MS 60000

int swtpm_start(struct proc *p, const char *statedir, int ctrl_fd, bool is_client,
                const char *log_path)
{
    struct strv a = { 0 };
    struct fdmap fds[1] = { { ctrl_fd, 3 } };
    struct spawn_opts o = { NULL, -1, 2, -1, fds, 1 };
    int rc;

    strv_add(&a, "swtpm");
    strv_add(&a, "socket");
    strv_add(&a, "--tpm2");
    strv_addf(&a, "--tpmstate=dir=%s", statedir);
    strv_addf(&a, "--ctrl=type=unixio,%s=3", is_client ? "clientfd" : "fd");
    if (log_path)
        strv_addf(&a, "--log=file=%s,level=20", log_path);
    rc = proc_spawn(p, "swtpm", a.v, &o);
    strv_free(&a);
    return rc;
}

int swtpm_server_start(struct swtpm_server *s, const char *statedir, const char *workdir,
                       const char *name)
{
    struct strv a = { 0 };
    int dfd, cfd = -1, logfd = -1, rc = -1;

    memset(s, 0, sizeof(*s));
    s->sock = xasprintf("%s/%s.sock", workdir, name);
    s->ctrl = xasprintf("%s.ctrl", s->sock);
    s->log = xasprintf("%s/swtpm-%s.log", workdir, name);
    s->tcti = xasprintf("swtpm:path=%s", s->sock);
    dfd = sock_listen(s->sock);
    if (dfd >= 0)
        cfd = sock_listen(s->ctrl);
    if (cfd >= 0) {
        logfd = open(s->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (logfd < 0)
            log_perr("open %s", s->log);
    }
    if (logfd >= 0) {
        /* swtpm accepts on our sockets: they exist before it starts, nothing to wait for */
        struct fdmap fds[2] = { { dfd, 3 }, { cfd, 4 } };
        struct spawn_opts o = { NULL, -1, logfd, logfd, fds, 2 };

        strv_add(&a, "swtpm");
        strv_add(&a, "socket");
        strv_add(&a, "--tpm2");
        strv_addf(&a, "--tpmstate=dir=%s", statedir);
        strv_add(&a, "--server=type=unixio,fd=3");
        strv_add(&a, "--ctrl=type=unixio,fd=4");
        strv_add(&a, "--flags=not-need-init");
        rc = proc_spawn(&s->proc, "swtpm (provisioning)", a.v, &o);
        strv_free(&a);
    }
    /* swtpm has its copies */
    if (dfd >= 0)
        close(dfd);
    if (cfd >= 0)
        close(cfd);
    if (logfd >= 0)
        close(logfd);
    if (rc != 0)
        swtpm_server_end(s);
    return rc;
}

void swtpm_server_end(struct swtpm_server *s)
{
    if (s->proc.pid)
        proc_stop(&s->proc, SWTPM_SERVER_STOP_MS);
    if (s->sock)
        unlink(s->sock);
    if (s->ctrl)
        unlink(s->ctrl);
    free(s->sock);
    free(s->ctrl);
    free(s->log);
    free(s->tcti);
    s->sock = s->ctrl = s->log = s->tcti = NULL;
}

bool swtpm_state_exists(const char *statedir)
{
    char *f = xasprintf("%s/%s", statedir, SWTPM_STATE_FILE);
    struct stat st;
    bool yes = stat(f, &st) == 0;

    free(f);
    return yes;
}

int swtpm_setup_state(const char *statedir, const char *banks, const char *workdir)
{
    return swtpm_setup_state_ek(statedir, banks, workdir, NULL);
}

int swtpm_setup_state_ek(const char *statedir, const char *banks, const char *workdir,
                         const char *config)
{
    char *logpath = xasprintf("%s/swtpm_setup.log", workdir);
    struct strv a = { 0 };
    struct proc p;
    int logfd, w, rc = -1;
    int64_t t0 = now_ms();

    logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (logfd < 0) {
        log_perr("open %s", logpath);
        free(logpath);
        return -1;
    }
    strv_add(&a, "swtpm_setup");
    strv_add(&a, "--tpm2");
    strv_add(&a, "--tpmstate");
    strv_add(&a, statedir);
    strv_add(&a, "--pcr-banks");
    strv_add(&a, banks);
    if (config) {
        /* an EK (RSA and ECC) with certificates from the create_certs_tool config names */
        strv_add(&a, "--create-ek-cert");
        strv_add(&a, "--config");
        strv_add(&a, config);
    }
    {
        struct spawn_opts o = { NULL, -1, logfd, logfd, NULL, 0 };

        /* swtpm_setup's swtpm is a grandchild: adopt it so that it is reaped at once */
        proc_adopt(true, 0);
        if (proc_spawn(&p, "swtpm_setup", a.v, &o) != 0) {
            proc_adopt(false, 0);
            goto out;
        }
    }
    w = proc_wait_adopting(&p, SWTPM_SETUP_TIMEOUT_MS);
    if (w != 0)
        proc_stop(&p, 1000);
    /* a swtpm_setup that ends normally has stopped its swtpm; one we stopped has not, and
     * that swtpm (0.7.1) would wait for a client forever: stop it at once (SIGTERM, so that
     * it removes its pid file, /tmp/.swtpm_setup.pidfile.*) */
    proc_adopt(false, w == 0 ? 500 : 0);
    if (w == 2) {
        rc = 128 + sig_terminating();
    } else if (w == 1) {
        log_err("swtpm_setup did not finish in %d s:", SWTPM_SETUP_TIMEOUT_MS / 1000);
        show_file(logpath, "", 4000);
    } else if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0 ||
               !swtpm_state_exists(statedir)) {
        log_err("swtpm_setup --pcr-banks %s%s failed (%s):", banks,
                config ? " --create-ek-cert" : "", proc_status_str(&p));
        show_file(logpath, "", 4000);
    } else {
        log_dbg("swtpm_setup (PCR banks %s%s) took %d ms", strcmp(banks, "-") ? banks : "- (all)",
                config ? ", EK certificates" : "", (int)(now_ms() - t0));
        rc = 0;
    }
out:
    close(logfd);
    strv_free(&a);
    free(logpath);
    return rc;
}
