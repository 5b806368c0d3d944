/* SPDX-License-Identifier: MIT */
/*
 * Signals as events: SIGINT, SIGTERM, SIGHUP and SIGCHLD are turned into bytes on a self-pipe
 * that the event loop polls, so that no work is done in a signal handler. SIGPIPE is ignored
 * (children get it back to default before exec, see proc.c).
 */
#ifndef HOST_SIG_H
#define HOST_SIG_H

#include <stdbool.h>

/* Installs the handlers; returns the pipe's read end (non-blocking) or -1. */
int sig_setup(void);
/* Reads the pipe. Returns the first terminating signal seen so far (0 if none). */
int sig_drain(void);
/* Terminating signal recorded so far (SIGINT/SIGTERM/SIGHUP), 0 if none. */
int sig_terminating(void);
/* The read end (for polling). */
int sig_fd(void);

#endif
