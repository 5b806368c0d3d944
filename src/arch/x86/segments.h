/* SPDX-License-Identifier: MIT */
/* vtboot's GDT selectors. 0x10/0x18 are also what the Linux 32-bit boot protocol requires
 * (__BOOT_CS/__BOOT_DS: flat 4 GiB code and data). */
#ifndef ARCH_X86_SEGMENTS_H
#define ARCH_X86_SEGMENTS_H

#define SEL_CODE32 0x10
#define SEL_DATA32 0x18
#define SEL_CODE16 0x20
#define SEL_DATA16 0x28

#define BSP_STACK_SIZE 0x4000
#define CPU_STACK_SIZE 0x1000
#define MAX_CPUS 64

#endif
