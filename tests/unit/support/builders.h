/* SPDX-License-Identifier: MIT */
/*
 * Builders for what a loader or firmware leaves in memory: multiboot1/2 information, bzImage
 * headers, ACPI tables with correct checksums. Fields are written at byte offsets taken from
 * the specifications, not through include/abi/, so a wrong ABI header shows up as a failing
 * test. Used by the unit tests and by the fuzzers' seed generator (no cmocka here).
 */
#ifndef TESTS_BUILDERS_H
#define TESTS_BUILDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* little-endian accessors on byte buffers */
static inline void put8(void *p, size_t off, uint8_t v) { ((uint8_t *)p)[off] = v; }
static inline void put16(void *p, size_t off, uint16_t v)
{
    uint8_t *b = (uint8_t *)p + off;
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}
static inline void put32(void *p, size_t off, uint32_t v)
{
    put16(p, off, (uint16_t)v);
    put16(p, off + 2, (uint16_t)(v >> 16));
}
static inline void put64(void *p, size_t off, uint64_t v)
{
    put32(p, off, (uint32_t)v);
    put32(p, off + 4, (uint32_t)(v >> 32));
}
static inline uint8_t get8(const void *p, size_t off) { return ((const uint8_t *)p)[off]; }
static inline uint16_t get16(const void *p, size_t off)
{
    const uint8_t *b = (const uint8_t *)p + off;
    return (uint16_t)(b[0] | b[1] << 8);
}
static inline uint32_t get32(const void *p, size_t off)
{
    return get16(p, off) | (uint32_t)get16(p, off + 2) << 16;
}
static inline uint64_t get64(const void *p, size_t off)
{
    return get32(p, off) | (uint64_t)get32(p, off + 4) << 32;
}

/* ---- guest memory: a bump allocator over a buffer that stands for [base, base + size) ---- */

struct gmem {
    uint64_t base;
    uint8_t *buf;
    size_t size;
    size_t used;
};

void gmem_init(struct gmem *g, uint64_t base, void *buf, size_t size);
/* Reserves len bytes aligned to align (a power of two); returns the guest address. Aborts
 * when the buffer is full. */
uint64_t gmem_alloc(struct gmem *g, size_t len, size_t align);
uint64_t gmem_put(struct gmem *g, const void *data, size_t len, size_t align);
uint64_t gmem_str(struct gmem *g, const char *s);
void *gmem_ptr(const struct gmem *g, uint64_t addr);

/* ---- a growable byte string ---- */

struct blob {
    uint8_t *p;
    size_t len, cap;
};

void blob_put(struct blob *b, const void *data, size_t len);
void blob_zero(struct blob *b, size_t len);
void blob_align(struct blob *b, size_t align);
void blob_free(struct blob *b);

/* ---- multiboot1 ---- */

#define MB1_SPEC_MAX 24

struct mb1_spec {
    const char *cmdline;             /* NULL: no cmdline flag */
    const char *loader_name;         /* NULL: no loader name flag */
    bool meminfo;
    uint32_t mem_lower, mem_upper;
    bool mods;                       /* set the mods flag (also with nmods == 0) */
    unsigned nmods;
    struct { uint32_t start, end; const char *string; } mod[MB1_SPEC_MAX];
    bool mmap;
    unsigned nmmap;
    struct { uint64_t addr, len; uint32_t type; } mm[MB1_SPEC_MAX];
};

/* Lays out the info structure (first, at the current allocation point) and everything it
 * points to in g; returns the info's guest address. */
uint32_t mb1_build(struct gmem *g, const struct mb1_spec *s);

/* ---- multiboot2: tags appended to a blob, which the test then places in memory ---- */

void mb2_begin(struct blob *b);
/* Appends a tag of size 8 + len (padding to 8 follows); returns its offset in the blob. */
size_t mb2_tag(struct blob *b, uint32_t type, const void *payload, size_t len);
size_t mb2_tag_string(struct blob *b, uint32_t type, const char *s);
size_t mb2_tag_module(struct blob *b, uint32_t start, uint32_t end, const char *s);
size_t mb2_tag_meminfo(struct blob *b, uint32_t lower, uint32_t upper);
struct mb2_ent { uint64_t addr, len; uint32_t type; };
size_t mb2_tag_mmap(struct blob *b, const struct mb2_ent *e, unsigned n, uint32_t entry_size);
/* Appends the end tag and sets total_size. */
void mb2_finish(struct blob *b);

/* ---- bzImage ---- */

struct bz_spec {
    uint8_t setup_sects;
    uint16_t version;
    uint8_t loadflags;
    uint16_t jump;                   /* 0x200: 0x6aeb = "jmp +0x6a", Linux 6.1 */
    uint32_t pm_size;                /* bytes of protected-mode part in the file */
    uint32_t syssize;                /* 0: pm_size / 16 rounded up */
    uint8_t relocatable;
    uint32_t kernel_alignment;
    uint64_t pref_address;
    uint32_t init_size;
    uint32_t cmdline_size;
    uint32_t initrd_addr_max;
    uint16_t xloadflags;
};

/* A Linux 6.1 x86_64-like header: protocol 2.15, relocatable, 2 MiB alignment, pref 16 MiB. */
void bz_spec_default(struct bz_spec *s);
/* Writes the image into a fresh buffer (caller frees); *size is its length. */
uint8_t *bz_build(const struct bz_spec *s, size_t *size);

/* ---- ACPI ---- */

void acpi_fix_checksum(void *table, size_t len, size_t csum_off);
/* An SDT with header (length = 36 + body_len, checksum fixed); returns its address. */
uint64_t acpi_put_table(struct gmem *g, const char sig[4], uint8_t rev, const void *body,
                        size_t body_len);
/* RSDP at a 16-aligned address: rev 0 (20 bytes) or 2 (36 bytes, both checksums). */
uint64_t acpi_put_rsdp(struct gmem *g, uint8_t rev, uint32_t rsdt, uint64_t xsdt);

struct acpi_layout {
    uint64_t rsdp, rsdt, xsdt, fadt, facs, dsdt;
};

enum acpi_flavour {
    ACPI_QEMU_PC,                    /* i440fx: RSDP 0, RSDT, FADT rev 1 (116 bytes) */
    ACPI_QEMU_Q35,                   /* RSDP 0, RSDT, FADT rev 3 (244 bytes), reset 0xcf9 */
    ACPI_XSDT_ONLY,                  /* RSDP 2, XSDT, FADT rev 5 with X_ blocks in memory space */
};

/* QEMU's \_S5: Name(_S5, Package(4) {0, 0, 0, 0}) */
extern const uint8_t aml_qemu_s5[12];

/* Builds a consistent table set in g. The RSDP goes to rsdp_g (may be g). */
struct acpi_layout acpi_build(struct gmem *g, struct gmem *rsdp_g, enum acpi_flavour f);

#endif
