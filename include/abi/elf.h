/* SPDX-License-Identifier: MIT */
/*
 * ELF (System V ABI, gABI 4.1; the x86-64 psABI for ELFCLASS64): the file header and program
 * headers a multiboot loader reads to load a kernel image such as Xen's (an ELF32 i386 file
 * holding 64-bit code). Little-endian only.
 */
#ifndef ABI_ELF_H
#define ABI_ELF_H

#define ELF_MAG0 0x7f
#define ELF_MAG1 'E'
#define ELF_MAG2 'L'
#define ELF_MAG3 'F'

#define ELF_EI_CLASS 4
#define ELF_EI_DATA 5
#define ELF_EI_VERSION 6
#define ELF_EI_NIDENT 16

#define ELF_CLASS32 1
#define ELF_CLASS64 2
#define ELF_DATA2LSB 1
#define ELF_EV_CURRENT 1
#define ELF_ET_EXEC 2
#define ELF_EM_386 3
#define ELF_EM_X86_64 62

#define ELF_PT_NULL 0
#define ELF_PT_LOAD 1

#ifndef __ASSEMBLY__
#include <stddef.h>
#include <stdint.h>

struct elf32_ehdr {
    uint8_t e_ident[ELF_EI_NIDENT];
    uint16_t e_type;
    uint16_t e_machine;
    uint32_t e_version;
    uint32_t e_entry;
    uint32_t e_phoff;
    uint32_t e_shoff;
    uint32_t e_flags;
    uint16_t e_ehsize;
    uint16_t e_phentsize;
    uint16_t e_phnum;
    uint16_t e_shentsize;
    uint16_t e_shnum;
    uint16_t e_shstrndx;
} __attribute__((packed));

struct elf32_phdr {
    uint32_t p_type;
    uint32_t p_offset;
    uint32_t p_vaddr;
    uint32_t p_paddr;
    uint32_t p_filesz;
    uint32_t p_memsz;
    uint32_t p_flags;
    uint32_t p_align;
} __attribute__((packed));

struct elf64_ehdr {
    uint8_t e_ident[ELF_EI_NIDENT];
    uint16_t e_type;
    uint16_t e_machine;
    uint32_t e_version;
    uint64_t e_entry;
    uint64_t e_phoff;
    uint64_t e_shoff;
    uint32_t e_flags;
    uint16_t e_ehsize;
    uint16_t e_phentsize;
    uint16_t e_phnum;
    uint16_t e_shentsize;
    uint16_t e_shnum;
    uint16_t e_shstrndx;
} __attribute__((packed));

struct elf64_phdr {
    uint32_t p_type;
    uint32_t p_flags;
    uint64_t p_offset;
    uint64_t p_vaddr;
    uint64_t p_paddr;
    uint64_t p_filesz;
    uint64_t p_memsz;
    uint64_t p_align;
} __attribute__((packed));

_Static_assert(sizeof(struct elf32_ehdr) == 52, "elf32 header");
_Static_assert(offsetof(struct elf32_ehdr, e_entry) == 24, "elf32 e_entry");
_Static_assert(offsetof(struct elf32_ehdr, e_phoff) == 28, "elf32 e_phoff");
_Static_assert(offsetof(struct elf32_ehdr, e_phentsize) == 42, "elf32 e_phentsize");
_Static_assert(offsetof(struct elf32_ehdr, e_phnum) == 44, "elf32 e_phnum");
_Static_assert(sizeof(struct elf32_phdr) == 32, "elf32 program header");
_Static_assert(offsetof(struct elf32_phdr, p_paddr) == 12, "elf32 p_paddr");
_Static_assert(offsetof(struct elf32_phdr, p_memsz) == 20, "elf32 p_memsz");
_Static_assert(sizeof(struct elf64_ehdr) == 64, "elf64 header");
_Static_assert(offsetof(struct elf64_ehdr, e_entry) == 24, "elf64 e_entry");
_Static_assert(offsetof(struct elf64_ehdr, e_phoff) == 32, "elf64 e_phoff");
_Static_assert(offsetof(struct elf64_ehdr, e_phentsize) == 54, "elf64 e_phentsize");
_Static_assert(offsetof(struct elf64_ehdr, e_phnum) == 56, "elf64 e_phnum");
_Static_assert(sizeof(struct elf64_phdr) == 56, "elf64 program header");
_Static_assert(offsetof(struct elf64_phdr, p_paddr) == 24, "elf64 p_paddr");
_Static_assert(offsetof(struct elf64_phdr, p_memsz) == 40, "elf64 p_memsz");

#endif /* __ASSEMBLY__ */

#endif
