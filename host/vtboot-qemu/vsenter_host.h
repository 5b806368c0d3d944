/* SPDX-License-Identifier: MIT */
/*
 * The virtual SENTER, host side (protocol 4: include/abi/vsenter.h). QEMU attaches the guest's
 * second UART (0x2f8) to our socket. On a request we pause every CPU (QMP stop), check the
 * CPUs' state (HMP info registers -a), the platform's event sources (every local APIC, the
 * I/O APIC, the HPET, every PCI function: platstate.h), the MLE header and the measured range
 * (QMP pmemsave), run swtpm's locality-4 hash sequence through the TPM control proxy (PCR
 * 17-22 reset, PCR 17 extended with H(MLE) in every bank), put the launching CPU at the MLE's
 * entry point through QEMU's gdbstub (gdbmux.h), check the result and the event sources again
 * and resume the CPUs. A refusal before the hash is answered on the UART; a failure after it
 * ends the run (QEMU quits, the launcher exits 4).
 * Answers wait in a bounded queue until the socket takes them (the event loop never waits for
 * the guest); while the queue has no room for one more, the guest's bytes are not parsed
 * (back-pressure), so a guest that never reads its answers stalls only its own UART.
 */
#ifndef VTBOOT_QEMU_VSENTER_HOST_H
#define VTBOOT_QEMU_VSENTER_HOST_H

#include "ctrlproxy.h"
#include "gdbmux.h"
#include "listener.h"
#include "outcome.h"
#include "qmp.h"
#include "vsenter.h"

#include <stdbool.h>
#include <stdint.h>

/* the longest answer, and how many fit in the queue (one is all a guest that follows the
 * protocol ever has outstanding) */
#define VS_REPLY_MAX (VSENTER_LINE_MAX + 64)
#define VS_OUT_MAX (4 * VS_REPLY_MAX)

struct vsenter_host {
    int lfd, fd;
    struct listener listener;   /* on lfd */
    struct vs_lines lines;
    char in[4096];              /* read from the guest, not parsed yet */
    size_t in_len, in_off;
    char out[VS_OUT_MAX];       /* answers the socket has not taken yet */
    size_t out_len;
    bool eof;                   /* the guest's side is closed */
    bool busy;
    bool dead;                  /* a launch failed after the measurement: nothing more */
    char *dumpfile;             /* pmemsave target */
    char *tmpdir;
    struct qmp *qmp;
    struct gdbmux *gdb;
    struct fate *fate;
    struct ctrlproxy proxy;
    bool have_tpm;
    uint64_t lowmem;
    unsigned launches;
    unsigned requests;          /* valid requests so far (names the -v CPU state files) */
    int ncpus;                  /* QEMU's CPUs (query-cpus-fast), per request */
    unsigned cfg_reads;         /* PCI configuration reads of the last platform check */
};

/* sock: where QEMU's UART connects; tpm_lfd/swtpm_fd: the proxy's two sides (-1: no TPM);
 * gdb: the gdbstub multiplexer; fate: where a failure after the measurement is reported. */
int vsenter_host_init(struct vsenter_host *v, const char *sock, const char *tmpdir,
                      struct qmp *qmp, int tpm_lfd, int swtpm_fd, uint64_t ram,
                      const char *machine, struct gdbmux *gdb, struct fate *fate);
/* No more requests (QEMU is being stopped); the TPM control proxy keeps working. */
void vsenter_host_quiet(struct vsenter_host *v);
void vsenter_host_close(struct vsenter_host *v);

#endif
