/* SPDX-License-Identifier: MIT */
#include "mleaudit.h"
#include "lib/bytes.h"
#include "util.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SHT_RELR
#define SHT_RELR 19                     /* glibc's elf.h before 2.36 lacks it */
#endif

/* [start, end) */
struct span {
    uint32_t start, end;
};

/* The section headers, checked: every one readable, every name inside a string table. */
struct sections {
    const uint8_t *sh;                  /* as in the file: unaligned */
    unsigned n;
    const char *names;                  /* .shstrtab, NUL-terminated at its end; NULL: none */
    uint32_t names_size;
};

static Elf32_Shdr shdr(const struct sections *s, unsigned i)
{
    Elf32_Shdr h;
    memcpy(&h, s->sh + (size_t)i * sizeof(h), sizeof(h));
    return h;
}

/* A string table's bytes, if it is one inside the file and ends in a NUL. */
static const char *strtab(const struct mle_image *im, const Elf32_Shdr *h, uint32_t *size)
{
    if (h->sh_type != SHT_STRTAB || !h->sh_size ||
        !mle_image_in_file(im, h->sh_offset, h->sh_size) ||
        im->file[h->sh_offset + h->sh_size - 1] != 0)
        return NULL;
    *size = h->sh_size;
    return (const char *)im->file + h->sh_offset;
}

static int sections_read(const struct mle_image *im, struct sections *s, char *err, size_t errsz)
{
    Elf32_Ehdr eh;

    memcpy(&eh, im->file, sizeof(eh));   /* mle_image_parse checked it is there */
    memset(s, 0, sizeof(*s));
    if (eh.e_shnum == 0) {
        if (eh.e_shoff != 0)
            return errorf(err, errsz, "extended section numbering (e_shnum 0, e_shoff 0x%x) "
                          "is not supported", eh.e_shoff);
        return 0;
    }
    if (eh.e_shentsize != sizeof(Elf32_Shdr))
        return errorf(err, errsz, "section header size %u, expected %zu", eh.e_shentsize,
                      sizeof(Elf32_Shdr));
    if (!mle_image_in_file(im, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf32_Shdr)))
        return errorf(err, errsz, "%u section headers at 0x%x lie outside the file", eh.e_shnum,
                      eh.e_shoff);
    s->sh = im->file + eh.e_shoff;
    s->n = eh.e_shnum;
    if (eh.e_shstrndx != SHN_UNDEF) {
        if (eh.e_shstrndx >= s->n)
            return errorf(err, errsz, "section name table index %u, only %u sections",
                          eh.e_shstrndx, s->n);
        Elf32_Shdr h = shdr(s, eh.e_shstrndx);
        s->names = strtab(im, &h, &s->names_size);
        if (!s->names)
            return errorf(err, errsz, "section %u, the section name table, is not a string "
                          "table inside the file", eh.e_shstrndx);
    }
    for (unsigned i = 0; i < s->n; i++) {
        Elf32_Shdr h = shdr(s, i);
        if (s->names && h.sh_name >= s->names_size)
            return errorf(err, errsz, "section %u: name at 0x%x outside the name table", i,
                          h.sh_name);
    }
    return 0;
}

/* The section's name, or "section N" if it has none */
static void section_name(const struct sections *s, unsigned i, char *out, size_t outsz)
{
    Elf32_Shdr h = shdr(s, i);
    if (s->names && s->names[h.sh_name])
        snprintf(out, outsz, "%s", s->names + h.sh_name);
    else
        snprintf(out, outsz, "section %u", i);
}

/* Spans, sorted and merged by spans_merge: the code inside the MLE, or what sections cover. */
struct spans {
    struct span *v;
    unsigned n;
};

