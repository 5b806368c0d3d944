/* SPDX-License-Identifier: MIT */
/* vtboot's measured launch environment as the host reads it from vtboot's ELF file: the bytes
 * of [_mle_start, _mle_end) as a loader places them, with the command line vtboot copies into
 * mle_cmdline before it asks for the launch. */
#ifndef VTBOOT_PCR_MLE_H
#define VTBOOT_PCR_MLE_H

#include <stddef.h>
#include <stdint.h>

struct mle {
    uint32_t base;
    uint32_t size;
    uint8_t *bytes;
};

/* 0, or -1 with a message on stderr. */
int mle_load(const char *elf_path, const char *vtboot_cmdline, struct mle *out);
void mle_free(struct mle *m);

#endif
