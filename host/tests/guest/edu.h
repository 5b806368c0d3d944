/* SPDX-License-Identifier: MIT */
/*
 * QEMU's edu test device (hw/misc/edu.c) as the getsec guest's DMA engine: the device whose
 * copies the TXT tests aim at protected memory (getsec_pmr.c, getsec_acmode.c).
 */
#ifndef GUEST_EDU_H
#define GUEST_EDU_H

#include <stdint.h>

/* BAR0 registers; a DMA goes between RAM and edu's 4 KiB buffer at bus address EDU_BUF and
 * lands 100 ms (virtual) after its command */
#define EDU_VENDOR_DEVICE 0x11e81234u
#define EDU_IDENT   0x00
#define EDU_DMA_SRC 0x80
#define EDU_DMA_DST 0x88
#define EDU_DMA_CNT 0x90
#define EDU_DMA_CMD 0x98
#define EDU_BUF     0x40000u
#define EDU_RUN     1u
#define EDU_TO_RAM  2u

/* edu's device/function on PCI bus 0 (devfn), 0 when absent (devfn 0 is the host bridge) */
uint32_t edu_devfn(void);
/* edu's BAR0 with memory decoding and bus mastering turned on, 0 when absent */
uint32_t edu_find(void);
/* starts a copy of len bytes; cmd EDU_TO_RAM: from edu's buffer to RAM, 0: the other way */
void edu_dma_start(uint32_t bar, uint32_t src, uint32_t dst, uint32_t len, uint32_t cmd);
int edu_dma_busy(uint32_t bar);
/* edu_dma_start, then waits for the copy: 1 when it completed, 0 when it did not in time */
int edu_dma_copy(uint32_t bar, uint32_t src, uint32_t dst, uint32_t len, uint32_t cmd);

#endif
