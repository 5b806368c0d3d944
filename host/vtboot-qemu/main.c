/* SPDX-License-Identifier: MIT */
/*
 * vtboot-qemu: boots vtboot + Linux in QEMU with a swtpm TPM and reports how the guest ended.
 * This file: option handling and orchestration (files, temp dir, children, event loop, cleanup).
 */
#include "acmkey.h"
#include "boot.h"
#include "ev.h"
#include "gdbmux.h"
#include "iso.h"
#include "listener.h"
#include "log.h"
#include "opts.h"
#include "outcome.h"
#include "proc.h"
#include "qemu.h"
#include "qmp.h"
#include "serial.h"
#include "sig.h"
#include "sock.h"
#include "strv.h"
#include "swtpm.h"
#include "tpmprov.h"
#include "util.h"
#include "vsenter_host.h"

#include "abi/tb_policy.h"
#include "txt/acm.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define QEMU_STOP_GRACE_MS 3000
#define SWTPM_STOP_GRACE_MS 2000
#define EXIT_AFTER_SHUTDOWN_MS 10000    /* QEMU should exit by itself after SHUTDOWN */
#define EXIT_AFTER_QMP_EOF_MS 3000
#define SWTPM_GONE_GRACE_MS 5000        /* the guest's time to react to a dead TPM */

/* a socket QEMU serves to the caller (--qmp, --gdb): we bind and listen, QEMU accepts */
struct usock {
    const char *opt, *path;
    int fd;                     /* ours until QEMU has it; -1 after */
    dev_t dev;                  /* what we made, so that cleanup removes only that */
    ino_t ino;
    bool made;
};

struct run {
    struct opts o;
    struct boot boot;
    char sinit_key_hash[2 * ACMKEY_HASH_LEN + 1];       /* --sinit-key's, for the chipset */
    char qemu_bin[PATH_MAX];    /* --txt: the TXT QEMU, an absolute path */
    char bios[PATH_MAX];        /* --txt: its firmware, an absolute path */
    char *tmp, *bootdir;
    char *iso;                  /* --grub: the ISO to boot */
    char *tpm_dir;              /* the TPM state directory */
    struct proc qemu, swtpm;
    struct relay com1;
    struct qmp qmp;
    int qmp_lfd;
    struct listener qmp_listen; /* on qmp_lfd */
    int tpm_lfd;                /* QEMU's TPM control socket (we or swtpm listen) */
    int swtpm_fd;               /* our end of swtpm's control channel (DRTM proxy) */
    int serial_log_fd;
    struct vsenter_host vs;     /* virtual SENTER (and the TPM control proxy) */
    bool vs_on;
    struct fate fate;
    int64_t t_qemu;
    struct usock uqmp, ugdb;
    struct gdbmux gmux;         /* QEMU's gdbstub: the virtual SENTER's and --gdb's (gdbmux.h) */
    bool gmux_on;
    int64_t t_suspend;          /* when the guest last suspended (0: it runs) */
    int nsuspend;
    struct attest_run attest;   /* --attest (attestrun.h) */
};

static struct run R;
static char *prelude_text;              /* --grub-prelude's contents */

static void on_signal(void *ctx, int fd, short revents)
{
    (void)ctx;
    (void)fd;
    (void)revents;
    sig_drain();
}

static double since_qemu(const struct run *r)
{
    return (double)(now_ms() - r->t_qemu) / 1000;
}

/*
 * Every QMP event. The fate decides on SHUTDOWN and GUEST_PANICKED; a suspend (S3) is no end
 * of the run: QEMU sends SUSPEND when the guest writes SLP_TYP=S3|SLP_EN, and WAKEUP when it
 * resets the machine for the wake-up (system_wakeup, an RTC alarm, ...). Both are logged
 * always, the run-state events (STOP, RESUME: virtual SENTER, gdb, the caller's QMP) with -v.
 */
static void on_qmp_event(void *ctx, const char *event, const char *json)
{
    struct run *r = ctx;

    if (!strcmp(event, "SUSPEND")) {
        r->t_suspend = now_ms();
        r->nsuspend++;
        log_msg("guest suspended (S3, #%d, at %.1f s)", r->nsuspend, since_qemu(r));
    } else if (!strcmp(event, "SUSPEND_DISK")) {
        log_msg("guest suspended to disk (S4, at %.1f s): QEMU powers off", since_qemu(r));
    } else if (!strcmp(event, "WAKEUP")) {
        if (r->t_suspend)
            log_msg("guest woke up (#%d, at %.1f s, after %.1f s asleep)", r->nsuspend,
                    since_qemu(r), (double)(now_ms() - r->t_suspend) / 1000);
        else
            log_msg("guest woke up (at %.1f s)", since_qemu(r));
        r->t_suspend = 0;
    } else if (!strcmp(event, "RESET") && r->o.reboot) {
        /* with reboot=reset a guest reset is this event, not a SHUTDOWN. One reset of the
         * guest may be several: SeaBIOS, started again after it has run, resets the machine
         * itself, by more than one method when the first does not land at once (under load) */
        log_msg("machine reset (QMP RESET at %.1f s): --reboot, it restarts", since_qemu(r));
    } else if (!strcmp(event, "STOP") || !strcmp(event, "RESUME") || !strcmp(event, "RESET")) {
        log_dbg("QMP event %s at %.3f s", event, since_qemu(r));
    }
    fate_on_event(&r->fate, event, json);
}

