/* SPDX-License-Identifier: MIT */
/*
 * Child processes the tool owns: spawned with fork/exec, their death tied to ours
 * (PR_SET_PDEATHSIG), and always reaped. Every child the tool starts must end in proc_stop().
 */
#ifndef HOST_PROC_H
#define HOST_PROC_H

#include <stdbool.h>
#include <sys/types.h>

struct proc {
    const char *name;   /* for messages */
    pid_t pid;          /* 0: not started */
    bool exited;        /* reaped; status valid */
    int status;         /* as from waitpid() */
};

/* An fd to pass: the child gets `from` as descriptor number `to`. */
struct fdmap {
    int from, to;
};

struct spawn_opts {
    const char *cwd;            /* NULL: inherit */
    int stdin_fd;               /* -1: /dev/null */
    int stdout_fd;              /* -1: inherit */
    int stderr_fd;              /* -1: inherit */
    const struct fdmap *fds;    /* extra descriptors (all others are closed) */
    int nfds;
};

/* Starts argv[0] (PATH search). Returns 0, or -1 with a message logged if exec failed. */
int proc_spawn(struct proc *p, const char *name, char *const argv[], const struct spawn_opts *o);
/* Non-blocking reap. Returns true if the process has exited (now or before). */
bool proc_poll(struct proc *p);
/* SIGTERM, up to grace_ms for it to exit, then SIGKILL; always reaps. No-op if not running. */
void proc_stop(struct proc *p, int grace_ms);
/* Waits (up to timeout_ms, <0: forever) for exit while polling the signal pipe; returns
 * 0 when it exited, 1 on timeout, 2 on a terminating signal. The process is left running
 * on 1 and 2. */
int proc_wait(struct proc *p, int timeout_ms);
/*
 * Orphans. A tool that daemonizes its own helper (swtpm_setup starts swtpm through a double
 * fork) leaves an orphan that only init reaps, and some inits reap late: swtpm_setup then waits
 * for its swtpm's exit in vain until its own timeout. proc_adopt(true) makes us the
 * subreaper of our descendants (PR_SET_CHILD_SUBREAPER), proc_wait_adopting() reaps every
 * adopted child as soon as it ends, proc_adopt(false) reaps what is left (waiting up to
 * wait_ms, then SIGTERM, then SIGKILL) and ends the adoption. Only while p is our one child.
 */
void proc_adopt(bool on, int wait_ms);
int proc_wait_adopting(struct proc *p, int timeout_ms);
/* "exit status 3", "killed by signal 9 (Killed)" */
const char *proc_status_str(const struct proc *p);
/* Logs a command line at -v. */
void proc_log_argv(const char *what, char *const argv[]);

#endif
