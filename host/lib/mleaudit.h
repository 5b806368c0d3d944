/* SPDX-License-Identifier: MIT */
/*
 * `vtboot-pcr audit-mle`: what an MLE image (vtboot, Debian's tboot.gz) loads outside the range
 * its MLE header gives, i.e. what the launch does not measure and a loader can change, and the
 * pointers into the MLE's code found there. Pure code over a parsed image (mleimage.h).
 *
 * Listed, per ELF section (its part outside the range; a section sticking out on both sides
 * gives two entries), sections with SHF_ALLOC only (the others are not loaded):
 *   MLE_AUDIT_INITIALIZED  file bytes (anything but NOBITS): flagged;
 *   MLE_AUDIT_RELOCATION   a loaded SHT_REL, SHT_RELA or SHT_RELR section: flagged;
 *   MLE_AUDIT_ZEROED       NOBITS (.bss): zero-filled by the loader. Not flagged: whether the
 *                          image clears it after the launch (tboot 1.10.5 does, at __start)
 *                          is in its code, not in its headers; listed as a note.
 * Bytes a segment loads outside the range that no section covers are listed too, as
 * "segment N" entries: with no section headers all of them, else those holding a nonzero
 * byte (padding between sections is zeros).
 *
 * Pointers: each 4-byte-aligned little-endian u32 in a flagged entry whose value lies in code
 * inside the range: an executable section's part inside it (without section headers, an
 * executable segment's). A 64-bit pointer into code has a zero high half, so its low half is
 * found the same way.
 */
#ifndef HOST_MLEAUDIT_H
#define HOST_MLEAUDIT_H

#include "mleimage.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mle_audit_kind { MLE_AUDIT_INITIALIZED, MLE_AUDIT_RELOCATION, MLE_AUDIT_ZEROED };

struct mle_audit_entry {
    char name[64];                      /* the section's name (cut at 63 bytes; "section N" if it
                                         * has none), or "segment N" */
    bool is_segment;
    uint32_t type, flags;               /* sh_type and sh_flags, or p_type and p_flags */
    uint32_t addr, size;                /* the whole section (segment: its outside part) */
    uint32_t start, end;                /* the part outside the MLE */
    enum mle_audit_kind kind;
};

struct mle_audit_pointer {
    uint32_t addr, target;
};

/* The pointers listed at most; the rest are counted. */
#define MLE_AUDIT_POINTERS_MAX 4096u

struct mle_audit {
    struct mle_audit_entry *entries;
    unsigned nentries;
    unsigned nflagged;                  /* INITIALIZED and RELOCATION entries */
    uint64_t flagged_bytes;
    struct mle_audit_pointer *pointers;
    unsigned npointers;                 /* listed: at most MLE_AUDIT_POINTERS_MAX */
    uint64_t pointers_found;
};

/* Audits im. 0, or -1 with the reason in err (malformed section headers, or an image not
 * linked at its physical address: pointers are virtual addresses, the range physical). */
int mle_audit_run(const struct mle_image *im, struct mle_audit *out, char *err, size_t errsz);
void mle_audit_free(struct mle_audit *a);

/* Names for addresses: an ELF's .symtab or the text `nm` prints (Debian's /boot/tboot-syms). */
struct mle_sym {
    uint32_t addr;
    const char *name;
};
struct mle_syms {
    struct mle_sym *v;
    size_t n;
};

/* The image's .symtab (names point into im->file; none: n 0). 0, or -1 with the reason. */
int mle_syms_from_elf(const struct mle_image *im, struct mle_syms *out, char *err, size_t errsz);
/* nm output, "ADDR TYPE NAME" lines (ADDR hex, TYPE one letter; undefined symbols, with no
 * address, are skipped). Writes NULs into text, which the names then point into. 0, or -1 with
 * the line and the reason in err. */
int mle_syms_from_nm(char *text, size_t len, struct mle_syms *out, char *err, size_t errsz);
/* The symbol at or closest below addr (the first of equal ones, in input order), or NULL;
 * *off gets addr minus its address. */
const struct mle_sym *mle_syms_find(const struct mle_syms *s, uint32_t addr, uint32_t *off);
void mle_syms_free(struct mle_syms *s);

#endif