static int span_cmp(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* [start, end) clipped to the MLE, if anything is left */
static void spans_add_inside(struct spans *c, uint64_t start, uint64_t end,
                             const struct mle_range *r)
{
    if (start < r->start)
        start = r->start;
    if (end > r->end)
        end = r->end;
    if (start < end)
        c->v[c->n++] = (struct span){ (uint32_t)start, (uint32_t)end };
}

static void spans_merge(struct spans *c)
{
    unsigned n = 0;

    qsort(c->v, c->n, sizeof(*c->v), span_cmp);
    for (unsigned i = 0; i < c->n; i++) {
        if (n && c->v[i].start <= c->v[n - 1].end) {
            if (c->v[i].end > c->v[n - 1].end)
                c->v[n - 1].end = c->v[i].end;
        } else {
            c->v[n++] = c->v[i];
        }
    }
    c->n = n;
}

static bool spans_have(const struct spans *c, uint32_t a)
{
    unsigned lo = 0, hi = c->n;

    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (a < c->v[mid].start)
            hi = mid;
        else if (a >= c->v[mid].end)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

/* Appends e (-1: out of memory). */
static int entry_add(struct mle_audit *a, size_t *cap, const struct mle_audit_entry *e)
{
    if (a->nentries == *cap) {
        size_t grown = *cap ? *cap * 2 : 16;
        struct mle_audit_entry *more = realloc(a->entries, grown * sizeof(*more));
        if (!more)
            return -1;
        a->entries = more;
        *cap = grown;
    }
    a->entries[a->nentries++] = *e;
    if (e->kind != MLE_AUDIT_ZEROED) {
        a->nflagged++;
        a->flagged_bytes += e->end - e->start;
    }
    return 0;
}

/* The parts of [addr, addr + size) before and after the MLE, each an entry like e. */
static int outside_add(struct mle_audit *a, size_t *cap, struct mle_audit_entry e,
                       const struct mle_range *r)
{
    uint64_t end = (uint64_t)e.addr + e.size;

    if (e.addr < r->start) {
        e.start = e.addr;
        e.end = (uint32_t)(end < r->start ? end : r->start);
        if (entry_add(a, cap, &e))
            return -1;
    }
    if (end > r->end) {
        e.start = (uint32_t)(e.addr > r->end ? e.addr : r->end);
        e.end = (uint32_t)end;
        if (entry_add(a, cap, &e))
            return -1;
    }
    return 0;
}

static bool nonzero(const struct mle_image *im, uint32_t start, uint32_t end)
{
    for (uint32_t x = start; x < end; x++)
        if (im->bytes[x - im->base])
            return true;
    return false;
}

/* The bytes in [start, end) of segment i (outside the MLE) that no span of cover (sorted by
 * start) covers, as "segment i" entries: all of them, or only pieces with a nonzero byte. */
static int uncovered_add(struct mle_audit *a, size_t *cap, const struct mle_image *im,
                         const Elf32_Phdr *p, unsigned i, uint32_t start, uint32_t end,
                         const struct spans *cover, bool all)
{
    struct mle_audit_entry e = { .is_segment = true, .type = p->p_type, .flags = p->p_flags,
                                 .kind = MLE_AUDIT_INITIALIZED };
    uint32_t at = start;

    snprintf(e.name, sizeof(e.name), "segment %u", i);
    for (unsigned k = 0; at < end && k <= cover->n; k++) {
        uint32_t next = k < cover->n && cover->v[k].start < end ? cover->v[k].start : end;
        if (next > at && (all || nonzero(im, at, next))) {
            e.addr = e.start = at;
            e.end = next;
            e.size = next - at;
            if (entry_add(a, cap, &e))
                return -1;
        }
        if (k < cover->n && cover->v[k].end > at)
            at = cover->v[k].end;
    }
    return 0;
}

static void pointers_scan(struct mle_audit *a, const struct mle_image *im, const struct spans *c,
                          const struct mle_audit_entry *e)
{
    for (uint64_t x = ((uint64_t)e->start + 3) & ~3ull; x + 4 <= e->end; x += 4) {
        uint32_t v = load_le32(im->bytes + (x - im->base));
        if (!spans_have(c, v))
            continue;
        if (a->npointers < MLE_AUDIT_POINTERS_MAX)
            a->pointers[a->npointers++] = (struct mle_audit_pointer){ (uint32_t)x, v };
        a->pointers_found++;
    }
}

int mle_audit_run(const struct mle_image *im, struct mle_audit *out, char *err, size_t errsz)
{
    const struct mle_range *r = &im->range;
    struct sections s;
    struct spans code = { 0 }, cover = { 0 };
    size_t cap = 0;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    for (unsigned i = 0; i < im->nph; i++) {
        Elf32_Phdr p = mle_image_phdr(im, i);
        if (p.p_type == PT_LOAD && p.p_memsz && p.p_vaddr != p.p_paddr)
            return errorf(err, errsz, "segment %u: virtual address 0x%08x differs from its "
                          "physical 0x%08x: only images linked where they load are audited", i,
                          p.p_vaddr, p.p_paddr);
    }
    if (sections_read(im, &s, err, errsz))
        return -1;
    out->pointers = calloc(MLE_AUDIT_POINTERS_MAX, sizeof(*out->pointers));
    code.v = calloc((size_t)s.n + im->nph + 1, sizeof(*code.v));
    cover.v = calloc(2 * (size_t)s.n + 1, sizeof(*cover.v));
    if (!out->pointers || !code.v || !cover.v)
        goto oom;

    for (unsigned i = 0; i < s.n; i++) {
        Elf32_Shdr h = shdr(&s, i);
        struct mle_audit_entry e = { .type = h.sh_type, .flags = h.sh_flags, .addr = h.sh_addr,
                                     .size = h.sh_size };
        if (!(h.sh_flags & SHF_ALLOC) || !h.sh_size ||
            (h.sh_type == SHT_NOBITS && (h.sh_flags & SHF_TLS)))
            continue;                   /* not loaded (.tbss is a template, not memory) */
        section_name(&s, i, e.name, sizeof(e.name));
        if (h.sh_addr < im->base || (uint64_t)h.sh_addr + h.sh_size > im->base + im->size) {
            errorf(err, errsz, "section %u (%s) at 0x%08x-0x%08llx lies outside the loaded "
                   "image 0x%08x-0x%08llx", i, e.name, h.sh_addr,
                   (unsigned long long)h.sh_addr + h.sh_size, im->base,
                   (unsigned long long)im->base + im->size);
            goto out;
        }
        if (h.sh_type != SHT_NOBITS && !mle_image_in_file(im, h.sh_offset, h.sh_size)) {
            errorf(err, errsz, "section %u (%s) lies outside the file", i, e.name);
            goto out;
        }
        e.kind = h.sh_type == SHT_NOBITS ? MLE_AUDIT_ZEROED :
                 h.sh_type == SHT_REL || h.sh_type == SHT_RELA || h.sh_type == SHT_RELR ?
                 MLE_AUDIT_RELOCATION : MLE_AUDIT_INITIALIZED;
        if (outside_add(out, &cap, e, r))
            goto oom;
        if ((h.sh_flags & SHF_EXECINSTR) && h.sh_type != SHT_NOBITS)
            spans_add_inside(&code, h.sh_addr, (uint64_t)h.sh_addr + h.sh_size, r);
    }
    for (unsigned k = 0; k < out->nentries; k++)
        if (out->entries[k].kind != MLE_AUDIT_ZEROED)
            cover.v[cover.n++] = (struct span){ out->entries[k].start, out->entries[k].end };
    spans_merge(&cover);
    for (unsigned i = 0; i < im->nph; i++) {
        Elf32_Phdr p = mle_image_phdr(im, i);
        uint64_t fend = (uint64_t)p.p_paddr + p.p_filesz, mend = (uint64_t)p.p_paddr + p.p_memsz;
        if (p.p_type != PT_LOAD || !p.p_memsz)
            continue;
        if (p.p_paddr < r->start &&
            uncovered_add(out, &cap, im, &p, i, p.p_paddr,
                          (uint32_t)(fend < r->start ? fend : r->start), &cover, s.n == 0))
            goto oom;
        if (fend > r->end &&
            uncovered_add(out, &cap, im, &p, i, (uint32_t)(p.p_paddr > r->end ? p.p_paddr : r->end),
                          (uint32_t)fend, &cover, s.n == 0))
            goto oom;
        if (s.n == 0 && mend > fend) {
            struct mle_audit_entry e = { .is_segment = true, .type = p.p_type,
                                         .flags = p.p_flags, .addr = (uint32_t)fend,
                                         .size = (uint32_t)(mend - fend),
                                         .kind = MLE_AUDIT_ZEROED };
            snprintf(e.name, sizeof(e.name), "segment %u", i);
            if (outside_add(out, &cap, e, r))
                goto oom;
        }
        if (s.n == 0 && (p.p_flags & PF_X))
            spans_add_inside(&code, p.p_paddr, fend, r);
    }
    spans_merge(&code);
    for (unsigned i = 0; i < out->nentries; i++)
        if (out->entries[i].kind != MLE_AUDIT_ZEROED)
            pointers_scan(out, im, &code, &out->entries[i]);
    rc = 0;
    goto out;
oom:
    errorf(err, errsz, "out of memory");
out:
    free(code.v);
    free(cover.v);
    if (rc)
        mle_audit_free(out);
    return rc;
}

void mle_audit_free(struct mle_audit *a)
{
    free(a->entries);
    free(a->pointers);
    memset(a, 0, sizeof(*a));
}

/* Sorted by address; equal addresses keep their input order (the index breaks ties). */
struct sym_at {
    struct mle_sym s;
    size_t index;
};

static int sym_cmp(const void *a, const void *b)
{
    const struct sym_at *x = a, *y = b;
    if (x->s.addr != y->s.addr)
        return x->s.addr < y->s.addr ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int syms_sort(struct sym_at *v, size_t n, struct mle_syms *out)
{
    qsort(v, n, sizeof(*v), sym_cmp);
    out->v = calloc(n ? n : 1, sizeof(*out->v));
    if (!out->v)
        return -1;
    for (size_t i = 0; i < n; i++)
        out->v[i] = v[i].s;
    out->n = n;
    return 0;
}

int mle_syms_from_elf(const struct mle_image *im, struct mle_syms *out, char *err, size_t errsz)
{
    struct sections s;

    memset(out, 0, sizeof(*out));
    if (sections_read(im, &s, err, errsz))
        return -1;
    for (unsigned i = 0; i < s.n; i++) {
        Elf32_Shdr h = shdr(&s, i);
        if (h.sh_type != SHT_SYMTAB)
            continue;
        if (h.sh_entsize != sizeof(Elf32_Sym) || h.sh_size % sizeof(Elf32_Sym) ||
            !mle_image_in_file(im, h.sh_offset, h.sh_size) || h.sh_link >= s.n)
            return errorf(err, errsz, "section %u: a malformed symbol table", i);
        Elf32_Shdr sh = shdr(&s, h.sh_link);
        uint32_t names_size;
        const char *names = strtab(im, &sh, &names_size);
        if (!names)
            return errorf(err, errsz, "section %u: symbol names in section %u, not a string "
                          "table inside the file", i, h.sh_link);
        size_t n = h.sh_size / sizeof(Elf32_Sym), kept = 0;
        struct sym_at *v = calloc(n ? n : 1, sizeof(*v));
        if (!v)
            return errorf(err, errsz, "out of memory");
        for (size_t k = 0; k < n; k++) {
            Elf32_Sym sym;
            memcpy(&sym, im->file + h.sh_offset + k * sizeof(sym), sizeof(sym));
            if (sym.st_name >= names_size) {
                free(v);
                return errorf(err, errsz, "symbol %zu: name at 0x%x outside its string table",
                              k, sym.st_name);
            }
            unsigned type = ELF32_ST_TYPE(sym.st_info);
            if (sym.st_shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE ||
                !names[sym.st_name])
                continue;
            v[kept] = (struct sym_at){ { sym.st_value, names + sym.st_name }, kept };
            kept++;
        }
        int rc = syms_sort(v, kept, out);
        free(v);
        return rc ? errorf(err, errsz, "out of memory") : 0;   /* the first table */
    }
    return 0;
}

static bool type_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '?';
}

int mle_syms_from_nm(char *text, size_t len, struct mle_syms *out, char *err, size_t errsz)
{
    size_t lines = 1, n = 0, line = 0;
    char *p = text, *end = text + len;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    struct sym_at *v = calloc(lines, sizeof(*v));
    if (!v)
        return errorf(err, errsz, "out of memory");
    for (; p < end; p++) {
        char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p;
        uint64_t addr = 0;
        int digits = 0;

        line++;
        if (!eol) {
            errorf(err, errsz, "symbols line %zu: no newline at its end", line);
            goto out;
        }
        for (; q < eol && hex_digit((unsigned char)*q) >= 0; q++, digits++)
            addr = (addr << 4) | (uint64_t)hex_digit((unsigned char)*q);
        if (digits == 0 && q < eol && *q == ' ') {
            /* "        U name": an undefined symbol, no address */
            while (q < eol && *q == ' ')
                q++;
            if (eol - q < 3 || (*q != 'U' && *q != 'w' && *q != 'v') || q[1] != ' ') {
                errorf(err, errsz, "symbols line %zu: no address, and not an undefined symbol",
                       line);
                goto out;
            }
            p = eol;
            continue;
        }
        if (digits == 0 || digits > 16 || addr > UINT32_MAX) {
            errorf(err, errsz, "symbols line %zu: %s", line, digits == 0 ?
                   "expected \"ADDRESS TYPE NAME\"" : "address above 4 GiB");
            goto out;
        }
        if (eol - q < 4 || q[0] != ' ' || !type_letter(q[1]) || q[2] != ' ') {
            errorf(err, errsz, "symbols line %zu: expected \" TYPE NAME\" after the address",
                   line);
            goto out;
        }
        for (char *c = q + 3; c < eol; c++)
            if ((unsigned char)*c <= ' ' || *c == 0x7f) {
                errorf(err, errsz, "symbols line %zu: a space or control character in the name",
                       line);
                goto out;
            }
        *eol = 0;
        v[n] = (struct sym_at){ { (uint32_t)addr, q + 3 }, n };
        n++;
        p = eol;
    }
    if (syms_sort(v, n, out))
        errorf(err, errsz, "out of memory");
    else
        rc = 0;
out:
    free(v);
    return rc;
}

const struct mle_sym *mle_syms_find(const struct mle_syms *s, uint32_t addr, uint32_t *off)
{
    size_t lo = 0, hi = s->n;           /* the first symbol above addr */

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    size_t i = lo - 1;
    while (i > 0 && s->v[i - 1].addr == s->v[i].addr)
        i--;
    *off = addr - s->v[i].addr;
    return &s->v[i];
}

void mle_syms_free(struct mle_syms *s)
{
    free(s->v);
    memset(s, 0, sizeof(*s));
}
