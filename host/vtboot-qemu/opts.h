/* SPDX-License-Identifier: MIT */
/* vtboot-qemu's command line. */
#ifndef VTBOOT_QEMU_OPTS_H
#define VTBOOT_QEMU_OPTS_H

#include "attestrun.h"
#include "tpmfault.h"

#include <stdbool.h>

/* Exit statuses: how the guest ended (documented in --help and host/README.md). */
enum {
    EXIT_POWEROFF = 0,
    EXIT_SETUP = 1,
    EXIT_RESET = 2,
    EXIT_TIMEOUT = 3,
    EXIT_CRASH = 4,
    EXIT_ATTEST = 5,            /* --attest: powered off, but the attestation failed */
    /* 128 + signal number when we were interrupted (SIGINT: 130, SIGTERM: 143) */
};

struct opts {
    const char *kernel, *initrd, *cmdline, *vtboot, *vtboot_cmdline;
    bool kernel_set, initrd_set, cmdline_set, vtboot_set, vtboot_cmdline_set;
    bool grub, grub_mb1;
    const char *disk;           /* --disk: boot this disk image's own loader (raw or qcow2) */
    char *data_disk;            /* --data-disk: a raw disk for the guest (absolute path) */
    const char *xen;            /* --xen: Xen as module 0, the kernel and initrd as dom0's */
    const char *xen_cmdline;    /* --xen-cmdline */
    const char *cpu;            /* --cpu: QEMU's CPU model */
    const char *grub_prelude;   /* --grub-prelude: grub.cfg lines before the menu entry */
    const char *make_iso;
    int smp, memory_mb;
    const char *machine;
    const char *tpm_state;
    const char *policy;         /* --policy: file for NV index 0x01200001 */
    bool provision_only;
    const char *pcr_banks;      /* swtpm_setup --pcr-banks value ("-": all of swtpm's banks) */
    bool pcr_banks_set;
    bool no_kernel;             /* --kernel "": no modules at all */
    bool no_tpm, no_drtm;
    /* --txt: the emulated TXT platform (qemu/, docs/txt-platform.md) running Debian's tboot */
    bool txt;
    const char *tboot, *tboot_cmdline;  /* --tboot, --tboot-cmdline (vtboot and its cmdline) */
    const char *sinit, *sinit_key;      /* --sinit (the last module), --sinit-key (PEM) */
    const char *lcp_data;               /* --lcp-data: a module after the SINIT */
    const char *qemu_bin;       /* --qemu, $VTBOOT_QEMU_TXT or out/bin/qemu-system-x86_64-txt */
    const char *bios;           /* --bios, $VTBOOT_BIOS_TXT or out/bios-txt.bin */
    bool reboot;                /* --reboot: a guest reset restarts the machine, not the run's end */
    double timeout_s;           /* 0: none */
    const char *serial_log;
    const char *qmp_path;       /* --qmp: an extra QMP socket for the caller */
    const char *gdb_path;       /* --gdb: QEMU's gdbstub on a unix socket */
    struct tpmfault_set tpm_faults;     /* --tpm-fault SPEC (repeatable) */
    struct attest_opts attest;  /* --attest, --attest-*, --expect-* (attestrun.h) */
    bool keep_temp;
    bool print_modules, print_cmdline;
    char **extra;               /* after "--" */
    int nextra;
    char *outdir;               /* <dir of this binary>/.. */
};

/* Parses argv; returns -1 (message printed) on a bad option, 1 after --help, 0 otherwise. */
int opts_parse(struct opts *o, int argc, char **argv);

#endif
