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
#include "util.h"

/* A message on stderr with the tool's name in front (vtboot-pcr, vtboot-attest). */
static void __attribute__((format(printf, 1, 2))) mle_err(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", log_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

uint8_t *mle_file_read(const char *path, size_t *len)
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
            uint8_t *more = cap < MLE_IMAGE_MAX ? realloc(buf, grown) : NULL;
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

/* The image in file path, or -1 with the reason on stderr. */
static int image_load(const char *path, struct mle_image *im)
{
    size_t size = 0;
    uint8_t *file = mle_file_read(path, &size);
    char err[200];

    memset(im, 0, sizeof(*im));
    if (!file) {
        mle_err("cannot read %s\n", path);
        return -1;
    }
    if (mle_image_parse(file, size, im, err, sizeof(err))) {
        mle_err("%s: %s\n", path, err);
        return -1;
    }
    return 0;
}

int mle_load(const char *elf_path, const char *vtboot_cmdline, struct mle *out)
{
    struct mle_image im;
    memset(out, 0, sizeof(*out));
    if (image_load(elf_path, &im)) {
        mle_image_free(&im);
        return -1;
    }
    /* the command line area as the pre-launch code fills it (and lcp2_mlehash) */
    size_t area = (size_t)(im.range.cmdline_end - im.range.cmdline_start);
    size_t n = strlen(vtboot_cmdline);
    if (area && n >= area) {
        mle_err("vtboot command line longer than the MLE's %zu bytes\n",
                area - 1);
        mle_image_free(&im);
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
    mle_image_free(&im);
    return out->bytes ? 0 : -1;
}

int mle_check_file(const char *elf_path)
{
    struct mle_image im;
    int rc = -1;

    if (image_load(elf_path, &im))
        goto out;
    uint32_t start = (uint32_t)im.range.start, end = (uint32_t)(im.range.end);
    uint8_t *covered = calloc(1, end - start);
    if (!covered)
        goto out;
    rc = 0;
    for (unsigned i = 0; i < im.nph; i++) {
        const Elf32_Phdr ph = mle_image_phdr(&im, i), *p = &ph;
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
    mle_image_free(&im);
    return rc;
}

void mle_free(struct mle *m)
{
    free(m->bytes);
    m->bytes = NULL;
}
