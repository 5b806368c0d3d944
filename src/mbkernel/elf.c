/* SPDX-License-Identifier: MIT */
#include <stdbool.h>

#include "abi/elf.h"
#include "lib/format.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "mbkernel/elf.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

#define FOUR_GIB 0x100000000ull

/* one program header, whatever the class, widened */
struct phdr {
    uint32_t type;
    uint64_t offset, vaddr, paddr, filesz, memsz;
};

static void read_phdr(const uint8_t *p, unsigned cls, struct phdr *ph)
{
    if (cls == ELF_CLASS32) {
        struct elf32_phdr h;
        memcpy(&h, p, sizeof(h));
        *ph = (struct phdr){ h.p_type, h.p_offset, h.p_vaddr, h.p_paddr, h.p_filesz, h.p_memsz };
    } else {
        struct elf64_phdr h;
        memcpy(&h, p, sizeof(h));
        *ph = (struct phdr){ h.p_type, h.p_offset, h.p_vaddr, h.p_paddr, h.p_filesz, h.p_memsz };
    }
}

int elf_parse(const uint8_t *img, uint32_t size, struct elf_image *e, char *err, unsigned errlen)
{
    uint64_t phoff;
    unsigned phentsize, phnum, need;
    uint16_t type, machine;
    uint32_t version;

    memset(e, 0, sizeof(*e));
    if (size < ELF_EI_NIDENT || img[0] != ELF_MAG0 || img[1] != ELF_MAG1 || img[2] != ELF_MAG2 ||
        img[3] != ELF_MAG3)
        FAIL("no ELF magic");
    if (img[ELF_EI_CLASS] != ELF_CLASS32 && img[ELF_EI_CLASS] != ELF_CLASS64)
        FAIL("ELF class %u is neither ELF32 (1) nor ELF64 (2)", img[ELF_EI_CLASS]);
    if (img[ELF_EI_DATA] != ELF_DATA2LSB)
        FAIL("ELF data encoding %u is not little-endian (1)", img[ELF_EI_DATA]);
    if (img[ELF_EI_VERSION] != ELF_EV_CURRENT)
        FAIL("ELF identification version %u is not 1", img[ELF_EI_VERSION]);
    unsigned cls = img[ELF_EI_CLASS];
    if (cls == ELF_CLASS32) {
        struct elf32_ehdr h;
        if (size < sizeof(h))
            FAIL("ELF32 header truncated: the image is %u bytes, the header %u", size,
                 (unsigned)sizeof(h));
        memcpy(&h, img, sizeof(h));
        type = h.e_type, machine = h.e_machine, version = h.e_version;
        e->e_entry = h.e_entry, phoff = h.e_phoff;
        phentsize = h.e_phentsize, phnum = h.e_phnum;
        need = sizeof(struct elf32_phdr);
        e->elf_class = 32;
    } else {
        struct elf64_ehdr h;
        if (size < sizeof(h))
            FAIL("ELF64 header truncated: the image is %u bytes, the header %u", size,
                 (unsigned)sizeof(h));
        memcpy(&h, img, sizeof(h));
        type = h.e_type, machine = h.e_machine, version = h.e_version;
        e->e_entry = h.e_entry, phoff = h.e_phoff;
        phentsize = h.e_phentsize, phnum = h.e_phnum;
        need = sizeof(struct elf64_phdr);
        e->elf_class = 64;
    }
    if (type != ELF_ET_EXEC)
        FAIL("ELF type %u is not an executable (2)", type);
    if (machine != ELF_EM_386 && machine != ELF_EM_X86_64)
        FAIL("ELF machine %u is neither i386 (3) nor x86-64 (62)", machine);
    if (version != ELF_EV_CURRENT)
        FAIL("ELF version %u is not 1", version);
    e->machine = machine;
    if (phnum == 0)
        FAIL("ELF image has no program headers");
    if (phnum > ELF_MAX_PHNUM)
        FAIL("ELF image has %u program headers, at most %u are accepted", phnum, ELF_MAX_PHNUM);
    if (phentsize < need)
        FAIL("ELF program header size %u is smaller than %u", phentsize, need);
    if (!range_fits(phoff, (uint64_t)phnum * phentsize, size))
        FAIL("ELF program headers (%u of %u bytes at offset 0x%llx) lie beyond the image's "
             "%u bytes (truncated ELF?)", phnum, phentsize, (unsigned long long)phoff, size);

    uint64_t lowest = FOUR_GIB, highest = 0;
    bool entry_found = false;
    for (unsigned i = 0; i < phnum; i++) {
        struct phdr ph;
        read_phdr(img + phoff + (uint64_t)i * phentsize, cls, &ph);
        if (ph.type != ELF_PT_LOAD || ph.memsz == 0)
            continue;
        if (ph.filesz > ph.memsz)
            FAIL("ELF segment %u: file size 0x%llx exceeds its memory size 0x%llx", i,
                 (unsigned long long)ph.filesz, (unsigned long long)ph.memsz);
        if (!range_fits(ph.offset, ph.filesz, size))
            FAIL("ELF segment %u: file bytes 0x%llx+0x%llx lie beyond the image's %u bytes "
                 "(truncated ELF?)", i, (unsigned long long)ph.offset,
                 (unsigned long long)ph.filesz, size);
        if (!range_fits(ph.paddr, ph.memsz, FOUR_GIB))
            FAIL("ELF segment %u: 0x%llx+0x%llx reaches beyond 4 GiB", i,
                 (unsigned long long)ph.paddr, (unsigned long long)ph.memsz);
        if (e->nr_segments == ELF_MAX_SEGMENTS)
            FAIL("ELF image has more than %u loadable segments", ELF_MAX_SEGMENTS);
        for (unsigned k = 0; k < e->nr_segments; k++) {
            const struct elf_segment *o = &e->seg[k];
            if (ranges_overlap(ph.paddr, ph.memsz, o->paddr, o->memsz))
                FAIL("ELF segments %u (0x%x+0x%x) and %u (0x%llx+0x%llx) overlap", o->index,
                     o->paddr, o->memsz, i, (unsigned long long)ph.paddr,
                     (unsigned long long)ph.memsz);
        }
        struct elf_segment *s = &e->seg[e->nr_segments++];
        *s = (struct elf_segment){ i, (uint32_t)ph.paddr, (uint32_t)ph.memsz, (uint32_t)ph.offset,
                                   (uint32_t)ph.filesz };
        if (s->paddr < lowest)
            lowest = s->paddr;
        if ((uint64_t)s->paddr + s->memsz > highest)
            highest = (uint64_t)s->paddr + s->memsz;
        /* the entry point is a virtual address of this segment; a loader without paging jumps
         * to its physical counterpart */
        if (!entry_found && e->e_entry >= ph.vaddr && e->e_entry - ph.vaddr < ph.filesz) {
            e->entry = (uint32_t)(e->e_entry - ph.vaddr + ph.paddr);
            entry_found = true;
        }
    }
    if (e->nr_segments == 0)
        FAIL("ELF image has no loadable segment");
    if (!entry_found)
        FAIL("ELF entry point 0x%llx is not in the file bytes of a loadable segment",
             (unsigned long long)e->e_entry);
    e->lowest = (uint32_t)lowest;
    e->highest = highest;
    return 0;
}
