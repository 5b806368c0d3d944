/* SPDX-License-Identifier: MIT */
/*
 * The virtual SENTER channel: how vtboot (playing the MLE) asks the host (playing CPU and SINIT)
 * for a dynamic launch. The channel is a 16550 UART at I/O port VSENTER_UART_PORT that the
 * launcher attaches to its own socket (`-device isa-serial,iobase=0x2f8,irq=3`). Lines are ASCII,
 * '\n'-terminated, at most VSENTER_LINE_MAX bytes.
 *
 *   guest: "VSENTER 1 mle_base=0x%08x mle_size=0x%08x\n"
 *   host:  pauses the guest, reads [mle_base, mle_base + mle_size) from guest memory, performs
 *          swtpm's locality-4 hash sequence (CMD_HASH_START/DATA/END: PCR 17-22 reset to 0,
 *          PCR 17 extended with H(MLE) in every active bank), resumes the guest, then answers
 *          "VSENTER-OK 1 sha256=<64 hex>\n" or "VSENTER-ERR 1 <reason>\n".
 *
 * The guest confirms a launch by reading PCR 17 itself; the answer is only a hint.
 */
#ifndef ABI_VSENTER_H
#define ABI_VSENTER_H

#define VSENTER_UART_PORT 0x2f8u
#define VSENTER_PROTOCOL 1
#define VSENTER_LINE_MAX 160u
#define VSENTER_MLE_MAX (16u << 20)     /* the host refuses larger MLEs */

#define VSENTER_REQUEST_FMT "VSENTER %d mle_base=0x%08x mle_size=0x%08x\n"
#define VSENTER_OK_PREFIX "VSENTER-OK "
#define VSENTER_ERR_PREFIX "VSENTER-ERR "

#endif
