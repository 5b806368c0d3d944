/* SPDX-License-Identifier: MIT */
/*
 * The virtual SENTER, host side (protocol: include/abi/vsenter.h). QEMU attaches the guest's
 * second UART (0x2f8) to our socket. On a valid request we stop the guest (QMP stop), read the
 * MLE from guest memory (QMP pmemsave), run swtpm's locality-4 hash sequence through the TPM
 * control proxy (CMD_HASH_START, CMD_HASH_DATA per 4 KiB, CMD_HASH_END: PCR 17-22 reset,
 * PCR 17 extended with H(MLE) in every bank), resume the guest (QMP cont) and answer.
 */
#ifndef VTBOOT_QEMU_VSENTER_HOST_H
#define VTBOOT_QEMU_VSENTER_HOST_H

#include "ctrlproxy.h"
#include "qmp.h"
#include "vsenter.h"

#include <stdbool.h>
#include <stdint.h>

struct vsenter_host {
    int lfd, fd;
    struct vs_lines lines;
    bool busy;
    char *dumpfile;             /* pmemsave target */
    struct qmp *qmp;
    struct ctrlproxy proxy;
    bool have_tpm;
    uint64_t lowmem;
    unsigned launches;
};

/* sock: where QEMU's UART connects; tpm_lfd/swtpm_fd: the proxy's two sides (-1: no TPM). */
int vsenter_host_init(struct vsenter_host *v, const char *sock, const char *tmpdir,
                      struct qmp *qmp, int tpm_lfd, int swtpm_fd, uint64_t ram,
                      const char *machine);
void vsenter_host_close(struct vsenter_host *v);

#endif