/* QEMU connects once: no more listening then */
static int take_qmp(void *ctx, int fd)
{
    struct run *r = ctx;

    ev_del(r->qmp_lfd);
    qmp_attach(&r->qmp, fd, on_qmp_event, r);
    return 0;
}

/* --qmp/--gdb PATH: a fresh listening socket there (a stale socket is replaced; a live one,
 * or anything that is not a socket, is refused) */
static int usock_open(struct usock *u, const char *opt, const char *path)
{
    struct stat st;

    u->opt = opt;
    u->path = path;
    if (strlen(path) > SOCK_PATH_MAX) {
        log_err("%s %s: longer than the %d bytes a socket path can have", opt, path,
                SOCK_PATH_MAX);
        return -1;
    }
    if (lstat(path, &st) == 0) {
        int fd;

        if (!S_ISSOCK(st.st_mode)) {
            log_err("%s %s: exists and is not a socket", opt, path);
            return -1;
        }
        fd = sock_connect(path);
        if (fd >= 0) {
            close(fd);
            log_err("%s %s: a socket somebody is listening on", opt, path);
            return -1;
        }
        log_dbg("%s %s: replacing a stale socket", opt, path);
    }
    u->fd = sock_listen(path);
    if (u->fd < 0)
        return -1;
    if (stat(path, &st) == 0) {
        u->dev = st.st_dev;
        u->ino = st.st_ino;
    }
    u->made = true;
    return 0;
}

