/* SPDX-License-Identifier: MIT */
/*
 * vtboot's command line, in tboot's syntax: space-separated name=value tokens; a token without
 * '=' (QEMU puts the image path first) is ignored, and a name may be abbreviated to a prefix of
 * the option name, as tboot's cmdline_parse allows.
 */
#ifndef BOOT_OPTIONS_H
#define BOOT_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

enum log_level {
    LOG_ERR = 1u << 0,
    LOG_WARN = 1u << 1,
    LOG_INFO = 1u << 2,
    LOG_DETAIL = 1u << 3,
    LOG_ALL = 0xfu,
};

struct vtboot_options {
    bool log_serial;
    bool log_memory;
    unsigned loglvl;                 /* mask of enum log_level */
    uint32_t serial_baud;
    uint32_t serial_clock_hz;
    uint16_t serial_port;
    uint8_t serial_lcr;              /* 16550 line control: data bits, parity, stop bits */
    uint16_t extpol_alg;             /* extpol=<bank>: only that PCR bank; 0: every active bank */
    bool pcr_map_legacy;             /* pcr_map=legacy: kernel in PCR 18 (tboot's TPM 1.2 map) */
    unsigned test_shared;            /* test_shared=: enum malform, test-only hand-over damage */
};

#define OPTIONS_DIAG_MAX 4u

struct options_diag {
    unsigned n;
    char msg[OPTIONS_DIAG_MAX][96];  /* warnings about values that were ignored */
};

void options_defaults(struct vtboot_options *o);

/* Applies every recognised token of cmdline on top of *o; bad values keep the default and
 * are reported in diag. */
void options_parse(struct vtboot_options *o, const char *cmdline, struct options_diag *diag);

#endif
