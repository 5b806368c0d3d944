/* SPDX-License-Identifier: MIT */
#include <elf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mle.h"
#include "log.h"
#include "mlehdr.h"

/* The file, and the span its loadable segments cover: vtboot's are under 1 MiB, Debian's tboot
 * (the MLE of a TXT launch) spans 35 MiB, most of it .data and .bss outside its MLE. */
#define IMAGE_MAX (64u << 20)

/* A message on stderr with the tool's name in front (vtboot-pcr, vtboot-attest). */
static void __attribute__((format(printf, 1, 2))) mle_err(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", log_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* The file's bytes, through gzip if it is gzip'd (tboot's lcp2_mlehash reads vtboot.gz too). */
static uint8_t *read_file(const char *path, size_t *len)
{
    gzFile f = gzopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    int got = 0;

    if (!f)
        return NULL;
    do {
        if (n == cap) {
            /* small first: most files given here are vtboot (under 1 MiB) or not ELF at all */
            size_t grown = cap ? cap * 2 : 64u << 10;
            uint8_t *more = cap < IMAGE_MAX ? realloc(buf, grown) : NULL;
            if (!more) {
                free(buf);
                gzclose(f);
                return NULL;
            }
            buf = more;
            cap = grown;
        }
        got = gzread(f, buf + n, (unsigned)(cap - n));
        if (got > 0)
            n += (size_t)got;
    } while (got > 0);
    gzclose(f);
    if (got < 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static bool in_file(size_t off, size_t len, size_t size)
{
    return off <= size && len <= size - off;
}

/* The ELF's loadable segments laid out from the lowest address, as a loader leaves them in
 * memory; NOBITS and gaps are zeros. */
struct image {
    uint8_t *file;
    size_t file_size;
    const uint8_t *ph;                   /* the program headers, as in the file: unaligned */
    unsigned nph;
    uint32_t base;
    uint8_t *bytes;
    size_t size;
    struct mle_range range;              /* from the MLE header */
};

/* Program header i, copied out: e_phoff need not be aligned. */
static Elf32_Phdr image_phdr(const struct image *im, unsigned i)
{
    Elf32_Phdr p;
    memcpy(&p, im->ph + (size_t)i * sizeof(p), sizeof(p));
    return p;
}

static void image_free(struct image *im)
{
    free(im->file);
    free(im->bytes);
    memset(im, 0, sizeof(*im));
}

static int image_load(const char *path, struct image *im)
{
    memset(im, 0, sizeof(*im));
    im->file = read_file(path, &im->file_size);
    if (!im->file) {
        mle_err("cannot read %s\n", path);
        return -1;
    }
    const Elf32_Ehdr *eh = (const void *)im->file;
    if (im->file_size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
        eh->e_ident[EI_CLASS] != ELFCLASS32 || eh->e_machine != EM_386 ||
        eh->e_phentsize != sizeof(Elf32_Phdr) ||
        !in_file(eh->e_phoff, (size_t)eh->e_phnum * sizeof(Elf32_Phdr), im->file_size)) {
        mle_err("%s is not an ELF32 i386 image\n", path);
        return -1;
    }
    im->ph = im->file + eh->e_phoff;
    im->nph = eh->e_phnum;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (unsigned i = 0; i < im->nph; i++) {
        const Elf32_Phdr ph = image_phdr(im, i), *p = &ph;
        if (p->p_type != PT_LOAD || !p->p_memsz)
            continue;
        if (p->p_filesz > p->p_memsz || !in_file(p->p_offset, p->p_filesz, im->file_size)) {
            mle_err("%s: segment %u lies outside the file\n", path, i);
            return -1;
        }
        lo = p->p_paddr < lo ? p->p_paddr : lo;
        hi = (uint64_t)p->p_paddr + p->p_memsz > hi ? (uint64_t)p->p_paddr + p->p_memsz : hi;
    }
    if (lo >= hi || hi - lo > IMAGE_MAX) {
        mle_err("%s: no loadable image (or larger than %u MiB)\n", path,
                IMAGE_MAX >> 20);
        return -1;
    }
    im->base = (uint32_t)lo;
    im->size = (size_t)(hi - lo);
    im->bytes = calloc(1, im->size);
    if (!im->bytes)
        return -1;
    for (unsigned i = 0; i < im->nph; i++) {
        const Elf32_Phdr ph = image_phdr(im, i), *p = &ph;
        if (p->p_type == PT_LOAD && p->p_memsz)
            memcpy(im->bytes + (p->p_paddr - im->base), im->file + p->p_offset, p->p_filesz);
    }

    /* The MLE header, where lcp2_mlehash looks for it: its UUID at the first 16-byte boundary
     * from the image's start. The UUID has no zero byte, so it can start only in bytes from
     * the file: each segment's file bytes are searched (not the zeros between), lowest wins. */
    static const uint8_t uuid[16] = MLE_HDR_UUID_BYTES;
    size_t off = SIZE_MAX;
    for (unsigned i = 0; i < im->nph; i++) {
        const Elf32_Phdr p = image_phdr(im, i);
        if (p.p_type != PT_LOAD || !p.p_memsz || !p.p_filesz)
            continue;
        size_t from = p.p_paddr - im->base, to = from + p.p_filesz;
        for (size_t o = (from + MLE_HDR_ALIGN - 1) / MLE_HDR_ALIGN * MLE_HDR_ALIGN;
             o < to && o < off && o + sizeof(struct mle_hdr) <= im->size; o += MLE_HDR_ALIGN)
            if (im->bytes[o] == uuid[0] && !memcmp(im->bytes + o, uuid, 16)) {
                off = o;
                break;
            }
    }
    if (off == SIZE_MAX) {
        mle_err("%s has no MLE header\n", path);
        return -1;
    }
    struct mle_hdr h;
    char err[160];
    memcpy(&h, im->bytes + off, sizeof(h));
    if (mlehdr_check(&h, im->base, im->base + (uint32_t)off, 1ull << 32, &im->range, err,
                     sizeof(err))) {
        mle_err("%s: MLE header: %s\n", path, err);
        return -1;
    }
    if (im->range.end - im->base > im->size) {
        mle_err("%s: the MLE header's range ends past the image\n", path);
        return -1;
    }
    return 0;
}

int mle_load(const char *elf_path, const char *vtboot_cmdline, struct mle *out)
{
    struct image im;
    memset(out, 0, sizeof(*out));
    if (image_load(elf_path, &im)) {
        image_free(&im);
        return -1;
    }
    /* the command line area as the pre-launch code fills it (and lcp2_mlehash) */
    size_t area = (size_t)(im.range.cmdline_end - im.range.cmdline_start);
    size_t n = strlen(vtboot_cmdline);
    if (area && n >= area) {
        mle_err("vtboot command line longer than the MLE's %zu bytes\n",
                area - 1);
        image_free(&im);
        return -1;
    }
    uint8_t *cmd = im.bytes + (im.range.cmdline_start - im.base);
    memset(cmd, 0, area);
    memcpy(cmd, vtboot_cmdline, area ? n : 0);
    out->base = (uint32_t)im.range.start;
    out->size = (uint32_t)(im.range.end - im.range.start);
    out->bytes = malloc(out->size);
    if (out->bytes)
        memcpy(out->bytes, im.bytes + (im.range.start - im.base), out->size);
    image_free(&im);
    return out->bytes ? 0 : -1;
}

int mle_check_file(const char *elf_path)
{
    struct image im;
    int rc = -1;

    if (image_load(elf_path, &im))
        goto out;
    uint32_t start = (uint32_t)im.range.start, end = (uint32_t)(im.range.end);
    uint8_t *covered = calloc(1, end - start);
    if (!covered)
        goto out;
    rc = 0;
    for (unsigned i = 0; i < im.nph; i++) {
        const Elf32_Phdr ph = image_phdr(&im, i), *p = &ph;
        if (p->p_type != PT_LOAD || !p->p_filesz)
            continue;
        if (p->p_paddr < start || (uint64_t)p->p_paddr + p->p_filesz > end) {
            mle_err("%s: segment %u loads 0x%x bytes at 0x%08x, outside the "
                    "MLE [0x%08x, 0x%08x): the launch would not measure them\n", elf_path, i,
                    p->p_filesz, p->p_paddr, start, end);
            rc = -1;
            continue;
        }
        memset(covered + (p->p_paddr - start), 1, p->p_filesz);
    }
    for (uint32_t a = 0; rc == 0 && a < end - start; a++) {
        if (!covered[a]) {
            mle_err("%s: MLE byte 0x%08x is not loaded from the file: a "
                    "loader leaves it as it found it, and the measurement is unpredictable\n",
                    elf_path, start + a);
            rc = -1;
        }
    }
    free(covered);
    if (rc == 0)
        printf("%s: MLE 0x%08x-0x%08x, entry 0x%08x, command line 0x%08x-0x%08x; every loaded "
               "byte is measured\n", elf_path, start, end, (uint32_t)im.range.entry,
               (uint32_t)im.range.cmdline_start, (uint32_t)im.range.cmdline_end);
out:
    image_free(&im);
    return rc;
}

void mle_free(struct mle *m)
{
    free(m->bytes);
    m->bytes = NULL;
}
