/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builders.h"

static void die(const char *what)
{
    fprintf(stderr, "builders: %s\n", what);
    abort();
}

/* ---- guest memory ---- */

void gmem_init(struct gmem *g, uint64_t base, void *buf, size_t size)
{
    g->base = base;
    g->buf = buf;
    g->size = size;
    g->used = 0;
}

uint64_t gmem_alloc(struct gmem *g, size_t len, size_t align)
{
    size_t at = (g->used + align - 1) & ~(align - 1);
    if (at > g->size || len > g->size - at)
        die("guest memory window full");
    g->used = at + len;
    return g->base + at;
}

uint64_t gmem_put(struct gmem *g, const void *data, size_t len, size_t align)
{
    uint64_t a = gmem_alloc(g, len, align);
    memcpy(gmem_ptr(g, a), data, len);
    return a;
}

uint64_t gmem_str(struct gmem *g, const char *s)
{
    return gmem_put(g, s, strlen(s) + 1, 1);
}

void *gmem_ptr(const struct gmem *g, uint64_t addr)
{
    if (addr < g->base || addr - g->base > g->size)
        die("address outside the guest memory window");
    return g->buf + (addr - g->base);
}

/* ---- blob ---- */

static void blob_room(struct blob *b, size_t len)
{
    if (b->cap - b->len >= len)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < len)
        cap *= 2;
    b->p = realloc(b->p, cap);
    if (!b->p)
        die("out of memory");
    b->cap = cap;
}

void blob_put(struct blob *b, const void *data, size_t len)
{
    blob_room(b, len);
    memcpy(b->p + b->len, data, len);
    b->len += len;
}

void blob_zero(struct blob *b, size_t len)
{
    blob_room(b, len);
    memset(b->p + b->len, 0, len);
    b->len += len;
}

void blob_align(struct blob *b, size_t align)
{
    blob_zero(b, (align - b->len % align) % align);
}

void blob_free(struct blob *b)
{
    free(b->p);
    *b = (struct blob){ 0 };
}

/* ---- multiboot1 (Multiboot Specification 0.6.96, section 3.3) ---- */

uint32_t mb1_build(struct gmem *g, const struct mb1_spec *s)
{
    uint32_t info = (uint32_t)gmem_alloc(g, 88, 8);
    uint8_t *p = gmem_ptr(g, info);
    uint32_t flags = 0;

    memset(p, 0, 88);
    if (s->meminfo) {
        flags |= 1u << 0;
        put32(p, 4, s->mem_lower);
        put32(p, 8, s->mem_upper);
    }
    if (s->cmdline) {
        flags |= 1u << 2;
        put32(p, 16, (uint32_t)gmem_str(g, s->cmdline));
    }
    if (s->mods || s->nmods) {
        flags |= 1u << 3;
        uint32_t mods = (uint32_t)gmem_alloc(g, 16u * s->nmods, 4);
        put32(p, 20, s->nmods);
        put32(p, 24, mods);
        for (unsigned i = 0; i < s->nmods; i++) {
            uint8_t *m = gmem_ptr(g, mods + 16u * i);
            put32(m, 0, s->mod[i].start);
            put32(m, 4, s->mod[i].end);
            put32(m, 8, s->mod[i].string ? (uint32_t)gmem_str(g, s->mod[i].string) : 0);
            put32(m, 12, 0);
        }
    }
    if (s->mmap || s->nmmap) {
        flags |= 1u << 6;
        uint32_t mm = (uint32_t)gmem_alloc(g, 24u * s->nmmap, 4);
        put32(p, 44, 24u * s->nmmap);
        put32(p, 48, mm);
        for (unsigned i = 0; i < s->nmmap; i++) {
            uint8_t *e = gmem_ptr(g, mm + 24u * i);
            put32(e, 0, 20);
            put64(e, 4, s->mm[i].addr);
            put64(e, 12, s->mm[i].len);
            put32(e, 20, s->mm[i].type);
        }
    }
    if (s->loader_name) {
        flags |= 1u << 9;
        put32(p, 64, (uint32_t)gmem_str(g, s->loader_name));
    }
    put32(p, 0, flags);
    return info;
}

