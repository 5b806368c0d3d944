/* SPDX-License-Identifier: MIT */
/*
 * A kernel's ELF image as a multiboot loader loads it: every PT_LOAD segment copied from the
 * file to its physical address (p_paddr), the rest of its memory size zeroed, and the entry
 * point. Everything is checked against the file's size and the 32-bit physical address space
 * before anything is copied; nothing here touches memory other than the image.
 */
#ifndef MBKERNEL_ELF_H
#define MBKERNEL_ELF_H

#include <stdint.h>

#define ELF_MAX_SEGMENTS 16u
#define ELF_MAX_PHNUM 256u

struct elf_segment {
    unsigned index;                  /* program header number, for messages */
    uint32_t paddr;                  /* [paddr, paddr + memsz) below 4 GiB */
    uint32_t memsz;
    uint32_t offset;                 /* file bytes [offset, offset + filesz) in the image */
    uint32_t filesz;                 /* <= memsz; the rest is zeroed */
};

struct elf_image {
    unsigned elf_class;              /* 32 or 64 */
    uint16_t machine;                /* ELF_EM_386 or ELF_EM_X86_64 */
    uint64_t e_entry;                /* as in the header */
    uint32_t entry;                  /* physical: e_entry translated through its segment */
    unsigned nr_segments;            /* PT_LOAD segments with memsz > 0, in file order */
    struct elf_segment seg[ELF_MAX_SEGMENTS];
    uint32_t lowest;                 /* lowest paddr of a segment (the load base) */
    uint64_t highest;                /* end of the highest segment */
};

/*
 * Validates the ELF file (size bytes at img): identification (little-endian ELF32 or ELF64,
 * version 1), an executable for i386 or x86-64, program headers inside the file, every
 * PT_LOAD segment's file bytes inside the file and its memory below 4 GiB, segments not
 * overlapping each other, and the entry point inside a segment's file bytes (the code a jump
 * reaches must have been loaded, not zero-filled). Fills *e; -1 with a reason in err.
 */
int elf_parse(const uint8_t *img, uint32_t size, struct elf_image *e, char *err, unsigned errlen);

#endif
