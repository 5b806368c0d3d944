/* SPDX-License-Identifier: MIT */
/* E820 / multiboot memory-map region types (ACPI address range types, Linux e820/types.h). */
#ifndef ABI_E820_H
#define ABI_E820_H

#define E820_TYPE_RAM 1u
#define E820_TYPE_RESERVED 2u
#define E820_TYPE_ACPI 3u
#define E820_TYPE_NVS 4u
#define E820_TYPE_UNUSABLE 5u
#define E820_TYPE_PMEM 7u

#endif