/* ---- multiboot2 (Multiboot2 Specification 2.0, section 3.6) ---- */

void mb2_begin(struct blob *b)
{
    b->len = 0;
    blob_zero(b, 8);                 /* total_size, reserved */
}

size_t mb2_tag(struct blob *b, uint32_t type, const void *payload, size_t len)
{
    uint8_t hdr[8];
    size_t off = b->len;
    put32(hdr, 0, type);
    put32(hdr, 4, (uint32_t)(8 + len));
    blob_put(b, hdr, 8);
    if (len)
        blob_put(b, payload, len);
    blob_align(b, 8);
    return off;
}

size_t mb2_tag_string(struct blob *b, uint32_t type, const char *s)
{
    return mb2_tag(b, type, s, strlen(s) + 1);
}

size_t mb2_tag_module(struct blob *b, uint32_t start, uint32_t end, const char *s)
{
    size_t n = strlen(s) + 1;
    uint8_t *pl = malloc(8 + n);
    if (!pl)
        die("out of memory");
    put32(pl, 0, start);
    put32(pl, 4, end);
    memcpy(pl + 8, s, n);
    size_t off = mb2_tag(b, 3, pl, 8 + n);
    free(pl);
    return off;
}

size_t mb2_tag_meminfo(struct blob *b, uint32_t lower, uint32_t upper)
{
    uint8_t pl[8];
    put32(pl, 0, lower);
    put32(pl, 4, upper);
    return mb2_tag(b, 4, pl, 8);
}

size_t mb2_tag_mmap(struct blob *b, const struct mb2_ent *e, unsigned n, uint32_t entry_size)
{
    size_t len = 8 + (size_t)n * entry_size;
    uint8_t *pl = calloc(1, len);
    if (!pl)
        die("out of memory");
    put32(pl, 0, entry_size);
    put32(pl, 4, 0);
    for (unsigned i = 0; i < n; i++) {
        uint8_t *x = pl + 8 + (size_t)i * entry_size;
        put64(x, 0, e[i].addr);
        put64(x, 8, e[i].len);
        put32(x, 16, e[i].type);
    }
    size_t off = mb2_tag(b, 6, pl, len);
    free(pl);
    return off;
}

void mb2_finish(struct blob *b)
{
    mb2_tag(b, 0, NULL, 0);
    put32(b->p, 0, (uint32_t)b->len);
}

/* ---- bzImage (Documentation/x86/boot.rst) ---- */

void bz_spec_default(struct bz_spec *s)
{
    *s = (struct bz_spec){
        .setup_sects = 4,
        .version = 0x020f,
        .loadflags = 0x01,
        .jump = 0x6aeb,
        .pm_size = 0x3000,
        .relocatable = 1,
        .kernel_alignment = 0x200000,
        .pref_address = 0x1000000,
        .init_size = 0x800000,
        .cmdline_size = 2047,
        .initrd_addr_max = 0x7fffffff,
        .xloadflags = 0x3,
    };
}

uint8_t *bz_build(const struct bz_spec *s, size_t *size)
{
    size_t setup = ((size_t)(s->setup_sects ? s->setup_sects : 4) + 1) * 512;
    size_t n = setup + s->pm_size;
    if (n < 0x26c)
        n = 0x26c;
    uint8_t *p = calloc(1, n);
    if (!p)
        die("out of memory");
    for (size_t i = setup; i < setup + s->pm_size; i++)
        p[i] = (uint8_t)(i * 7 + 3);
    put8(p, 0x1f1, s->setup_sects);
    put32(p, 0x1f4, s->syssize ? s->syssize : (s->pm_size + 15) / 16);
    put16(p, 0x1fa, 0xffff);
    put16(p, 0x1fe, 0xaa55);
    put16(p, 0x200, s->jump);
    memcpy(p + 0x202, "HdrS", 4);
    put16(p, 0x206, s->version);
    put16(p, 0x20e, 0x200);          /* kernel_version string pointer */
    put8(p, 0x211, s->loadflags);
    put32(p, 0x214, 0x100000);
    put32(p, 0x22c, s->initrd_addr_max);
    put32(p, 0x230, s->kernel_alignment);
    put8(p, 0x234, s->relocatable);
    put8(p, 0x235, 21);
    put16(p, 0x236, s->xloadflags);
    put32(p, 0x238, s->cmdline_size);
    put64(p, 0x258, s->pref_address);
    put32(p, 0x260, s->init_size);
    put32(p, 0x264, 0x190);
    put32(p, 0x268, 0x1234);
    *size = n;
    return p;
}

