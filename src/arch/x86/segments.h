/* SPDX-License-Identifier: MIT */
/* vtboot's GDT selectors. 0x10/0x18 are also what the Linux 32-bit boot protocol requires
 * (__BOOT_CS/__BOOT_DS: flat 4 GiB code and data). */
#ifndef ARCH_X86_SEGMENTS_H
#define ARCH_X86_SEGMENTS_H

#define SEL_CODE32 0x10
#define SEL_DATA32 0x18
#define SEL_CODE16 0x20
#define SEL_DATA16 0x28

#define GDT_LIMIT (6 * 8 - 1)         /* head.S: null, null, code32, data32, code16, data16 */

/*
 * The low page: vtboot's code that must run below 1 MiB (real mode), copied from the image
 * (arch/x86/lowmem.S) into this e820-reserved page. It holds the S3 waking vector the
 * firmware jumps to, and the way back to real mode for the kernel's resume vector.
 */
#define LOWMEM_BASE 0x68000
#define LOWMEM_SIZE 0x1000
#define LOW_SEL_CODE16 0x08              /* the low page's own GDT: base LOWMEM_BASE */
#define LOW_SEL_DATA16 0x10              /* base 0 */

/* The AP start page (mle/ap_start.S), e820-reserved too: a SIPI enters a page's first
 * byte in real mode, so the MLE copies its AP code here from its measured image. */
#define AP_START_BASE 0x69000
#define AP_START_SIZE 0x1000

#define BSP_STACK_SIZE 0x4000
#define CPU_STACK_SIZE 0x1000
#define MAX_CPUS 64

#endif
