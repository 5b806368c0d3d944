/* SPDX-License-Identifier: MIT */
/*
 * mleaudit.c on ELF images built here: tboot's shape (code before the MLE, writable data and
 * a function-pointer table after it, a relocation section, .bss), vtboot's (nothing but NOBITS
 * outside), bytes no section holds, no section headers at all; each malformed header with its
 * exact reason; the symbol tables (.symtab and nm's text) and the look-up.
 */
#include "unit.h"
#include "mleaudit.h"
#include "lib/bytes.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define BASE 0x00100000u
#define FILE_DATA 0x1000u               /* the file offset of BASE */
#define IMG_MAX 0x10000u

struct sec {
    const char *name;
    uint32_t type, flags, addr, size;
};

/* a file built here, in an IMG_MAX buffer */
struct elf {
    uint8_t *f;
    size_t size;
};

/* An image at BASE: one PT_LOAD of filesz bytes (memsz: memsz) from file offset FILE_DATA, the
 * MLE header at the MLE's start + 0x40 giving [BASE + mle_start, BASE + mle_end) with its
 * entry at the range's start + 0x100, and the sections (each non-NOBITS one's bytes where the
 * segment puts them); the section name table, then the section headers, last. */
static struct elf build(uint32_t mle_start, uint32_t mle_end, uint32_t filesz, uint32_t memsz,
                        const struct sec *secs, unsigned nsec)
{
    struct elf e = { calloc(1, IMG_MAX), 0 };
    uint8_t *f = e.f;
    Elf32_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS32, ELFDATA2LSB,
                                   EV_CURRENT },
                      .e_type = ET_EXEC, .e_machine = EM_386, .e_version = EV_CURRENT,
                      .e_entry = BASE + mle_start + 0x100, .e_phoff = sizeof(Elf32_Ehdr),
                      .e_ehsize = sizeof(Elf32_Ehdr), .e_phentsize = sizeof(Elf32_Phdr),
                      .e_phnum = 1, .e_shentsize = sizeof(Elf32_Shdr) };
    Elf32_Phdr ph = { .p_type = PT_LOAD, .p_offset = FILE_DATA, .p_vaddr = BASE, .p_paddr = BASE,
                      .p_filesz = filesz, .p_memsz = memsz, .p_flags = PF_R | PF_W | PF_X,
                      .p_align = 0x1000 };
    struct mle_hdr h = { .uuid = MLE_HDR_UUID_BYTES, .length = sizeof(struct mle_hdr),
                         .version = MLE_HDR_VERSION, .entry_point = 0x100,
                         .mle_start_off = mle_start, .mle_end_off = mle_end };
    memcpy(f + FILE_DATA + mle_start + 0x40, &h, sizeof(h));
    memcpy(f + sizeof(eh), &ph, sizeof(ph));

    /* the section name table after the image's bytes, then the headers */
    uint32_t names = FILE_DATA + filesz, n = 1;
    f[names] = 0;
    Elf32_Shdr sh[16] = { { 0 } };
    for (unsigned i = 0; i < nsec; i++) {
        const struct sec *s = &secs[i];
        sh[i + 1] = (Elf32_Shdr){ .sh_name = n, .sh_type = s->type, .sh_flags = s->flags,
                                  .sh_addr = s->addr, .sh_size = s->size, .sh_addralign = 4,
                                  .sh_offset = s->addr ? FILE_DATA + (s->addr - BASE) : 0 };
        strcpy((char *)f + names + n, s->name);
        n += (uint32_t)strlen(s->name) + 1;
    }
    sh[nsec + 1] = (Elf32_Shdr){ .sh_name = n, .sh_type = SHT_STRTAB, .sh_offset = names };
    strcpy((char *)f + names + n, ".shstrtab");
    n += 10;
    sh[nsec + 1].sh_size = n;
    eh.e_shoff = (names + n + 3) & ~3u;
    eh.e_shnum = (uint16_t)(nsec + 2);
    eh.e_shstrndx = (uint16_t)(nsec + 1);
    memcpy(f + eh.e_shoff, sh, eh.e_shnum * sizeof(Elf32_Shdr));
    memcpy(f, &eh, sizeof(eh));
    e.size = eh.e_shoff + eh.e_shnum * sizeof(Elf32_Shdr);
    return e;
}