/* ---- ACPI (ACPI 6.4, sections 5.2.5 - 5.2.11) ---- */

void acpi_fix_checksum(void *table, size_t len, size_t csum_off)
{
    uint8_t *t = table, sum = 0;
    t[csum_off] = 0;
    for (size_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + t[i]);
    t[csum_off] = (uint8_t)-sum;
}

uint64_t acpi_put_table(struct gmem *g, const char sig[4], uint8_t rev, const void *body,
                        size_t body_len)
{
    uint64_t a = gmem_alloc(g, 36 + body_len, 16);
    uint8_t *t = gmem_ptr(g, a);
    memset(t, 0, 36);
    memcpy(t, sig, 4);
    put32(t, 4, (uint32_t)(36 + body_len));
    put8(t, 8, rev);
    memcpy(t + 10, "BOCHS ", 6);
    memcpy(t + 16, "BXPC    ", 8);
    put32(t, 24, 1);
    memcpy(t + 28, "BXPC", 4);
    put32(t, 32, 1);
    if (body_len)
        memcpy(t + 36, body, body_len);
    acpi_fix_checksum(t, 36 + body_len, 9);
    return a;
}

uint64_t acpi_put_rsdp(struct gmem *g, uint8_t rev, uint32_t rsdt, uint64_t xsdt)
{
    uint64_t a = gmem_alloc(g, 36, 16);
    uint8_t *r = gmem_ptr(g, a);
    memset(r, 0, 36);
    memcpy(r, "RSD PTR ", 8);
    memcpy(r + 9, "BOCHS ", 6);
    put8(r, 15, rev);
    put32(r, 16, rsdt);
    if (rev >= 2) {
        put32(r, 20, 36);
        put64(r, 24, xsdt);
        acpi_fix_checksum(r, 36, 32);
    }
    acpi_fix_checksum(r, 20, 8);
    if (rev >= 2)
        acpi_fix_checksum(r, 36, 32);
    return a;
}

const uint8_t aml_qemu_s5[12] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04,
                                  0x00, 0x00, 0x00, 0x00 };

/* Name(\_S5, Package(4) {5, 7, 0, 0}), with a root prefix and BytePrefix values */
static const uint8_t aml_s5_bytes[] = { 0x08, '\\', '_', 'S', '5', '_', 0x12, 0x0a, 0x04,
                                        0x0a, 0x05, 0x0a, 0x07, 0x00, 0x00 };

static void gas(uint8_t *f, size_t off, uint8_t space, uint8_t width, uint8_t access,
                uint64_t addr)
{
    put8(f, off, space);
    put8(f, off + 1, width);
    put8(f, off + 2, 0);
    put8(f, off + 3, access);
    put64(f, off + 4, addr);
}

struct acpi_layout acpi_build(struct gmem *g, struct gmem *rsdp_g, enum acpi_flavour fl)
{
    struct acpi_layout l = { 0 };
    /* some AML before \_S5: a Scope(\_SB) header and a few name bytes */
    uint8_t dsdt[64];
    const uint8_t pre[] = { 0x10, 0x05, '\\', '_', 'S', 'B', '_', 0x5b, 0x80, 'P', 'C', 'I', '0' };
    size_t n = 0;
    memcpy(dsdt, pre, sizeof(pre));
    n += sizeof(pre);
    if (fl == ACPI_XSDT_ONLY) {
        memcpy(dsdt + n, aml_s5_bytes, sizeof(aml_s5_bytes));
        n += sizeof(aml_s5_bytes);
    } else {
        memcpy(dsdt + n, aml_qemu_s5, sizeof(aml_qemu_s5));
        n += sizeof(aml_qemu_s5);
    }
    dsdt[n++] = 0xa3;                /* NoopOp */
    l.dsdt = acpi_put_table(g, "DSDT", 1, dsdt, n);

