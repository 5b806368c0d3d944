/* SPDX-License-Identifier: MIT */
/* An MLE image (vtboot's ELF, tboot's) parsed from the file's bytes, as mle.c loads it for
 * predictions and checks and mleaudit.c audits it. Pure code: the caller reads the file. */
#ifndef HOST_MLEIMAGE_H
#define HOST_MLEIMAGE_H

#include "mlehdr.h"

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The file, and the span its loadable segments cover: vtboot's are under 1 MiB, Debian's tboot
 * (the MLE of a TXT launch) spans 35 MiB, most of it .data and .bss outside its MLE. */
#define MLE_IMAGE_MAX (64u << 20)

/* An ELF32 i386 file laid out as a loader leaves it: its loadable segments from the lowest
 * physical address, NOBITS and gaps as zeros; and the MLE its header describes. */
struct mle_image {
    uint8_t *file;                       /* the (unpacked) file */
    size_t file_size;
    const uint8_t *ph;                   /* the program headers, as in the file: unaligned */
    unsigned nph;
    uint32_t base;                       /* the lowest loaded address */
    uint8_t *bytes;                      /* [base, base + size) as loaded */
    size_t size;
    struct mle_range range;              /* from the MLE header */
};

/* Lays out file (taking it over: mle_image_free frees it) and finds and checks its MLE header.
 * 0, or -1 with the reason in err. */
int mle_image_parse(uint8_t *file, size_t file_size, struct mle_image *im, char *err,
                    size_t errsz);
void mle_image_free(struct mle_image *im);
/* Program header i, copied out (the file's need not be aligned). */
Elf32_Phdr mle_image_phdr(const struct mle_image *im, unsigned i);
/* [off, off + len) inside the file */
bool mle_image_in_file(const struct mle_image *im, uint64_t off, uint64_t len);

#endif
