/* SPDX-License-Identifier: MIT */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mle.h"

#define MLE_CMDLINE_MAX 1024u          /* BOOT_CMDLINE_MAX in the pre-kernel */

static void *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    void *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
            fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *len = n > 0 ? (size_t)n : 0;
    }
    fclose(f);
    return buf;
}

static int in_file(size_t off, size_t len, size_t size)
{
    return off <= size && len <= size - off;
}

/* Symbol value from .symtab, or -1. */
static int64_t symbol(const uint8_t *f, size_t size, const char *name)
{
    const Elf32_Ehdr *eh = (const void *)f;
    if (!in_file(eh->e_shoff, (size_t)eh->e_shnum * sizeof(Elf32_Shdr), size))
        return -1;
    const Elf32_Shdr *sh = (const void *)(f + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf32_Shdr *str = &sh[sh[i].sh_link];
        if (!in_file(sh[i].sh_offset, sh[i].sh_size, size) ||
            !in_file(str->sh_offset, str->sh_size, size))
            return -1;
        const Elf32_Sym *sym = (const void *)(f + sh[i].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++) {
            if (sym[k].st_name >= str->sh_size)
                continue;
            const char *n = (const char *)f + str->sh_offset + sym[k].st_name;
            if (strnlen(n, str->sh_size - sym[k].st_name) < str->sh_size - sym[k].st_name &&
                strcmp(n, name) == 0)
                return sym[k].st_value;
        }
    }
    return -1;
}

int mle_load(const char *elf_path, const char *vtboot_cmdline, struct mle *out)
{
    size_t size = 0;
    uint8_t *f = read_file(elf_path, &size);
    memset(out, 0, sizeof(*out));
    if (!f) {
        fprintf(stderr, "vtboot-pcr: cannot read %s\n", elf_path);
        return -1;
    }
    const Elf32_Ehdr *eh = (const void *)f;
    int rc = -1;
    if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
        eh->e_ident[EI_CLASS] != ELFCLASS32 || eh->e_machine != EM_386 ||
        !in_file(eh->e_phoff, (size_t)eh->e_phnum * sizeof(Elf32_Phdr), size)) {
        fprintf(stderr, "vtboot-pcr: %s is not vtboot's ELF32 i386 image\n", elf_path);
        goto out;
    }
    int64_t start = symbol(f, size, "_mle_start"), end = symbol(f, size, "_mle_end");
    int64_t cmd = symbol(f, size, "mle_cmdline");
    if (start < 0 || end <= start || cmd < start || cmd + MLE_CMDLINE_MAX > end) {
        fprintf(stderr, "vtboot-pcr: %s has no _mle_start/_mle_end/mle_cmdline symbols\n",
                elf_path);
        goto out;
    }
    if (strlen(vtboot_cmdline) >= MLE_CMDLINE_MAX) {
        fprintf(stderr, "vtboot-pcr: vtboot command line longer than %u bytes\n",
                MLE_CMDLINE_MAX - 1);
        goto out;
    }
    out->base = (uint32_t)start;
    out->size = (uint32_t)(end - start);
    out->bytes = calloc(1, out->size);
    if (!out->bytes)
        goto out;
    /* memory as the loader leaves it: file bytes of each segment, zeros for the rest */
    const Elf32_Phdr *ph = (const void *)(f + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !in_file(ph[i].p_offset, ph[i].p_filesz, size))
            continue;
        for (uint32_t b = 0; b < ph[i].p_filesz; b++) {
            uint64_t a = (uint64_t)ph[i].p_paddr + b;
            if (a >= out->base && a < (uint64_t)out->base + out->size)
                out->bytes[a - out->base] = f[ph[i].p_offset + b];
        }
    }
    memcpy(out->bytes + (cmd - start), vtboot_cmdline, strlen(vtboot_cmdline) + 1);
    rc = 0;
out:
    free(f);
    if (rc)
        mle_free(out);
    return rc;
}

void mle_free(struct mle *m)
{
    free(m->bytes);
    m->bytes = NULL;
}
