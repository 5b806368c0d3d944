/* SPDX-License-Identifier: MIT */
/* vtboot's measured launch environment as the host reads it from vtboot's ELF file (or
 * vtboot.gz): the range its MLE header (abi/mle.h) gives, with the image laid out as a loader
 * places it and the command line area filled in as the pre-launch code fills it. */
#ifndef VTBOOT_PCR_MLE_H
#define VTBOOT_PCR_MLE_H

#include "mleimage.h"

#include <stddef.h>
#include <stdint.h>

/* The file's bytes, through gzip if it is gzip'd (as GRUB and lcp2_mlehash read tboot.gz);
 * NULL if it cannot be read or is larger than an image can be. */
uint8_t *mle_file_read(const char *path, size_t *len);
struct mle {
    uint32_t base;
    uint32_t size;
    uint8_t *bytes;
};

/* 0, or -1 with a message on stderr. */
int mle_load(const char *elf_path, const char *vtboot_cmdline, struct mle *out);
void mle_free(struct mle *m);

/* `vtboot-pcr check-mle`: 0 if the MLE header is valid and every byte the file loads lies in
 * the MLE it describes, and the MLE is all file bytes; -1 with the reasons on stderr. */
int mle_check_file(const char *elf_path);

#endif
