/* SPDX-License-Identifier: MIT */
/* `vtboot-pcr audit-mle`: what an MLE image loads outside its measured range (host/lib/mleaudit.h),
 * printed as text or JSON; the exit status says whether anything was flagged. */
#include "audit.h"
#include "json.h"
#include "log.h"
#include "mle.h"
#include "mleaudit.h"
#include "util.h"

#include <elf.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SHT_RELR
#define SHT_RELR 19
#endif

static const char *type_name(const struct mle_audit_entry *e, char *buf, size_t bufsz)
{
    if (e->is_segment)
        return e->type == PT_LOAD ? "LOAD" : "segment";
    switch (e->type) {
    case SHT_PROGBITS: return "PROGBITS";
    case SHT_NOBITS: return "NOBITS";
    case SHT_REL: return "REL";
    case SHT_RELA: return "RELA";
    case SHT_RELR: return "RELR";
    default: snprintf(buf, bufsz, "type 0x%x", e->type); return buf;
    }
}

/* readelf's letters: W write, A alloc, X execute; a segment's R, W, E */
static const char *flag_letters(const struct mle_audit_entry *e, char *buf)
{
    char *p = buf;
    if (e->is_segment) {
        if (e->flags & PF_R) *p++ = 'R';
        if (e->flags & PF_W) *p++ = 'W';
        if (e->flags & PF_X) *p++ = 'E';
    } else {
        if (e->flags & SHF_WRITE) *p++ = 'W';
        if (e->flags & SHF_ALLOC) *p++ = 'A';
        if (e->flags & SHF_EXECINSTR) *p++ = 'X';
    }
    *p = 0;
    return buf;
}

static const char *kind_name(enum mle_audit_kind k)
{
    return k == MLE_AUDIT_INITIALIZED ? "initialized" :
           k == MLE_AUDIT_RELOCATION ? "relocation" : "zero-filled";
}

/* s with each control character as '?': a name from the file cannot start a line of its own */
static const char *printable(const char *s, char *buf, size_t bufsz)
{
    size_t n = 0;

    for (; *s && n + 1 < bufsz; s++)
        buf[n++] = (unsigned char)*s < ' ' || *s == 0x7f ? '?' : *s;
    buf[n] = 0;
    return buf;
}

/* "name" or "name+0x4"; "" without a symbol at or below addr */
static const char *sym_text(const struct mle_syms *syms, uint32_t addr, char *buf, size_t bufsz)
{
    uint32_t off;
    const struct mle_sym *s = mle_syms_find(syms, addr, &off);

    if (!s)
        buf[0] = 0;
    else if (off)
        snprintf(buf, bufsz, "%s+0x%x", s->name, off);
    else
        snprintf(buf, bufsz, "%s", s->name);
    return buf;
}

static void print_text(const char *path, const struct mle_image *im, const struct mle_audit *a,
                       const struct mle_syms *syms)
{
    char tb[16], fb[4], s[160], s1[160], s2[160], nb[64];

    printf("%s: MLE 0x%08x-0x%08x, entry 0x%08x\n", path, (uint32_t)im->range.start,
           (uint32_t)im->range.end, (uint32_t)im->range.entry);
    for (unsigned i = 0; i < a->nentries; i++) {
        const struct mle_audit_entry *e = &a->entries[i];
        printf("%s%s%s 0x%08x-0x%08x (0x%x bytes", e->kind == MLE_AUDIT_ZEROED ? "note: " : "",
               e->is_segment ? "" : "section ", printable(e->name, nb, sizeof(nb)), e->start,
               e->end, e->end - e->start);
        if (!e->is_segment && (e->start != e->addr || e->end - e->start != e->size))
            printf(" of 0x%08x-0x%08x", e->addr, e->addr + e->size);
        printf(") %s %s: %s, not measured%s\n", type_name(e, tb, sizeof(tb)),
               flag_letters(e, fb), kind_name(e->kind), e->kind == MLE_AUDIT_ZEROED ?
               " (the image must clear or check it after the launch)" : "");
    }
    for (unsigned i = 0; i < a->npointers; i++) {
        const struct mle_audit_pointer *p = &a->pointers[i];
        printable(sym_text(syms, p->addr, s, sizeof(s)), s1, sizeof(s1));
        printable(sym_text(syms, p->target, s, sizeof(s)), s2, sizeof(s2));
        printf("pointer 0x%08x%s%s%s -> code 0x%08x%s%s%s\n", p->addr, *s1 ? " (" : "", s1,
               *s1 ? ")" : "", p->target, *s2 ? " (" : "", s2, *s2 ? ")" : "");
    }
    if (a->pointers_found > a->npointers)
        printf("pointer ... and %llu more\n",
               (unsigned long long)(a->pointers_found - a->npointers));
    if (a->nflagged)
        printf("verdict: FLAGGED: 0x%llx initialized bytes in %u place%s outside the MLE, "
               "%llu pointer%s into its code there: the launch does not measure data its code "
               "trusts\n", (unsigned long long)a->flagged_bytes, a->nflagged,
               a->nflagged == 1 ? "" : "s", (unsigned long long)a->pointers_found,
               a->pointers_found == 1 ? "" : "s");
    else
        printf("verdict: clean: every initialized byte the image loads is inside the MLE\n");
}

