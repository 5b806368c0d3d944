/* SPDX-License-Identifier: MIT */
#include "mleimage.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

bool mle_image_in_file(const struct mle_image *im, uint64_t off, uint64_t len)
{
    return off <= im->file_size && len <= im->file_size - off;
}

Elf32_Phdr mle_image_phdr(const struct mle_image *im, unsigned i)
{
    Elf32_Phdr p;
    memcpy(&p, im->ph + (size_t)i * sizeof(p), sizeof(p));
    return p;
}

void mle_image_free(struct mle_image *im)
{
    free(im->file);
    free(im->bytes);
    memset(im, 0, sizeof(*im));
}

int mle_image_parse(uint8_t *file, size_t file_size, struct mle_image *im, char *err,
                    size_t errsz)
{
    memset(im, 0, sizeof(*im));
    im->file = file;
    im->file_size = file_size;
    const Elf32_Ehdr *eh = (const void *)im->file;
    if (im->file_size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
        eh->e_ident[EI_CLASS] != ELFCLASS32 || eh->e_machine != EM_386 ||
        eh->e_phentsize != sizeof(Elf32_Phdr) ||
        !mle_image_in_file(im, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf32_Phdr)))
        return errorf(err, errsz, "not an ELF32 i386 image");
    im->ph = im->file + eh->e_phoff;
    im->nph = eh->e_phnum;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (unsigned i = 0; i < im->nph; i++) {
        const Elf32_Phdr ph = mle_image_phdr(im, i), *p = &ph;
        if (p->p_type != PT_LOAD || !p->p_memsz)
            continue;
        if (p->p_filesz > p->p_memsz || !mle_image_in_file(im, p->p_offset, p->p_filesz))
            return errorf(err, errsz, "segment %u lies outside the file", i);
        lo = p->p_paddr < lo ? p->p_paddr : lo;
        hi = (uint64_t)p->p_paddr + p->p_memsz > hi ? (uint64_t)p->p_paddr + p->p_memsz : hi;
    }
    if (lo >= hi || hi - lo > MLE_IMAGE_MAX)
        return errorf(err, errsz, "no loadable image (or larger than %u MiB)", MLE_IMAGE_MAX >> 20);
    im->base = (uint32_t)lo;
    im->size = (size_t)(hi - lo);
    im->bytes = calloc(1, im->size);
    if (!im->bytes)
        return errorf(err, errsz, "out of memory for a 0x%zx-byte image", im->size);
    for (unsigned i = 0; i < im->nph; i++) {
        const Elf32_Phdr ph = mle_image_phdr(im, i), *p = &ph;
        if (p->p_type == PT_LOAD && p->p_memsz)
            memcpy(im->bytes + (p->p_paddr - im->base), im->file + p->p_offset, p->p_filesz);
    }

    /* The MLE header, where lcp2_mlehash looks for it: its UUID at the first 16-byte boundary
     * from the image's start. The UUID has no zero byte, so it can start only in bytes from
     * the file: each segment's file bytes are searched (not the zeros between), lowest wins. */
    static const uint8_t uuid[16] = MLE_HDR_UUID_BYTES;
    size_t off = SIZE_MAX;
    for (unsigned i = 0; i < im->nph; i++) {
        const Elf32_Phdr p = mle_image_phdr(im, i);
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
    if (off == SIZE_MAX)
        return errorf(err, errsz, "no MLE header");
    struct mle_hdr h;
    char why[160];
    memcpy(&h, im->bytes + off, sizeof(h));
    if (mlehdr_check(&h, im->base, im->base + (uint32_t)off, 1ull << 32, &im->range, why,
                     sizeof(why)))
        return errorf(err, errsz, "MLE header: %s", why);
    if (im->range.end - im->base > im->size)
        return errorf(err, errsz, "the MLE header's range ends past the image");
    return 0;
}
