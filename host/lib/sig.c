/* SPDX-License-Identifier: MIT */
#include "sig.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int pipefd[2] = { -1, -1 };
static volatile sig_atomic_t term_sig;

static void handler(int sig)
{
    int e = errno;
    unsigned char c = (unsigned char)sig;

    if (sig != SIGCHLD && !term_sig)
        term_sig = sig;
    if (write(pipefd[1], &c, 1) < 0) {
        /* pipe full: a wakeup is already pending */
    }
    errno = e;
}

int sig_setup(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };
    struct sigaction sa;
    size_t i;

    if (pipefd[0] >= 0)
        return pipefd[0];
    if (pipe(pipefd) != 0)
        return -1;
    for (i = 0; i < 2; i++) {
        fd_set_nonblock(pipefd[i]);
        fd_set_cloexec(pipefd[i], true);
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return pipefd[0];
}

int sig_drain(void)
{
    unsigned char buf[64];

    while (read(pipefd[0], buf, sizeof(buf)) > 0)
        ;
    return term_sig;
}

int sig_terminating(void)
{
    return term_sig;
}

int sig_fd(void)
{
    return pipefd[0];
}
