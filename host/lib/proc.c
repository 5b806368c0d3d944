/* SPDX-License-Identifier: MIT */
#include "proc.h"
#include "log.h"
#include "sig.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void child_fail(int errpipe, int err)
{
    if (write(errpipe, &err, sizeof(err)) < 0) {
        /* nothing left to do */
    }
    _exit(127);
}

static void child_setup_fds(const struct spawn_opts *o, int errpipe)
{
    int tmp[16];
    int i, maxfd;

    if (o->nfds > 16)
        child_fail(errpipe, EINVAL);
    /* first move every source above the target range so that dup2 cannot clobber one */
    for (i = 0; i < o->nfds; i++) {
        tmp[i] = fcntl(o->fds[i].from, F_DUPFD, 64);
        if (tmp[i] < 0)
            child_fail(errpipe, errno);
    }
    if (o->stdin_fd >= 0) {
        if (dup2(o->stdin_fd, 0) < 0)
            child_fail(errpipe, errno);
    } else {
        int fd = open("/dev/null", O_RDONLY);

        if (fd < 0 || dup2(fd, 0) < 0)
            child_fail(errpipe, errno);
    }
    if (o->stdout_fd >= 0 && dup2(o->stdout_fd, 1) < 0)
        child_fail(errpipe, errno);
    if (o->stderr_fd >= 0 && dup2(o->stderr_fd, 2) < 0)
        child_fail(errpipe, errno);
    for (i = 0; i < o->nfds; i++)
        if (dup2(tmp[i], o->fds[i].to) < 0)
            child_fail(errpipe, errno);
    /* close everything else except the error pipe (close-on-exec) */
    maxfd = (int)sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 65536)
        maxfd = 65536;
    for (int fd = 3; fd < maxfd; fd++) {
        bool keep = fd == errpipe;

        for (i = 0; i < o->nfds && !keep; i++)
            keep = fd == o->fds[i].to;
        if (!keep)
            close(fd);
    }
}

int proc_spawn(struct proc *p, const char *name, char *const argv[], const struct spawn_opts *o)
{
    static const struct spawn_opts none = { NULL, -1, -1, -1, NULL, 0 };
    int errpipe[2];
    pid_t parent = getpid();
    pid_t pid;
    int err = 0;
    ssize_t n;

    if (!o)
        o = &none;
    memset(p, 0, sizeof(*p));
    p->name = name;
    if (pipe2(errpipe, O_CLOEXEC) != 0) {
        log_perr("pipe");
        return -1;
    }
    proc_log_argv(name, argv);
    pid = fork();
    if (pid < 0) {
        log_perr("fork");
        close(errpipe[0]);
        close(errpipe[1]);
        return -1;
    }
    if (pid == 0) {
        sigset_t set;

        close(errpipe[0]);
        /* die with the parent, even if it is SIGKILLed */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGCHLD, SIG_DFL);
        sigemptyset(&set);
        sigprocmask(SIG_SETMASK, &set, NULL);
        /* own process group: a terminal's ^C goes to us, and we stop the child ourselves */
        setpgid(0, 0);
        child_setup_fds(o, errpipe[1]);
        if (o->cwd && chdir(o->cwd) != 0)
            child_fail(errpipe[1], errno);
        execvp(argv[0], argv);
        child_fail(errpipe[1], errno);
    }
    close(errpipe[1]);
    p->pid = pid;
    do {
        n = read(errpipe[0], &err, sizeof(err));
    } while (n < 0 && errno == EINTR);
    close(errpipe[0]);
    if (n == (ssize_t)sizeof(err)) {
        waitpid(pid, &p->status, 0);
        p->exited = true;
        errno = err;
        log_perr("cannot run %s (%s)", argv[0], name);
        return -1;
    }
    log_dbg("%s started, pid %d", name, (int)pid);
    return 0;
}