static void json_string(const char *s)
{
    size_t sz = strlen(s) * 6 + 3;
    char *q = xmalloc(sz);

    json_quote(s, q, sz);
    fputs(q, stdout);
    free(q);
}

static void print_json(const char *path, const struct mle_image *im, const struct mle_audit *a,
                       const struct mle_syms *syms)
{
    char tb[16], fb[4], s[160];

    printf("{\"file\": ");
    json_string(path);
    printf(", \"mle\": {\"start\": %u, \"end\": %u, \"entry\": %u},\n \"sections\": [",
           (uint32_t)im->range.start, (uint32_t)im->range.end, (uint32_t)im->range.entry);
    for (unsigned i = 0; i < a->nentries; i++) {
        const struct mle_audit_entry *e = &a->entries[i];
        printf("%s\n  {\"name\": ", i ? "," : "");
        json_string(e->name);
        printf(", \"segment\": %s, \"type\": \"%s\", \"flags\": \"%s\", \"addr\": %u, "
               "\"size\": %u, \"start\": %u, \"end\": %u, \"kind\": \"%s\", \"flagged\": %s}",
               e->is_segment ? "true" : "false", type_name(e, tb, sizeof(tb)),
               flag_letters(e, fb), e->addr, e->size, e->start, e->end, kind_name(e->kind),
               e->kind == MLE_AUDIT_ZEROED ? "false" : "true");
    }
    printf("],\n \"pointers\": [");
    for (unsigned i = 0; i < a->npointers; i++) {
        const struct mle_audit_pointer *p = &a->pointers[i];
        printf("%s\n  {\"addr\": %u, \"symbol\": ", i ? "," : "", p->addr);
        json_string(sym_text(syms, p->addr, s, sizeof(s)));
        printf(", \"target\": %u, \"target_symbol\": ", p->target);
        json_string(sym_text(syms, p->target, s, sizeof(s)));
        printf("}");
    }
    printf("],\n \"pointers_found\": %llu, \"flagged\": %s}\n",
           (unsigned long long)a->pointers_found, a->nflagged ? "true" : "false");
}

void audit_usage(FILE *f)
{
    fprintf(f,
"usage: vtboot-pcr audit-mle [--symbols FILE] [--format text|json] F\n"
"Lists what the MLE image F (an ELF32 file such as vtboot or tboot, or a gzip of it) loads\n"
"outside the range its MLE header gives, the bytes the launch does not measure and a loader\n"
"or a pre-launch OS can change: each loaded section's part outside it, initialized (file\n"
"bytes), relocations, or zero-filled (NOBITS, a \"note:\" line: the image clears it itself,\n"
"or must); file bytes of a segment outside it that no section holds; then every aligned\n"
"32-bit value there that points into the MLE's code (\"pointer ADDR -> code TARGET\"), and a\n"
"verdict line.\n"
"  --symbols FILE  names for the addresses from nm's output (e.g. Debian's /boot/tboot-syms);\n"
"                  default: the image's own symbol table, if it has one\n"
"  --format json   the same as one JSON object\n"
"Exit status: 0 nothing flagged (zero-filled sections only), 1 initialized or relocation\n"
"bytes outside the MLE, 2 usage, or F or FILE cannot be read or parsed.\n");
}

int audit_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "symbols", required_argument, 0, 's' },
        { "format", required_argument, 0, 'f' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *symbols = NULL, *format = "text";
    struct mle_image im;
    struct mle_audit a;
    struct mle_syms syms = { 0 };
    char err[256], *text = NULL;
    size_t size;
    uint8_t *file;
    int c, rc = 2;

    optind = 2;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 's': symbols = optarg; break;
        case 'f':
            if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
                fprintf(stderr, "%s: --format takes text or json\n", log_prog);
                return 2;
            }
            format = optarg;
            break;
        case 'h': audit_usage(stdout); return 0;
        default: audit_usage(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        audit_usage(stderr);
        return 2;
    }
    const char *path = argv[optind];
    file = mle_file_read(path, &size);
    if (!file) {
        fprintf(stderr, "%s: cannot read %s\n", log_prog, path);
        return 2;
    }
    if (mle_image_parse(file, size, &im, err, sizeof(err)) ||
        mle_audit_run(&im, &a, err, sizeof(err))) {
        fprintf(stderr, "%s: %s: %s\n", log_prog, path, err);
        mle_image_free(&im);
        return 2;
    }
    if (symbols) {
        size_t len;
        uint8_t *raw = file_read_all(symbols, &len, 64u << 20);
        if (!raw) {
            fprintf(stderr, "%s: cannot read %s\n", log_prog, symbols);
            goto out;
        }
        text = (char *)raw;
        if (mle_syms_from_nm(text, len, &syms, err, sizeof(err))) {
            fprintf(stderr, "%s: %s: %s\n", log_prog, symbols, err);
            goto out;
        }
    } else if (mle_syms_from_elf(&im, &syms, err, sizeof(err))) {
        fprintf(stderr, "%s: %s: %s\n", log_prog, path, err);
        goto out;
    }
    if (!strcmp(format, "json"))
        print_json(path, &im, &a, &syms);
    else
        print_text(path, &im, &a, &syms);
    rc = fflush(stdout) ? 2 : a.nflagged ? 1 : 0;
out:
    mle_syms_free(&syms);
    free(text);
    mle_audit_free(&a);
    mle_image_free(&im);
    return rc;
}