static void put32(struct elf *e, uint32_t addr, uint32_t v)
{
    store_le32(e->f + FILE_DATA + (addr - BASE), v);
}

static Elf32_Ehdr *ehdr(struct elf *e)
{
    return (Elf32_Ehdr *)e->f;
}

static Elf32_Shdr *shdr(struct elf *e, unsigned i)
{
    return (Elf32_Shdr *)(e->f + ehdr(e)->e_shoff) + i;
}

/* Parses a copy of e (mle_image_parse takes the buffer over) and audits it. */
static int audit(const struct elf *e, struct mle_image *im, struct mle_audit *a, char *err,
                 size_t errsz)
{
    uint8_t *copy = malloc(e->size);

    memcpy(copy, e->f, e->size);
    err[0] = 0;
    memset(a, 0, sizeof(*a));
    if (mle_image_parse(copy, e->size, im, err, errsz))
        return -2;
    return mle_audit_run(im, a, err, errsz);
}

static void release(struct mle_image *im, struct mle_audit *a, struct elf *e)
{
    mle_audit_free(a);
    mle_image_free(im);
    free(e->f);
}

#define EXPECT_AUDIT_ERR(e, want) do { \
    struct mle_image im_; struct mle_audit a_; char err_[256]; \
    int rc_ = audit(&(e), &im_, &a_, err_, sizeof(err_)); \
    CHECK(rc_ == -1 && !strcmp(err_, want), "expected '%s', got %d '%s'", want, rc_, err_); \
    mle_audit_free(&a_); mle_image_free(&im_); } while (0)

static bool entry_is(const struct mle_audit_entry *e, const char *name, uint32_t start,
                     uint32_t end, enum mle_audit_kind kind)
{
    return !strcmp(e->name, name) && e->start == start && e->end == end && e->kind == kind;
}

/* tboot's shape: [BASE, BASE + 0x1000) (multiboot header, page tables) before the MLE, the
 * MLE [BASE + 0x1000, BASE + 0x3000) with code and read-only data, then .data with a table of
 * two function pointers, a pointer into .rodata and an unaligned code address, a relocation
 * section, .bss. */