bool proc_poll(struct proc *p)
{
    pid_t r;

    if (!p->pid)
        return true;
    if (p->exited)
        return true;
    do {
        r = waitpid(p->pid, &p->status, WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == p->pid || (r < 0 && errno == ECHILD)) {
        p->exited = true;
        log_dbg("%s (pid %d) ended: %s", p->name, (int)p->pid, proc_status_str(p));
        return true;
    }
    return false;
}

static bool wait_exit(struct proc *p, int timeout_ms)
{
    int64_t end = now_ms() + timeout_ms;

    while (!proc_poll(p)) {
        int64_t left = end - now_ms();
        struct pollfd pfd = { sig_fd(), POLLIN, 0 };

        if (left <= 0)
            return false;
        if (pfd.fd >= 0) {
            poll(&pfd, 1, left > 20 ? 20 : (int)left);
            sig_drain();
        } else {
            usleep(10000);
        }
    }
    return true;
}

void proc_stop(struct proc *p, int grace_ms)
{
    if (!p->pid || proc_poll(p))
        return;
    kill(p->pid, SIGTERM);
    if (grace_ms > 0 && wait_exit(p, grace_ms))
        return;
    log_dbg("%s (pid %d) did not exit, killing it", p->name, (int)p->pid);
    kill(p->pid, SIGKILL);
    while (!p->exited) {
        pid_t r = waitpid(p->pid, &p->status, 0);

        if (r == p->pid || (r < 0 && errno != EINTR))
            p->exited = true;
    }
}

int proc_wait(struct proc *p, int timeout_ms)
{
    int64_t end = timeout_ms < 0 ? INT64_MAX : now_ms() + timeout_ms;

    while (!proc_poll(p)) {
        struct pollfd pfd = { sig_fd(), POLLIN, 0 };
        int64_t left = end - now_ms();

        if (sig_terminating())
            return 2;
        if (left <= 0)
            return 1;
        poll(&pfd, 1, left > 200 ? 200 : (int)left);
        sig_drain();
    }
    return 0;
}

/* reaps ended children other than keep; stops at keep (the caller reaps it) */
static void reap_others(pid_t keep)
{
    for (;;) {
        siginfo_t si;

        memset(&si, 0, sizeof(si));
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0 ||
            si.si_pid == keep)
            return;
        log_dbg("reaped adopted pid %d", (int)si.si_pid);
        waitpid(si.si_pid, NULL, 0);
    }
}

/* sends sig to every running child (from /proc's list); false if there is no list */
static bool signal_children(int sig)
{
    char path[64];
    FILE *f;
    int pid;

    snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
    f = fopen(path, "re");
    if (!f)
        return false;
    while (fscanf(f, "%d", &pid) == 1) {
        log_dbg("stopping adopted pid %d (signal %d)", pid, sig);
        kill(pid, sig);
    }
    fclose(f);
    return true;
}

void proc_adopt(bool on, int wait_ms)
{
    int64_t t0 = now_ms(), last = 0;

    if (on) {
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        return;
    }
    /*
     * What is left: adopted orphans, ended or still running. After wait_ms, every 100 ms each
     * running one gets SIGTERM (an orphan may fork before it ends: its child is ours next),
     * after another second SIGKILL; after a third we give up (init gets them when we exit).
     */
    for (;;) {
        pid_t r = waitpid(-1, NULL, WNOHANG);
        int64_t t = now_ms() - t0;

        if (r > 0 || (r < 0 && errno == EINTR))
            continue;
        if (r < 0)
            break;                      /* ECHILD: none left */
        if (t >= wait_ms + 2000)
            break;
        if (t >= wait_ms && t - last >= 100) {
            if (!signal_children(t >= wait_ms + 1000 ? SIGKILL : SIGTERM))
                break;
            last = t;
        }
        usleep(2000);
    }
    prctl(PR_SET_CHILD_SUBREAPER, 0);
}

int proc_wait_adopting(struct proc *p, int timeout_ms)
{
    int64_t end = timeout_ms < 0 ? INT64_MAX : now_ms() + timeout_ms;

    for (;;) {
        struct pollfd pfd = { sig_fd(), POLLIN, 0 };
        int64_t left = end - now_ms();

        reap_others(p->pid);
        if (proc_poll(p))
            return 0;
        if (sig_terminating())
            return 2;
        if (left <= 0)
            return 1;
        /* SIGCHLD (adopted children too) wakes us through the signal pipe */
        poll(&pfd, 1, left > 50 ? 50 : (int)left);
        sig_drain();
    }
}

const char *proc_status_str(const struct proc *p)
{
    static char buf[96];

    if (!p->exited)
        snprintf(buf, sizeof(buf), "still running");
    else if (WIFEXITED(p->status))
        snprintf(buf, sizeof(buf), "exit status %d", WEXITSTATUS(p->status));
    else if (WIFSIGNALED(p->status))
        snprintf(buf, sizeof(buf), "killed by signal %d (%s)", WTERMSIG(p->status),
                 strsignal(WTERMSIG(p->status)));
    else
        snprintf(buf, sizeof(buf), "status 0x%x", p->status);
    return buf;
}

void proc_log_argv(const char *what, char *const argv[])
{
    char buf[8192];
    size_t n = 0;

    if (!log_verbose)
        return;
    for (int i = 0; argv[i] && n < sizeof(buf) - 1; i++) {
        const char *a = argv[i];
        bool q = !*a || strpbrk(a, " \t\"'$\\;&|<>()*?") != NULL;

        n += (size_t)snprintf(buf + n, sizeof(buf) - n, q ? "%s'%s'" : "%s%s", i ? " " : "", a);
    }
    log_dbg("%s: %s", what, buf);
}