    l.facs = gmem_alloc(g, 64, 64);
    uint8_t *facs = gmem_ptr(g, l.facs);
    memset(facs, 0, 64);
    memcpy(facs, "FACS", 4);
    put32(facs, 4, 64);

    uint8_t f[244 - 36 + 36];        /* whole table; the header is rewritten by put_table */
    memset(f, 0, sizeof(f));
    size_t flen;
    uint8_t rev;
    switch (fl) {
    case ACPI_QEMU_PC:
        flen = 116;
        rev = 1;
        put32(f, 36, (uint32_t)l.facs);
        put32(f, 40, (uint32_t)l.dsdt);
        put16(f, 46, 9);             /* SCI_INT */
        put32(f, 48, 0xb2);          /* SMI_CMD */
        put32(f, 56, 0x600);         /* PM1a_EVT_BLK */
        put32(f, 64, 0x604);         /* PM1a_CNT_BLK */
        put32(f, 76, 0x608);         /* PM_TMR_BLK */
        put8(f, 88, 4);
        put8(f, 89, 2);
        put8(f, 91, 4);
        put32(f, 112, 0x84a5);       /* includes RESET_REG_SUP, but no room for RESET_REG */
        break;
    case ACPI_QEMU_Q35:
        flen = 244;
        rev = 3;
        put32(f, 36, (uint32_t)l.facs);
        put32(f, 40, (uint32_t)l.dsdt);
        put32(f, 56, 0x600);
        put32(f, 64, 0x604);
        put32(f, 76, 0x608);
        put8(f, 88, 4);
        put8(f, 89, 2);
        put8(f, 91, 4);
        put32(f, 112, 0x84a5);
        gas(f, 116, 1, 8, 0, 0xcf9); /* RESET_REG */
        put8(f, 128, 0x0f);
        put64(f, 140, l.dsdt);       /* X_DSDT */
        gas(f, 148, 1, 32, 0, 0x600);
        gas(f, 172, 1, 16, 0, 0x604);
        break;
    default:
        flen = 244;
        rev = 5;
        put32(f, 112, 0x400);        /* RESET_REG_SUP */
        gas(f, 116, 0, 8, 1, 0xfee00cf9ull);
        put8(f, 128, 0x06);
        put64(f, 132, l.facs);       /* X_FIRMWARE_CTRL */
        put64(f, 140, l.dsdt);
        gas(f, 148, 0, 32, 3, 0xfed00000ull);
        gas(f, 160, 0, 32, 3, 0xfed00100ull);
        gas(f, 172, 0, 16, 2, 0xfed00004ull);
        gas(f, 184, 0, 16, 2, 0xfed00104ull);
        break;
    }
    l.fadt = acpi_put_table(g, "FACP", rev, f + 36, flen - 36);

    if (fl == ACPI_XSDT_ONLY) {
        uint8_t x[16];
        put64(x, 0, 0xdead0000ull);  /* an entry that points at nothing: skipped */
        put64(x, 8, l.fadt);
        l.xsdt = acpi_put_table(g, "XSDT", 1, x, sizeof(x));
        l.rsdp = acpi_put_rsdp(rsdp_g, 2, 0, l.xsdt);
    } else {
        uint8_t r[8];
        put32(r, 0, (uint32_t)l.facs); /* FACS has no SDT checksum: not a FACP, skipped */
        put32(r, 4, (uint32_t)l.fadt);
        l.rsdt = acpi_put_table(g, "RSDT", 1, r, sizeof(r));
        l.rsdp = acpi_put_rsdp(rsdp_g, 0, (uint32_t)l.rsdt, 0);
    }
    return l;
}
