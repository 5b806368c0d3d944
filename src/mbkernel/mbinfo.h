/* SPDX-License-Identifier: MIT */
/*
 * The multiboot information vtboot hands a multiboot kernel (Xen), built afresh in a buffer
 * that will lie at physical address `phys`: multiboot1 (an mb1_info with the memory sizes,
 * the command line, the modules with their strings, the memory map and the loader's name) or
 * multiboot2 (the same as tags, plus the ACPI RSDP copy and the image's load base address).
 * tboot edits the loader's structure in place instead (drops module 0, points the command line
 * at module 0's string plus " tboot=", swaps in its memory map, removes ELF section tags);
 * the kernel sees the same facts. Everything points inside the buffer.
 */
#ifndef MBKERNEL_MBINFO_H
#define MBKERNEL_MBINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/bootinfo.h"
#include "mem/e820.h"

struct mbi_module {
    uint32_t start;
    uint32_t end;                    /* exclusive */
    const char *string;
};

struct mbi_input {
    const char *cmdline;
    const char *loader_name;         /* "" or NULL: none */
    bool have_meminfo;               /* the loader's mem_lower/mem_upper; else from the map */
    uint32_t mem_lower_kb, mem_upper_kb;
    const struct e820_map *map;
    unsigned nr_modules;
    const struct mbi_module *modules;
    const uint8_t *rsdp;             /* an RSDP copy (20 or 36 bytes), or NULL */
    unsigned rsdp_len;
    uint32_t load_base;              /* lowest physical address of the loaded image */
};

/*
 * Builds the information for `proto` into buf (cap bytes, to lie at phys; 8-aligned). For
 * multiboot2, required_tags (bit n: information tag type n) must all be provided. Returns 0
 * with the size used, or -1 with a reason in err.
 */
int mbi_build(enum boot_protocol proto, const struct mbi_input *in, uint32_t required_tags,
              void *buf, uint32_t cap, uint32_t phys, uint32_t *size, char *err, unsigned errlen);

/* mem_lower/mem_upper (KiB) as multiboot defines them, from a sanitised map: RAM from 0 up to
 * at most 640 KiB, and RAM from 1 MiB up to the first hole. */
void mbi_meminfo(const struct e820_map *map, uint32_t *lower_kb, uint32_t *upper_kb);

#endif