static void usock_close(struct usock *u)
{
    struct stat st;

    if (u->fd >= 0)
        close(u->fd);
    u->fd = -1;
    if (u->made && lstat(u->path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == u->dev &&
        st.st_ino == u->ino)
        unlink(u->path);
    u->made = false;
}

static bool is_gzip(const char *path)
{
    unsigned char m[2];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool gz = fd >= 0 && read(fd, m, 2) == 2 && m[0] == 0x1f && m[1] == 0x8b;

    if (fd >= 0)
        close(fd);
    return gz;
}

/* vtboot's name in the guest for QEMU -kernel: a gzip file is unpacked to its name minus .gz */
static char *qemu_vtboot_name(const char *path)
{
    const char *base = path_base(path);
    size_t n = strlen(base);

    if (is_gzip(path) && n > 3 && !strcmp(base + n - 3, ".gz"))
        return xasprintf("%.*s", (int)(n - 3), base);
    return xstrdup(base);
}

static int check_file(const char *what, const char *path)
{
    if (file_readable(path))
        return 0;
    log_err("%s %s: %s", what, path, access(path, F_OK) ? strerror(errno) : "not a readable file");
    return -1;
}

static int check_files(struct run *r)
{
    int rc = 0;

    if (r->o.disk)
        rc |= check_file("disk", r->o.disk);      /* the disk's loader finds the rest */
    else
        rc |= check_file(r->o.txt ? "tboot" : "vtboot", r->boot.vtboot);
    /* QEMU runs in the directory of the boot files' links: a relative name would miss */
    if (r->o.txt && !r->o.make_iso &&
        (!realpath(r->o.qemu_bin, r->qemu_bin) || access(r->qemu_bin, X_OK) != 0)) {
        log_err("the TXT QEMU %s: %s (make builds out/bin/qemu-system-x86_64-txt; --qemu or "
                "$VTBOOT_QEMU_TXT name another)", r->o.qemu_bin, strerror(errno));
        rc = -1;
    }
    if (r->o.txt && !r->o.make_iso &&
        (!realpath(r->o.bios, r->bios) || access(r->bios, R_OK) != 0)) {
        log_err("the TXT firmware %s: %s (make builds out/bios-txt.bin; --bios or "
                "$VTBOOT_BIOS_TXT name another)", r->o.bios, strerror(errno));
        rc = -1;
    }
    if (r->o.disk) {
        /* --txt --disk --sinit F: the SINIT the disk holds, for tboot's policy index */
        if (r->boot.acm)
            rc |= check_file("SINIT", r->boot.acm);
        return rc ? -1 : 0;
    }
    if (r->boot.kernel)
        rc |= check_file("kernel", r->boot.kernel);
    if (r->boot.initrd)
        rc |= check_file("initrd", r->boot.initrd);
    if (r->boot.xen)
        rc |= check_file("xen", r->boot.xen);
    if (r->boot.acm)
        rc |= check_file("SINIT", r->boot.acm);
    if (r->boot.lcp_data)
        rc |= check_file("LCP data", r->boot.lcp_data);
    return rc ? -1 : 0;
}

static enum loader loader_of(const struct opts *o)
{
    if (!o->grub)
        return LOADER_QEMU_MB1;
    return o->grub_mb1 ? LOADER_GRUB_MB1 : LOADER_GRUB_MB2;
}

/* --print-modules / --print-cmdline */
static int print_strings(struct run *r)
{
    struct boot b = r->boot;
    struct boot_strings s;
    char err[512];
    char *name = NULL;

    if (loader_of(&r->o) == LOADER_QEMU_MB1)
        b.vtboot = name = qemu_vtboot_name(b.vtboot);
    if (boot_strings(&b, loader_of(&r->o), &s, err, sizeof(err)) != 0) {
        log_err("%s", err);
        free(name);
        return EXIT_SETUP;
    }
    if (r->o.print_cmdline)
        printf("%s\n", s.vtboot_cmdline);
    if (r->o.print_modules)
        for (int i = 0; i < s.nmods; i++)
            printf("%s\n", s.mods[i]);
    boot_strings_free(&s);
    free(name);
    return fflush(stdout) == 0 ? 0 : EXIT_SETUP;
}

static int make_tmp(struct run *r)
{
    const char *base = getenv("TMPDIR");
    char *tmpl;

    /* socket paths must stay short, and QEMU options cannot take a ',' */
    if (!base || !*base || base[0] != '/' || strlen(base) > 60 || strchr(base, ','))
        base = "/tmp";
    tmpl = xasprintf("%s/vtboot-qemu.XXXXXX", base);
    if (!mkdtemp(tmpl)) {
        log_perr("mkdtemp %s", tmpl);
        free(tmpl);
        return -1;
    }
    r->tmp = tmpl;
    log_dbg("temp dir %s", r->tmp);
    return 0;
}

/* QEMU -kernel: the boot dir of basename symlinks that QEMU runs in (see boot.h). A gzip file
 * is unpacked instead: QEMU -kernel needs vtboot's ELF, and the modules must be what GRUB
 * loads (it unpacks gzip modules) and what tb_polgen hashes (it reads images through gzip). */
static int make_bootdir(struct run *r, struct boot_strings *s)
{
    const char *paths[1 + BOOT_MODS_MAX];

    boot_files(&r->boot, paths);
    r->bootdir = xasprintf("%s/boot", r->tmp);
    if (mkdir(r->bootdir, 0755) != 0) {
        log_perr("mkdir %s", r->bootdir);
        return -1;
    }
    for (int i = 0; i < 1 + s->nmods; i++) {
        char *link = xasprintf("%s/%s", r->bootdir, s->names[i]);
        char *target = realpath(paths[i], NULL);
        int rc = 0;

        if (!target) {
            log_perr("%s", paths[i]);
            rc = -1;
        } else if (is_gzip(target)) {
            int fd = open(link, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            char *argv[] = { "gzip", "-dc", target, NULL };
            struct spawn_opts so = { NULL, -1, fd, -1, NULL, 0 };
            struct proc p;

            if (fd < 0 || proc_spawn(&p, "gzip", argv, &so) != 0) {
                rc = -1;
            } else if (proc_wait(&p, 60000) != 0 || !WIFEXITED(p.status) ||
                       WEXITSTATUS(p.status) != 0) {
                proc_stop(&p, 0);
                log_err("cannot unpack %s", target);
                rc = -1;
            }
            if (fd >= 0)
                close(fd);
        } else if (symlink(target, link) != 0) {
            log_perr("symlink %s", link);
            rc = -1;
        }
        free(link);
        free(target);
        if (rc)
            return -1;
    }
    return 0;
}

/* --grub: the default out/vtboot.iso if it was made from the same files and grub.cfg */
static char *usable_prebuilt_iso(struct run *r)
{
    const struct opts *o = &r->o;
    char *iso = xasprintf("%s/vtboot.iso", o->outdir);
    char *cfgpath = xasprintf("%s.grub.cfg", iso);
    struct boot_strings s;
    char err[256];
    char *want = NULL;
    uint8_t *have = NULL;
    size_t len = 0;
    int64_t t = file_mtime_ns(iso);
    bool ok = !o->kernel_set && !o->initrd_set && !o->vtboot_set && !o->grub_mb1 && !o->xen &&
              !o->txt &&
              t >= 0;

    if (ok && boot_strings(&r->boot, LOADER_GRUB_MB2, &s, err, sizeof(err)) == 0) {
        want = iso_grub_cfg(&r->boot, &s, false);
        boot_strings_free(&s);
        have = file_read_all(cfgpath, &len, 1 << 20);
        ok = have && len == strlen(want) && !memcmp(have, want, len);
        ok = ok && file_mtime_ns(r->boot.vtboot) <= t;
        ok = ok && (!r->boot.kernel || file_mtime_ns(r->boot.kernel) <= t);
        ok = ok && (!r->boot.initrd || file_mtime_ns(r->boot.initrd) <= t);
        {
            char *self = self_dir();
            char *exe = self ? xasprintf("%s/vtboot-qemu", self) : NULL;

            ok = ok && exe && file_mtime_ns(exe) <= t;
            free(self);
            free(exe);
        }
    } else {
        ok = false;
    }
    free(want);
    free(have);
    free(cfgpath);
    if (!ok) {
        free(iso);
        return NULL;
    }
    return iso;
}

/* --policy FILE: its bytes, copied into the temp dir (what is written is what was checked) */
static char *policy_copy(struct run *r, size_t *size)
{
    const char *f = r->o.policy;
    uint8_t *data = file_read_all(f, size, TPMPROV_MAX_SIZE + 1);
    char *copy = NULL;

    if (!data) {
        if (errno == EFBIG)
            log_err("--policy %s: more than the %d bytes an NV index can hold", f,
                    TPMPROV_MAX_SIZE);
        else
            log_perr("--policy %s", f);
        return NULL;
    }
    if (*size == 0) {
        log_err("--policy %s: the file is empty (an NV index holds 1 to %d bytes)", f,
                TPMPROV_MAX_SIZE);
    } else {
        copy = xasprintf("%s/policy.bin", r->tmp);
        if (file_write_all(copy, data, *size) != 0) {
            log_perr("write %s", copy);
            free(copy);
            copy = NULL;
        }
    }
    free(data);
    return copy;
}

/* The NV index tboot reads its policy from: on the TXT platform the one --sinit's
 * tpm_nv_index_set selects (our SINIT's: 0x01C10131), else 0x01200001. 0, or -1 said. */
static int policy_nv_index(const struct run *r, uint32_t *index)
{
    struct acm_info ai;
    char err[160];
    size_t len;
    uint8_t *acm;

    *index = TB_POLICY_NV_INDEX_TPM2;
    if (!r->o.txt || !r->o.sinit)
        return 0;
    acm = file_read_all(r->o.sinit, &len, 1u << 24);
    if (!acm) {
        log_perr("read %s", r->o.sinit);
        return -1;
    }
    int rc = acm_parse(acm, len, &ai, err, sizeof(err));
    free(acm);
    if (rc != 0) {
        log_err("--sinit %s: %s", r->o.sinit, err);
        return -1;
    }
    *index = acm_tb_policy_index(&ai);
    return 0;
}

/*
 * The TPM state before swtpm starts for QEMU: a fresh one (swtpm_setup, --pcr-banks) unless
 * the directory has one, its owner and lockout authorizations taken (tpmprov.h), then --policy
 * written into NV with tpm2-tools. Returns 0, -1 or 128+signal.
 */
static int prepare_tpm(struct run *r)
{
    const struct opts *o = &r->o;
    char *state = o->tpm_state ? xstrdup(o->tpm_state) : xasprintf("%s/tpm", r->tmp);
    bool fresh;
    int rc;
    int64_t t0 = now_ms();

    r->tpm_dir = state;
    if (strchr(state, ',')) {
        log_err("--tpm-state: swtpm cannot take a directory with ',' in its name");
        return -1;
    }
    if (mkdir_p(state, 0700) != 0) {
        log_perr("mkdir %s", state);
        return -1;
    }
    fresh = !swtpm_state_exists(state);
    if (fresh) {
        rc = o->attest.on ? attestrun_setup_state(&r->attest, state, o->pcr_banks, r->tmp)
                          : swtpm_setup_state(state, o->pcr_banks, r->tmp);
        if (rc != 0)
            return rc;
        if (o->provision_only)
            log_msg("created a TPM 2.0 state in %s, PCR banks %s (%.2f s)", state,
                    strcmp(o->pcr_banks, "-") ? o->pcr_banks : "all", (double)(now_ms() - t0) / 1000);
    } else if (o->pcr_banks_set) {
        log_msg("--pcr-banks %s ignored: %s has a TPM state already (used as is)",
                strcmp(o->pcr_banks, "-") ? o->pcr_banks : "all", state);
    }
    {
        size_t size = 0;
        uint32_t index;
        char *copy = o->policy ? policy_copy(r, &size) : NULL;
        int64_t t1 = now_ms();

        if ((o->policy && !copy) || policy_nv_index(r, &index) != 0) {
            free(copy);
            return -1;
        }
        /* the owner and lockout authorizations (once per state), then the policy */
        rc = tpmprov_provision(state, r->tmp, index, copy, size, fresh);
        free(copy);
        if (rc != 0)
            return rc;
        if (o->policy && o->provision_only)
            log_msg("wrote %s (%zu bytes) into NV index 0x%08x of %s (%.2f s)", o->policy, size,
                    index, state, (double)(now_ms() - t1) / 1000);
        else if (o->policy)
            log_dbg("policy provisioned in %d ms", (int)(now_ms() - t1));
    }
    if (o->attest.on)
        return attestrun_enroll(&r->attest, state, r->tmp);
    return 0;
}

static int setup_tpm(struct run *r)
{
    char *sock = xasprintf("%s/tpm-ctrl.sock", r->tmp);
    const char *state = r->tpm_dir;
    char *log = log_verbose ? xasprintf("%s/swtpm.log", r->tmp) : NULL;
    int rc = -1;

    r->tpm_lfd = sock_listen(sock);
    if (r->tpm_lfd < 0)
        goto out;
    if (r->o.no_drtm) {
        /* swtpm accepts QEMU's connection itself */
        if (swtpm_start(&r->swtpm, state, r->tpm_lfd, false, log) != 0)
            goto out;
        close(r->tpm_lfd);
        r->tpm_lfd = -1;
    } else {
        /* we sit between QEMU and swtpm: QEMU -> tpm_lfd (ours), us -> socket pair -> swtpm */
        int sv[2];

        if (sock_pair(sv) != 0) {
            log_perr("socketpair");
            goto out;
        }
        if (swtpm_start(&r->swtpm, state, sv[1], true, log) != 0) {
            close(sv[0]);
            close(sv[1]);
            goto out;
        }
        close(sv[1]);
        r->swtpm_fd = sv[0];
    }
    rc = 0;
out:
    free(sock);
    free(log);
    return rc;
}

static int start_qemu(struct run *r, struct boot_strings *s)
{
    struct qemu_cfg c = { 0 };
    struct strv a = { 0 };
    struct fdmap fds[2];
    struct spawn_opts so = { NULL, -1, 2, -1, fds, 0 };
    char *com1 = xasprintf("%s/com1", r->tmp);
    char *qmp = xasprintf("%s/qmp.sock", r->tmp);
    char *tpm = xasprintf("%s/tpm-ctrl.sock", r->tmp);
    char *vs = xasprintf("%s/vsenter.sock", r->tmp);
    char *gdbq = xasprintf("%s/gdbstub.sock", r->tmp);
    char *initrd = NULL;
    int gdbq_lfd = -1;
    int rc = -1;

    if (relay_init(&r->com1, com1, 1, r->serial_log_fd, isatty(0) == 1) != 0)
        goto out;
    r->qmp_lfd = sock_listen(qmp);
    if (r->qmp_lfd < 0)
        goto out;
    listener_add(&r->qmp_listen, r->qmp_lfd, take_qmp, r);
    if (!r->o.no_tpm && setup_tpm(r) != 0)
        goto out;
    /* QEMU's one gdbstub listens where only we connect; --gdb PATH is ours (gdbmux.h) */
    if (!r->o.no_drtm || r->ugdb.fd >= 0) {
        gdbq_lfd = sock_listen(gdbq);
        if (gdbq_lfd < 0)
            goto out;
        gdbmux_init(&r->gmux, gdbq, r->ugdb.fd);
        r->gmux_on = true;
    }
    if (!r->o.no_drtm) {
        /* the proxy takes over both TPM control sockets */
        if (vsenter_host_init(&r->vs, vs, r->tmp, &r->qmp, r->tpm_lfd, r->swtpm_fd,
                              (uint64_t)r->o.memory_mb << 20, r->o.machine, &r->gmux,
                              &r->fate) != 0)
            goto out;
        r->vs_on = true;
        r->tpm_lfd = r->swtpm_fd = -1;
        if (r->vs.have_tpm)
            ctrlproxy_set_faults(&r->vs.proxy, &r->o.tpm_faults);
    }

    c.binary = r->o.txt ? r->qemu_bin : NULL;
    c.bios = r->o.txt ? r->bios : NULL;
    c.txt = r->o.txt;
    c.sinit_key_hash = r->o.sinit_key ? r->sinit_key_hash : NULL;
    c.machine = r->o.machine;
    c.smp = r->o.smp;
    c.cpu = r->o.cpu;
    c.memory_mb = r->o.memory_mb;
    c.reboot = r->o.reboot;
    c.com1_pipe = com1;
    c.qmp_sock = qmp;
    c.tpm_sock = r->o.no_tpm ? NULL : tpm;
    c.vsenter_sock = r->o.no_drtm ? NULL : vs;
    c.user_qmp_fd = c.gdb_fd = -1;
    if (r->uqmp.fd >= 0) {
        fds[so.nfds] = (struct fdmap){ r->uqmp.fd, 3 + so.nfds };
        c.user_qmp_fd = fds[so.nfds++].to;
    }
    if (gdbq_lfd >= 0) {
        fds[so.nfds] = (struct fdmap){ gdbq_lfd, 3 + so.nfds };
        c.gdb_fd = fds[so.nfds++].to;
    }
    c.extra = r->o.extra;
    c.nextra = r->o.nextra;
    c.host_page = r->o.attest.on ? r->attest.host_page : NULL;     /* the --attest nonce */
    c.data_disk = r->o.data_disk;
    if (r->o.disk) {
        unsigned char m[4] = { 0 };
        int fd = open(r->o.disk, O_RDONLY | O_CLOEXEC);

        /* qcow2 by its magic ("QFI\xfb"), anything else raw */
        if (fd >= 0 && read(fd, m, 4) == 4 && !memcmp(m, "QFI\xfb", 4))
            c.disk_format = "qcow2";
        else
            c.disk_format = "raw";
        if (fd >= 0)
            close(fd);
        c.disk = r->o.disk;
        so.cwd = NULL;          /* a relative IMAGE path is the caller's */
        log_dbg("disk %s (%s)", c.disk, c.disk_format);
    } else if (r->iso) {
        c.iso = r->iso;
        so.cwd = r->tmp;
    } else {
        c.kernel = s->names[0];
        c.append = boot_qemu_append(&r->boot);
        initrd = boot_qemu_initrd_arg(s);       /* NULL without modules: no -initrd */
        c.initrd = initrd;
        so.cwd = r->bootdir;
    }
    qemu_argv(&a, &c);
    r->t_qemu = now_ms();
    rc = proc_spawn(&r->qemu, "qemu", a.v, &so);
    /* QEMU holds the caller's listening sockets now: once it is gone, connecting fails */
    if (r->uqmp.fd >= 0)
        close(r->uqmp.fd);
    r->uqmp.fd = -1;
    if (gdbq_lfd >= 0)
        close(gdbq_lfd);        /* the gdbstub's listening socket is QEMU's now */
    gdbq_lfd = -1;
    if (rc == 0 && r->uqmp.made)
        log_dbg("QMP for the caller on %s", r->uqmp.path);
    if (rc == 0 && r->ugdb.made)
        log_dbg("gdbstub on %s", r->ugdb.path);
out:
    strv_free(&a);
    free(com1);
    free(qmp);
    free(tpm);
    free(vs);
    free(gdbq);
    if (gdbq_lfd >= 0)
        close(gdbq_lfd);
    free(initrd);
    return rc;
}

static void run_loop(struct run *r)
{
    int64_t deadline = r->o.timeout_s > 0 ? r->t_qemu + (int64_t)(r->o.timeout_s * 1000) : INT64_MAX;
    int64_t qmp_eof_at = 0, swtpm_gone_at = 0;

    for (;;) {
        int64_t now = now_ms(), wait;

        if (sig_terminating()) {
            r->fate.signo = sig_terminating();
            fate_set(&r->fate, OUT_SIGNAL, "%s", strsignal(r->fate.signo));
            return;
        }
        if (proc_poll(&r->qemu))
            return;
        /* swtpm gone: the guest's TPM commands fail from now on (QEMU answers them TPM_FAIL);
         * the guest gets SWTPM_GONE_GRACE_MS to act on that (vtboot halts), then the run ends */
        if (r->swtpm.pid && !swtpm_gone_at && r->fate.outcome == OUT_NONE &&
            proc_poll(&r->swtpm)) {
            swtpm_gone_at = now;
            log_msg("swtpm ended while the guest runs (%s, at %.1f s): the TPM is gone; the run "
                    "ends in %d s unless the guest ends first", proc_status_str(&r->swtpm),
                    since_qemu(r), SWTPM_GONE_GRACE_MS / 1000);
        }
        if (swtpm_gone_at && r->fate.outcome == OUT_NONE &&
            now - swtpm_gone_at >= SWTPM_GONE_GRACE_MS) {
            fate_set(&r->fate, OUT_CRASH, "swtpm ended: %s; QEMU stopped",
                     proc_status_str(&r->swtpm));
            return;
        }
        if (now >= deadline) {
            fate_set(&r->fate, OUT_TIMEOUT, "no shutdown after %g s, QEMU killed", r->o.timeout_s);
            return;
        }
        if (r->fate.outcome != OUT_NONE && now - r->fate.decided_at > EXIT_AFTER_SHUTDOWN_MS) {
            log_msg("warning: QEMU did not exit after the guest ended; killing it");
            return;
        }
        if (r->qmp.eof && !qmp_eof_at)
            qmp_eof_at = now;
        if (qmp_eof_at && now - qmp_eof_at > EXIT_AFTER_QMP_EOF_MS) {
            fate_set(&r->fate, OUT_CRASH, "QMP connection lost, QEMU killed");
            return;
        }
        wait = deadline - now;
        if (wait > 250)
            wait = 250;
        ev_run_once((int)wait);
    }
}

/* After QEMU is gone: what happened if no event told us */
static void conclude(struct run *r)
{
    if (r->fate.outcome != OUT_NONE)
        return;
    if (!r->qmp.ready)
        fate_set(&r->fate, OUT_SETUP, "QEMU failed to start (%s)", proc_status_str(&r->qemu));
    else
        fate_set(&r->fate, OUT_CRASH, "QEMU ended without a SHUTDOWN event: %s",
                 proc_status_str(&r->qemu));
}

/*
 * SIGTERM to QEMU, then SIGKILL after QEMU_STOP_GRACE_MS. The event loop runs meanwhile: QEMU's
 * TPM emulator sends its last control command (SHUTDOWN) through our proxy and waits for the
 * answer before QEMU exits (without the loop every stop took the whole grace time), and COM1
 * keeps flowing. The guest's requests are no longer heard.
 */
static void stop_qemu(struct run *r)
{
    int64_t end = now_ms() + QEMU_STOP_GRACE_MS;

    if (!r->qemu.pid || proc_poll(&r->qemu))
        return;
    if (r->vs_on)
        vsenter_host_quiet(&r->vs);
    kill(r->qemu.pid, SIGTERM);
    while (!proc_poll(&r->qemu) && now_ms() < end)
        ev_run_once(20);
    proc_stop(&r->qemu, 0);
}

static void cleanup(struct run *r)
{
    if (r->qemu.pid) {
        stop_qemu(r);
        relay_drain(&r->com1);
    }
    if (r->vs_on)
        vsenter_host_close(&r->vs);
    if (r->swtpm.pid)
        proc_stop(&r->swtpm, SWTPM_STOP_GRACE_MS);
    relay_close(&r->com1);
    usock_close(&r->uqmp);
    if (r->gmux_on)
        gdbmux_close(&r->gmux);
    r->gmux_on = false;
    usock_close(&r->ugdb);
    qmp_detach(&r->qmp);
    if (r->qmp_lfd >= 0) {
        ev_del(r->qmp_lfd);
        close(r->qmp_lfd);
    }
    if (r->tpm_lfd >= 0)
        close(r->tpm_lfd);
    if (r->swtpm_fd >= 0)
        close(r->swtpm_fd);
    if (r->serial_log_fd >= 0)
        close(r->serial_log_fd);
    if (r->tmp) {
        if (r->o.keep_temp)
            log_msg("temp dir kept: %s", r->tmp);
        else if (rm_rf(r->tmp) != 0)
            log_perr("cannot remove %s", r->tmp);
    }
}

static int prepare_and_run(struct run *r)
{
    struct boot_strings s;
    char err[512];
    int rc;

    if (!r->o.provision_only && check_files(r) != 0)
        return EXIT_SETUP;
    if (make_tmp(r) != 0)
        return EXIT_SETUP;
    if (r->o.attest.on) {
        if (attestrun_prepare(&r->attest, r->tmp, r->o.serial_log) != 0)
            return EXIT_SETUP;
        r->o.serial_log = r->attest.serial_path;      /* the evidence comes on COM1 */
    }
    if (r->o.provision_only) {
        rc = prepare_tpm(r);
        return rc < 0 ? EXIT_SETUP : rc;
    }
    if (r->o.make_iso) {
        char *cfg = xasprintf("%s.grub.cfg", r->o.make_iso);
        int64_t t0 = now_ms();

        rc = iso_make(r->o.make_iso, &r->boot, r->o.grub_mb1, r->tmp, cfg);
        free(cfg);
        if (rc == 0)
            log_msg("wrote %s (%.1f s)", r->o.make_iso, (double)(now_ms() - t0) / 1000);
        return sig_terminating() ? 128 + sig_terminating() : rc == 0 ? 0 : EXIT_SETUP;
    }
    if (r->o.serial_log) {
        r->serial_log_fd = open(r->o.serial_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (r->serial_log_fd < 0) {
            log_perr("--serial-log %s", r->o.serial_log);
            return EXIT_SETUP;
        }
    }
    if ((r->o.qmp_path && usock_open(&r->uqmp, "--qmp", r->o.qmp_path) != 0) ||
        (r->o.gdb_path && usock_open(&r->ugdb, "--gdb", r->o.gdb_path) != 0))
        return EXIT_SETUP;
    if (!r->o.no_tpm) {
        /* before any other child runs (swtpm_setup's swtpm is adopted and reaped) */
        rc = prepare_tpm(r);
        if (rc != 0)
            return rc < 0 ? EXIT_SETUP : rc;
    }
    if (r->o.disk) {
        memset(&s, 0, sizeof(s));
    } else if (r->o.grub) {
        r->iso = usable_prebuilt_iso(r);
        if (r->iso) {
            log_dbg("booting the prebuilt %s", r->iso);
        } else {
            int64_t t0 = now_ms();

            r->iso = xasprintf("%s/vtboot.iso", r->tmp);
            if (iso_make(r->iso, &r->boot, r->o.grub_mb1, r->tmp, NULL) != 0)
                return sig_terminating() ? 128 + sig_terminating() : EXIT_SETUP;
            log_dbg("ISO built in %.1f s", (double)(now_ms() - t0) / 1000);
        }
        if (strchr(r->iso, ',')) {
            log_err("the ISO path %s has a ',', which QEMU's -cdrom cannot take", r->iso);
            return EXIT_SETUP;
        }
        memset(&s, 0, sizeof(s));
    } else {
        /* names as QEMU's boot dir will hold them (vtboot.gz gets unpacked) */
        struct boot b = r->boot;
        char *vname = qemu_vtboot_name(r->boot.vtboot);

        b.vtboot = vname;
        rc = boot_strings(&b, LOADER_QEMU_MB1, &s, err, sizeof(err));
        free(vname);
        if (rc != 0) {
            log_err("%s", err);
            return EXIT_SETUP;
        }
        if (make_bootdir(r, &s) != 0) {
            boot_strings_free(&s);
            return EXIT_SETUP;
        }
        for (int i = 0; i < s.nmods; i++)
            log_dbg("module %d: \"%s\"", i, s.mods[i]);
        log_dbg("vtboot command line: \"%s\"", s.vtboot_cmdline);
    }
    if (sig_terminating())
        return 128 + sig_terminating();
    rc = start_qemu(r, &s);
    boot_strings_free(&s);
    if (rc != 0)
        return EXIT_SETUP;
    run_loop(r);
    stop_qemu(r);
    qmp_drain(&r->qmp);     /* the loop may have seen QEMU gone before it read the last event */
    conclude(r);
    if (r->o.attest.on && r->fate.outcome == OUT_POWEROFF) {
        relay_drain(&r->com1);
        attestrun_verify(&r->attest, &r->boot, loader_of(&r->o), r->tmp);
    }
    return -1;   /* the fate decides */
}

int main(int argc, char **argv)
{
    struct run *r = &R;
    int rc;

    log_prog = "vtboot-qemu";
    r->qmp.fd = r->qmp_lfd = r->tpm_lfd = r->swtpm_fd = r->serial_log_fd = -1;
    r->com1.from_guest = r->com1.to_guest = r->com1.out_fd = -1;
    r->uqmp.fd = r->ugdb.fd = -1;
    rc = opts_parse(&r->o, argc, argv);
    if (rc != 0)
        return rc > 0 ? 0 : EXIT_SETUP;
    r->boot.vtboot = r->o.vtboot;
    r->boot.kernel = r->o.no_kernel ? NULL : r->o.kernel;
    r->boot.initrd = *r->o.initrd ? r->o.initrd : NULL;
    r->boot.cmdline = r->o.cmdline;
    r->boot.vtboot_cmdline = r->o.vtboot_cmdline;
    if (r->o.attest.on) {
        /* " vtboot.guest=attest" on the command line; the nonce goes unmeasured (attestrun.h) */
        if (attestrun_init(&r->attest, &r->o.attest, r->o.cmdline, r->o.outdir) != 0)
            return EXIT_SETUP;
        r->attest.boot_policy = r->o.policy;
        r->boot.cmdline = r->attest.cmdline;
    }
    r->boot.xen = r->o.xen;
    r->boot.acm = r->o.sinit;
    r->boot.lcp_data = r->o.lcp_data;
    if (r->o.sinit_key) {
        char err[512];

        if (acmkey_hash_hex(r->o.sinit_key, r->sinit_key_hash, err, sizeof(err)) != 0) {
            log_err("--sinit-key %s", err);
            return EXIT_SETUP;
        }
    }
    r->boot.xen_cmdline = r->o.xen_cmdline;
    if (r->o.grub_prelude) {
        size_t len;
        uint8_t *text = file_read_all(r->o.grub_prelude, &len, 1 << 16);

        if (!r->o.grub && !r->o.make_iso) {
            log_err("--grub-prelude needs --grub, --grub-mb1 or --make-iso");
            return EXIT_SETUP;
        }
        if (!text || memchr(text, 0, len)) {
            log_err("--grub-prelude %s: %s", r->o.grub_prelude,
                    text ? "not a text file" : "cannot read it (at most 64 KiB)");
            free(text);
            return EXIT_SETUP;
        }
        r->boot.grub_prelude = prelude_text = xasprintf("%.*s", (int)len, (char *)text);
        free(text);
    }
    if (r->o.print_modules || r->o.print_cmdline)
        return print_strings(r);
    if (sig_setup() < 0) {
        log_perr("signal pipe");
        return EXIT_SETUP;
    }
    ev_add(sig_fd(), POLLIN, on_signal, NULL);

    rc = prepare_and_run(r);
    cleanup(r);
    if (rc >= 0)
        return rc;
    rc = fate_report(&r->fate, (double)(now_ms() - r->t_qemu) / 1000);
    if (r->o.attest.on && !attestrun_report(&r->attest) && rc == 0)
        rc = EXIT_ATTEST;
    return rc;
}
