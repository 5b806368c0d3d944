/* SPDX-License-Identifier: MIT */
/*
 * The one way vtboot halts on an error, in either half: says why, caps PCRs 17-19 if they may
 * hold the launch (common/pcr_cap.h), then powers the machine off (reset if that fails), so
 * the host sees a defined end and nothing sealed to the launch unseals after it.
 */
#ifndef COMMON_HALT_H
#define COMMON_HALT_H

__attribute__((noreturn)) void halt(const char *why);

#endif
