/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the MLE image audit (host/lib/mleaudit.c: section headers, segments,
 * the pointer scan, .symtab) and nm's symbol text, on the same bytes. Invariants: every entry
 * lies outside the MLE and inside the loaded image, flagged counts add up, every pointer is
 * 4-aligned in a flagged entry and points inside the MLE; symbols come sorted, with names of
 * printable, space-free characters (nm's) or inside the file (.symtab's).
 */
#include "mleaudit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

static void check_syms(const struct mle_syms *s)
{
    for (size_t i = 0; i < s->n; i++) {
        check(s->v[i].name && s->v[i].name[0]);
        check(i == 0 || s->v[i - 1].addr <= s->v[i].addr);
        uint32_t off = 1;
        const struct mle_sym *y = mle_syms_find(s, s->v[i].addr, &off);
        check(y && y->addr == s->v[i].addr && off == 0);
    }
}

static void audit(const uint8_t *data, size_t size)
{
    uint8_t *file = malloc(size ? size : 1);
    struct mle_image im;
    struct mle_audit a;
    struct mle_syms s;
    char err[256];

    check(file);
    memcpy(file, data, size);
    if (mle_image_parse(file, size, &im, err, sizeof(err)) == 0 &&
        mle_audit_run(&im, &a, err, sizeof(err)) == 0) {
        uint64_t lo = im.base, hi = (uint64_t)im.base + im.size, bytes = 0;
        unsigned flagged = 0;
        for (unsigned i = 0; i < a.nentries; i++) {
            const struct mle_audit_entry *e = &a.entries[i];
            check(e->start < e->end && e->start >= lo && e->end <= hi);
            check(e->end <= im.range.start || e->start >= im.range.end);
            check(e->name[0] && memchr(e->name, 0, sizeof(e->name)));
            if (e->kind != MLE_AUDIT_ZEROED) {
                flagged++;
                bytes += e->end - e->start;
            }
        }
        check(flagged == a.nflagged && bytes == a.flagged_bytes);
        check(a.npointers <= MLE_AUDIT_POINTERS_MAX && a.npointers <= a.pointers_found);
        check(a.npointers == a.pointers_found || a.npointers == MLE_AUDIT_POINTERS_MAX);
        for (unsigned i = 0; i < a.npointers; i++) {
            const struct mle_audit_pointer *p = &a.pointers[i];
            bool in_entry = false;
            check(!(p->addr & 3));
            check(p->target >= im.range.start && p->target < im.range.end);
            for (unsigned k = 0; k < a.nentries && !in_entry; k++)
                in_entry = a.entries[k].kind != MLE_AUDIT_ZEROED &&
                           p->addr >= a.entries[k].start && p->addr + 4 <= a.entries[k].end;
            check(in_entry);
        }
        mle_audit_free(&a);
        if (mle_syms_from_elf(&im, &s, err, sizeof(err)) == 0) {
            check_syms(&s);
            for (size_t i = 0; i < s.n; i++)
                check((const uint8_t *)s.v[i].name >= im.file &&
                      (const uint8_t *)s.v[i].name < im.file + im.file_size);
            mle_syms_free(&s);
        } else {
            check(err[0]);
        }
    } else {
        check(err[0]);
    }
    mle_image_free(&im);
}

static void nm(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1);
    struct mle_syms s;
    char err[256];

    check(text);
    memcpy(text, data, size);
    if (mle_syms_from_nm(text, size, &s, err, sizeof(err)) == 0) {
        check_syms(&s);
        for (size_t i = 0; i < s.n; i++)
            for (const char *c = s.v[i].name; *c; c++)
                check((unsigned char)*c > ' ' && *c != 0x7f);
        mle_syms_free(&s);
    } else {
        check(err[0] && s.n == 0);
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    audit(data, size);
    nm(data, size);
    return 0;
}
