/* SPDX-License-Identifier: MIT */
/* The QEMU command line. */
#ifndef VTBOOT_QEMU_QEMU_H
#define VTBOOT_QEMU_QEMU_H

#include "strv.h"

#include <stdbool.h>

struct qemu_cfg {
    const char *binary;         /* NULL: qemu-system-x86_64 from $PATH */
    const char *machine;
    bool txt;                   /* the TXT chipset: -machine ...,txt=on (q35, patch 0004) */
    const char *bios;           /* -bios (NULL: QEMU's default firmware) */
    const char *sinit_key_hash; /* its PUBLIC.KEY, 64 hex digits (NULL: the device's default) */
    const char *cpu;            /* -cpu */
    int smp, memory_mb;
    bool reboot;                /* guest resets reset the machine (else they end QEMU) */
    const char *com1_pipe, *qmp_sock;
    const char *tpm_sock;       /* NULL: no TPM */
    const char *vsenter_sock;   /* NULL: no VSENTER UART */
    /* listening sockets QEMU serves, as descriptor numbers in QEMU (-1: none) */
    int user_qmp_fd;            /* --qmp */
    int gdb_fd;                 /* QEMU's gdbstub: only the launcher connects (gdbmux.h) */
    /* multiboot1 through QEMU (paths relative to QEMU's cwd) ... */
    const char *kernel, *append, *initrd;
    /* ... or a boot ISO */
    const char *iso;
    /* ... or a disk and its own loader (--disk; format "raw" or "qcow2") */
    const char *disk, *disk_format;
    const char *data_disk;      /* --data-disk: one more virtio disk, raw (NULL: none) */
    /* --attest: the launcher's page for the guest (host/lib/hostpage.h, a HOSTPAGE_SIZE file),
     * as the memory of an ivshmem-plain PCI device: outside anything measured; NULL: none */
    const char *host_page;
    char **extra;
    int nextra;
};

void qemu_argv(struct strv *a, const struct qemu_cfg *c);

#endif