static const struct sec tboot_like[] = {
    { ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR | SHF_WRITE, BASE, 0x2000 },
    { ".rodata", SHT_PROGBITS, SHF_ALLOC, BASE + 0x2000, 0x1000 },
    { ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, BASE + 0x3000, 0x100 },
    { ".rel.dyn", SHT_REL, SHF_ALLOC, BASE + 0x3100, 0x10 },
    { ".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, BASE + 0x3200, 0xe00 },
    { ".comment", SHT_PROGBITS, 0, 0, 0 },
};

static struct elf tboot_image(void)
{
    struct elf e = build(0x1000, 0x3000, 0x3110, 0x4000, tboot_like, 6);
    put32(&e, BASE + 0x3040, BASE + 0x1100);     /* code: the entry */
    put32(&e, BASE + 0x3044, BASE + 0x1ffc);     /* code: .text's last word */
    put32(&e, BASE + 0x3048, BASE + 0x2010);     /* .rodata: inside the MLE, not code */
    put32(&e, BASE + 0x304c, BASE + 0x0800);     /* .text, but before the MLE: not measured */
    put32(&e, BASE + 0x3051, BASE + 0x1200);     /* code, unaligned: not a pointer */
    put32(&e, BASE + 0x3054, BASE + 0x2000);     /* just past the code */
    put32(&e, BASE + 0x3100, BASE + 0x1300);     /* in the relocation section */
    return e;
}

static void test_tboot_shape(void)
{
    struct elf e = tboot_image();
    struct mle_image im;
    struct mle_audit a;
    char err[256];

    int rc = audit(&e, &im, &a, err, sizeof(err));
    CHECK(rc == 0, "tboot shape: %d %s", rc, err);
    CHECK(im.range.start == BASE + 0x1000 && im.range.end == BASE + 0x3000, "range %llx-%llx",
          (unsigned long long)im.range.start, (unsigned long long)im.range.end);
    CHECK(a.nentries == 4, "entries %u", a.nentries);
    if (a.nentries == 4) {
        CHECK(entry_is(&a.entries[0], ".text", BASE, BASE + 0x1000, MLE_AUDIT_INITIALIZED) &&
              a.entries[0].addr == BASE && a.entries[0].size == 0x2000 &&
              a.entries[0].type == SHT_PROGBITS && !a.entries[0].is_segment &&
              a.entries[0].flags == (SHF_ALLOC | SHF_EXECINSTR | SHF_WRITE),
              ".text's part before the MLE: %s %x-%x", a.entries[0].name, a.entries[0].start,
              a.entries[0].end);
        CHECK(entry_is(&a.entries[1], ".data", BASE + 0x3000, BASE + 0x3100,
                       MLE_AUDIT_INITIALIZED), ".data: %s", a.entries[1].name);
        CHECK(entry_is(&a.entries[2], ".rel.dyn", BASE + 0x3100, BASE + 0x3110,
                       MLE_AUDIT_RELOCATION), ".rel.dyn: %s", a.entries[2].name);
        CHECK(entry_is(&a.entries[3], ".bss", BASE + 0x3200, BASE + 0x4000, MLE_AUDIT_ZEROED) &&
              a.entries[3].type == SHT_NOBITS, ".bss: %s", a.entries[3].name);
    }
    CHECK(a.nflagged == 3 && a.flagged_bytes == 0x1000 + 0x100 + 0x10, "flagged %u, 0x%llx bytes",
          a.nflagged, (unsigned long long)a.flagged_bytes);
    CHECK(a.npointers == 3 && a.pointers_found == 3, "pointers %u found %llu", a.npointers,
          (unsigned long long)a.pointers_found);
    if (a.npointers == 3) {
        CHECK(a.pointers[0].addr == BASE + 0x3040 && a.pointers[0].target == BASE + 0x1100,
              "pointer 0: %x -> %x", a.pointers[0].addr, a.pointers[0].target);
        CHECK(a.pointers[1].addr == BASE + 0x3044 && a.pointers[1].target == BASE + 0x1ffc,
              "pointer 1: %x -> %x", a.pointers[1].addr, a.pointers[1].target);
        CHECK(a.pointers[2].addr == BASE + 0x3100 && a.pointers[2].target == BASE + 0x1300,
              "pointer 2: %x -> %x", a.pointers[2].addr, a.pointers[2].target);
    }
    release(&im, &a, &e);
}

/* vtboot's shape: every file byte in the MLE, .bss after it: nothing flagged. */
static void test_vtboot_shape(void)
{
    static const struct sec vtboot_like[] = {
        { ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, BASE, 0x1800 },
        { ".rodata", SHT_PROGBITS, SHF_ALLOC, BASE + 0x1800, 0x800 },
        { ".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, BASE + 0x2000, 0x2000 },
    };
    struct elf e = build(0, 0x2000, 0x2000, 0x4000, vtboot_like, 3);
    struct mle_image im;
    struct mle_audit a;
    char err[256];

    put32(&e, BASE + 0x1900, BASE + 0x100);      /* a pointer to code inside the MLE: fine */
    int rc = audit(&e, &im, &a, err, sizeof(err));
    CHECK(rc == 0 && a.nentries == 1 && a.nflagged == 0 && a.flagged_bytes == 0 &&
          a.pointers_found == 0, "vtboot shape: %d '%s', %u entries, %u flagged", rc, err,
          a.nentries, a.nflagged);
    if (a.nentries == 1)
        CHECK(entry_is(&a.entries[0], ".bss", BASE + 0x2000, BASE + 0x4000, MLE_AUDIT_ZEROED),
              "the note: %s", a.entries[0].name);
    release(&im, &a, &e);
}

/* Bytes a segment loads outside the MLE that no section holds: nonzero ones are listed. */
static void test_bytes_in_no_section(void)
{
    static const struct sec secs[] = {
        { ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, BASE, 0x2000 },
        { ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, BASE + 0x2000, 0x10 },
        { ".data2", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, BASE + 0x2100, 0x10 },
    };
    struct elf e = build(0, 0x2000, 0x2200, 0x2200, secs, 3);
    struct mle_image im;
    struct mle_audit a;
    char err[256];

    put32(&e, BASE + 0x2080, BASE + 0x10);       /* between .data and .data2: a code pointer */
    put32(&e, BASE + 0x21f0, 0x12345678);        /* after .data2 */
    int rc = audit(&e, &im, &a, err, sizeof(err));
    CHECK(rc == 0 && a.nentries == 4, "no section: %d '%s', %u entries", rc, err, a.nentries);
    if (a.nentries == 4) {
        CHECK(entry_is(&a.entries[2], "segment 0", BASE + 0x2010, BASE + 0x2100,
                       MLE_AUDIT_INITIALIZED) && a.entries[2].is_segment &&
              a.entries[2].type == PT_LOAD, "piece 1: %s %x-%x", a.entries[2].name,
              a.entries[2].start, a.entries[2].end);
        CHECK(entry_is(&a.entries[3], "segment 0", BASE + 0x2110, BASE + 0x2200,
                       MLE_AUDIT_INITIALIZED), "piece 2: %x-%x", a.entries[3].start,
              a.entries[3].end);
    }
    CHECK(a.npointers == 1 && a.pointers[0].addr == BASE + 0x2080 &&
          a.pointers[0].target == BASE + 0x10, "the pointer between sections: %u",
          a.npointers);
    mle_audit_free(&a);
    mle_image_free(&im);

    /* the same bytes zero: padding, not listed */
    put32(&e, BASE + 0x2080, 0);
    put32(&e, BASE + 0x21f0, 0);
    rc = audit(&e, &im, &a, err, sizeof(err));
    CHECK(rc == 0 && a.nentries == 2 && a.nflagged == 2, "zero padding: %u entries",
          a.nentries);
    release(&im, &a, &e);
}

/* The first two entries: name's parts before and after an MLE at [BASE + 0x1000, + 0x2000),
 * of a section or segment spanning [BASE, BASE + 0x3000) or more. */
static void check_around(const struct mle_audit *a, const char *name)
{
    CHECK(entry_is(&a->entries[0], name, BASE, BASE + 0x1000, MLE_AUDIT_INITIALIZED),
          "%s before: %x-%x", name, a->entries[0].start, a->entries[0].end);
    CHECK(entry_is(&a->entries[1], name, BASE + 0x2000, BASE + 0x3000, MLE_AUDIT_INITIALIZED),
          "%s after: %x-%x", name, a->entries[1].start, a->entries[1].end);
}

/* No section headers: each segment's parts outside the MLE, the executable one's inside as
 * code. */
static void test_no_sections(void)
{
    struct elf e = build(0x1000, 0x2000, 0x3000, 0x5000, NULL, 0);
    struct mle_image im;
    struct mle_audit a;
    char err[256];

    ehdr(&e)->e_shnum = 0;
    ehdr(&e)->e_shoff = 0;
    ehdr(&e)->e_shstrndx = 0;
    put32(&e, BASE + 0x2800, BASE + 0x1800);
    int rc = audit(&e, &im, &a, err, sizeof(err));
    CHECK(rc == 0 && a.nentries == 3, "no sections: %d '%s', %u entries", rc, err, a.nentries);
    if (a.nentries == 3) {
        check_around(&a, "segment 0");
        CHECK(entry_is(&a.entries[2], "segment 0", BASE + 0x3000, BASE + 0x5000,
                       MLE_AUDIT_ZEROED), "zero-filled: %x-%x", a.entries[2].start,
              a.entries[2].end);
    }
    CHECK(a.pointers_found == 1 && a.pointers[0].addr == BASE + 0x2800 &&
          a.pointers[0].target == BASE + 0x1800, "pointer: %llu",
          (unsigned long long)a.pointers_found);
    release(&im, &a, &e);
}

/* A section around the whole MLE gives two entries, its parts before and after; the list of
 * pointers stops at MLE_AUDIT_POINTERS_MAX and the rest are counted. */
static void test_around_and_many(void)
{
    static const struct sec secs[] = {
        { ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR | SHF_WRITE, BASE, 0x3000 },
        { ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, BASE + 0x3000, 0x4008 },
    };
    struct elf e = build(0x1000, 0x2000, 0x7008, 0x7008, secs, 2);
    struct mle_image im;
    struct mle_audit a;
    char err[256];

    for (uint32_t i = 0; i < MLE_AUDIT_POINTERS_MAX + 2; i++)
        put32(&e, BASE + 0x3000 + 4 * i, BASE + 0x1100);
    int rc = audit(&e, &im, &a, err, sizeof(err));
    CHECK(rc == 0 && a.nentries == 3, "around: %d '%s', %u entries", rc, err, a.nentries);
    if (a.nentries == 3)
        check_around(&a, ".text");
    CHECK(a.npointers == MLE_AUDIT_POINTERS_MAX && a.pointers_found == MLE_AUDIT_POINTERS_MAX + 2,
          "many: %u listed, %llu found", a.npointers, (unsigned long long)a.pointers_found);
    CHECK(a.pointers[MLE_AUDIT_POINTERS_MAX - 1].addr == BASE + 0x3000 +
          4 * (MLE_AUDIT_POINTERS_MAX - 1), "the last listed: %x",
          a.pointers[MLE_AUDIT_POINTERS_MAX - 1].addr);
    release(&im, &a, &e);
}

static void test_malformed(void)
{
    struct elf e = tboot_image();
    Elf32_Ehdr saved = *ehdr(&e);
    Elf32_Shdr sec;

    ehdr(&e)->e_shentsize = 32;
    EXPECT_AUDIT_ERR(e, "section header size 32, expected 40");
    *ehdr(&e) = saved;
    ehdr(&e)->e_shoff = saved.e_shoff + 4;
    char want[160];
    snprintf(want, sizeof(want), "8 section headers at 0x%x lie outside the file",
             saved.e_shoff + 4);
    EXPECT_AUDIT_ERR(e, want);
    *ehdr(&e) = saved;
    ehdr(&e)->e_shnum = 0;
    snprintf(want, sizeof(want), "extended section numbering (e_shnum 0, e_shoff 0x%x) is not "
             "supported", saved.e_shoff);
    EXPECT_AUDIT_ERR(e, want);
    *ehdr(&e) = saved;
    ehdr(&e)->e_shstrndx = 8;
    EXPECT_AUDIT_ERR(e, "section name table index 8, only 8 sections");
    *ehdr(&e) = saved;
    ehdr(&e)->e_shstrndx = 3;
    EXPECT_AUDIT_ERR(e, "section 3, the section name table, is not a string table inside the "
                     "file");
    *ehdr(&e) = saved;

    sec = *shdr(&e, 7);                          /* .shstrtab: no NUL at its end */
    shdr(&e, 7)->sh_size--;
    EXPECT_AUDIT_ERR(e, "section 7, the section name table, is not a string table inside the "
                     "file");
    *shdr(&e, 7) = sec;
    sec = *shdr(&e, 2);
    shdr(&e, 2)->sh_name = shdr(&e, 7)->sh_size;
    snprintf(want, sizeof(want), "section 2: name at 0x%x outside the name table",
             shdr(&e, 7)->sh_size);
    EXPECT_AUDIT_ERR(e, want);
    *shdr(&e, 2) = sec;

    sec = *shdr(&e, 3);                          /* .data */
    shdr(&e, 3)->sh_addr = BASE + 0x3f80;
    EXPECT_AUDIT_ERR(e, "section 3 (.data) at 0x00103f80-0x00104080 lies outside the loaded "
                     "image 0x00100000-0x00104000");
    shdr(&e, 3)->sh_addr = BASE - 0x100;
    EXPECT_AUDIT_ERR(e, "section 3 (.data) at 0x000fff00-0x00100000 lies outside the loaded "
                     "image 0x00100000-0x00104000");
    *shdr(&e, 3) = sec;
    shdr(&e, 3)->sh_offset = (uint32_t)e.size - 0x80;
    EXPECT_AUDIT_ERR(e, "section 3 (.data) lies outside the file");
    *shdr(&e, 3) = sec;

    Elf32_Phdr *ph = (Elf32_Phdr *)(e.f + saved.e_phoff);
    ph->p_vaddr = 0xc0100000;
    EXPECT_AUDIT_ERR(e, "segment 0: virtual address 0xc0100000 differs from its physical "
                     "0x00100000: only images linked where they load are audited");
    ph->p_vaddr = BASE;

    /* cut short: the section headers are the file's last bytes */
    size_t full = e.size;
    e.size -= 1;
    snprintf(want, sizeof(want), "8 section headers at 0x%x lie outside the file",
             saved.e_shoff);
    EXPECT_AUDIT_ERR(e, want);
    e.size = full;

    /* and intact, it audits */
    struct mle_image im;
    struct mle_audit a;
    char err[256];
    CHECK(audit(&e, &im, &a, err, sizeof(err)) == 0, "restored: %s", err);
    release(&im, &a, &e);
}

static void test_syms_nm(void)
{
    char good[] = "00100000 T _start\n"
                  "00103040 D fp_table\n"
                  "         U undefined_one\n"
                  "00101100 t entry\n"
                  "00100000 T start\n"
                  "00103100 d g_policy\n";
    struct mle_syms s;
    char err[200];
    uint32_t off = 0xdead;

    int rc = mle_syms_from_nm(good, strlen(good), &s, err, sizeof(err));
    CHECK(rc == 0 && s.n == 5, "nm: %d '%s', %zu symbols", rc, rc ? err : "", s.n);
    const struct mle_sym *y = mle_syms_find(&s, BASE + 0x3048, &off);
    CHECK(y && !strcmp(y->name, "fp_table") && off == 8, "fp_table+8: %s +%x",
          y ? y->name : "-", off);
    y = mle_syms_find(&s, BASE + 0x1100, &off);
    CHECK(y && !strcmp(y->name, "entry") && off == 0, "entry: %s +%x", y ? y->name : "-", off);
    y = mle_syms_find(&s, BASE + 0x10, &off);
    CHECK(y && !strcmp(y->name, "_start") && off == 0x10, "first of equal: %s",
          y ? y->name : "-");
    CHECK(mle_syms_find(&s, BASE - 1, &off) == NULL, "below every symbol");
    y = mle_syms_find(&s, 0xffffffff, &off);
    CHECK(y && !strcmp(y->name, "g_policy") && off == 0xffffffff - (BASE + 0x3100),
          "above every symbol: %s", y ? y->name : "-");
    mle_syms_free(&s);

    static const struct { const char *text, *err; } bad[] = {
        { "00100000 T _start", "symbols line 1: no newline at its end" },
        { "00100000 T _start\n\n", "symbols line 2: expected \"ADDRESS TYPE NAME\"" },
        { "zz100000 T _start\n", "symbols line 1: expected \"ADDRESS TYPE NAME\"" },
        { "100000000 T big\n", "symbols line 1: address above 4 GiB" },
        { "00100000 T\n", "symbols line 1: expected \" TYPE NAME\" after the address" },
        { "00100000 TT name\n", "symbols line 1: expected \" TYPE NAME\" after the address" },
        { "00100000 1 name\n", "symbols line 1: expected \" TYPE NAME\" after the address" },
        { "00100000 T two words\n", "symbols line 1: a space or control character in the name" },
        { "00100000 T tab\tname\n", "symbols line 1: a space or control character in the name" },
        { "ok 1\n", "symbols line 1: expected \"ADDRESS TYPE NAME\"" },
        { "         T defined\n", "symbols line 1: no address, and not an undefined symbol" },
        { "0 T a\n         U\n", "symbols line 2: no address, and not an undefined symbol" },
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *t = strdup(bad[i].text);
        err[0] = 0;
        rc = mle_syms_from_nm(t, strlen(t), &s, err, sizeof(err));
        CHECK(rc == -1 && !strcmp(err, bad[i].err) && s.n == 0, "nm bad %u: %d '%s', want '%s'",
              i, rc, err, bad[i].err);
        free(t);
    }
}

/* .symtab: defined symbols by address; section, file and undefined symbols left out. */
static void test_syms_elf(void)
{
    static const struct sec secs[] = {
        { ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, BASE, 0x2000 },
        { ".symtab", SHT_SYMTAB, 0, 0, 0 },
        { ".strtab", SHT_STRTAB, 0, 0, 0 },
    };
    struct elf e = build(0, 0x2000, 0x2000, 0x2000, secs, 3);
    static const char names[] = "\0main\0file.c\0undef\0";
    Elf32_Sym syms[5] = {
        { 0 },
        { .st_name = 1, .st_value = BASE + 0x100, .st_info = ELF32_ST_INFO(STB_GLOBAL, STT_FUNC),
          .st_shndx = 1 },
        { .st_name = 6, .st_info = ELF32_ST_INFO(STB_LOCAL, STT_FILE), .st_shndx = SHN_ABS },
        { .st_name = 13, .st_value = BASE + 0x80, .st_shndx = SHN_UNDEF },
        { .st_name = 0, .st_value = BASE, .st_info = ELF32_ST_INFO(STB_LOCAL, STT_SECTION),
          .st_shndx = 1 },
    };
    uint32_t at = (uint32_t)e.size;
    memcpy(e.f + at, syms, sizeof(syms));
    memcpy(e.f + at + sizeof(syms), names, sizeof(names));
    *shdr(&e, 2) = (Elf32_Shdr){ .sh_type = SHT_SYMTAB, .sh_offset = at, .sh_size = sizeof(syms),
                                 .sh_link = 3, .sh_entsize = sizeof(Elf32_Sym),
                                 .sh_name = shdr(&e, 2)->sh_name };
    *shdr(&e, 3) = (Elf32_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = at + sizeof(syms),
                                 .sh_size = sizeof(names), .sh_name = shdr(&e, 3)->sh_name };
    e.size = at + sizeof(syms) + sizeof(names);

    struct mle_image im;
    struct mle_syms s;
    char err[200];
    uint8_t *copy = malloc(e.size);
    memcpy(copy, e.f, e.size);
    CHECK(mle_image_parse(copy, e.size, &im, err, sizeof(err)) == 0, "parse: %s", err);
    int rc = mle_syms_from_elf(&im, &s, err, sizeof(err));
    CHECK(rc == 0 && s.n == 1 && !strcmp(s.v[0].name, "main") && s.v[0].addr == BASE + 0x100,
          ".symtab: %d '%s', %zu symbols", rc, rc ? err : "", s.n);
    mle_syms_free(&s);

    Elf32_Shdr *sym = (Elf32_Shdr *)(im.file + ehdr(&e)->e_shoff) + 2;
    sym->sh_entsize = 12;
    rc = mle_syms_from_elf(&im, &s, err, sizeof(err));
    CHECK(rc == -1 && !strcmp(err, "section 2: a malformed symbol table"), "entsize: '%s'", err);
    sym->sh_entsize = sizeof(Elf32_Sym);
    sym->sh_link = 1;
    rc = mle_syms_from_elf(&im, &s, err, sizeof(err));
    CHECK(rc == -1 && !strcmp(err, "section 2: symbol names in section 1, not a string table "
                              "inside the file"), "link: '%s'", err);
    sym->sh_link = 3;
    store_le32(im.file + at + sizeof(Elf32_Sym), sizeof(names));
    rc = mle_syms_from_elf(&im, &s, err, sizeof(err));
    char want[100];
    snprintf(want, sizeof(want), "symbol 1: name at 0x%zx outside its string table",
             sizeof(names));
    CHECK(rc == -1 && !strcmp(err, want), "name: '%s'", err);
    mle_image_free(&im);
    free(e.f);
}

void test_mleaudit(void)
{
    test_tboot_shape();
    test_vtboot_shape();
    test_bytes_in_no_section();
    test_no_sections();
    test_around_and_many();
    test_malformed();
    test_syms_nm();
    test_syms_elf();
}
