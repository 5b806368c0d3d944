/* SPDX-License-Identifier: MIT */
#include "abi/multiboot1.h"
#include "abi/multiboot2.h"
#include "abi/multiboot_kernel.h"
#include "lib/format.h"
#include "lib/string.h"
#include "mbkernel/mbinfo.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/* mb1_info up to and including the framebuffer fields (116 bytes), zeroed: the flags say which
 * are valid */
#define MB1_INFO_SPACE 120u

struct out {
    uint8_t *buf;
    uint32_t cap, used, phys;
    bool full;
};

/* Reserves len bytes at the next multiple of align; NULL (and full) when they do not fit. */
static void *take(struct out *o, uint32_t len, uint32_t align)
{
    uint32_t at = (o->used + align - 1) & ~(align - 1);
    if (o->full || at > o->cap || len > o->cap - at) {
        o->full = true;
        return 0;
    }
    memset(o->buf + o->used, 0, at - o->used + len);
    o->used = at + len;
    return o->buf + at;
}

static uint32_t addr_of(const struct out *o, const void *p)
{
    return o->phys + (uint32_t)((const uint8_t *)p - o->buf);
}

static uint32_t put_string(struct out *o, const char *s)
{
    uint32_t len = (uint32_t)strlen(s) + 1;
    char *d = take(o, len, 1);
    if (!d)
        return 0;
    memcpy(d, s, len);
    return addr_of(o, d);
}

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

void mbi_meminfo(const struct e820_map *map, uint32_t *lower_kb, uint32_t *upper_kb)
{
    uint64_t lower = 0, upper = 0x100000;
    for (unsigned i = 0; i < map->nr; i++) {
        const struct e820_entry *e = &map->e[i];
        if (e->type != E820_TYPE_RAM)
            continue;
        if (e->addr <= lower && e->addr + e->size > lower)
            lower = e->addr + e->size;
        if (e->addr <= upper && e->addr + e->size > upper)
            upper = e->addr + e->size;
    }
    if (lower > 0xa0000)
        lower = 0xa0000;
    *lower_kb = (uint32_t)(lower >> 10);
    upper = (upper - 0x100000) >> 10;
    *upper_kb = upper > 0xffffffffu ? 0xffffffffu : (uint32_t)upper;
}

static void meminfo(const struct mbi_input *in, uint32_t *lower, uint32_t *upper)
{
    if (in->have_meminfo) {
        *lower = in->mem_lower_kb;
        *upper = in->mem_upper_kb;
    } else {
        mbi_meminfo(in->map, lower, upper);
    }
}

static int build_mb1(const struct mbi_input *in, struct out *o, char *err, unsigned errlen)
{
    uint8_t *info = take(o, MB1_INFO_SPACE, 8);
    uint32_t flags = MB1_INFO_MEMORY | MB1_INFO_CMDLINE | MB1_INFO_MODS | MB1_INFO_MEM_MAP;
    uint32_t lower, upper;

    if (!info)
        FAIL("the multiboot1 information does not fit in %u bytes", o->cap);
    meminfo(in, &lower, &upper);
    uint8_t *mods = in->nr_modules ? take(o, 16 * in->nr_modules, 4) : 0;
    uint8_t *mmap = in->map->nr ? take(o, 24 * in->map->nr, 4) : 0;
    for (unsigned i = 0; i < in->map->nr && mmap; i++) {
        uint8_t *e = mmap + 24 * i;
        put32(e, 20);                /* size, not counting itself */
        put64(e + 4, in->map->e[i].addr);
        put64(e + 12, in->map->e[i].size);
        put32(e + 20, in->map->e[i].type);
    }
    uint32_t cmdline = put_string(o, in->cmdline ? in->cmdline : "");
    for (unsigned i = 0; i < in->nr_modules && mods; i++) {
        uint8_t *m = mods + 16 * i;
        put32(m, in->modules[i].start);
        put32(m + 4, in->modules[i].end);
        put32(m + 8, put_string(o, in->modules[i].string ? in->modules[i].string : ""));
        put32(m + 12, 0);
    }
    uint32_t name = 0;
    if (in->loader_name && *in->loader_name) {
        name = put_string(o, in->loader_name);
        flags |= MB1_INFO_LOADER_NAME;
    }
    if (o->full)
        FAIL("the multiboot1 information does not fit in %u bytes", o->cap);
    struct mb1_info *mbi = (struct mb1_info *)info;
    mbi->flags = flags;
    mbi->mem_lower = lower;
    mbi->mem_upper = upper;
    mbi->cmdline = cmdline;
    mbi->mods_count = in->nr_modules;
    mbi->mods_addr = mods ? addr_of(o, mods) : 0;
    mbi->mmap_length = 24 * in->map->nr;
    mbi->mmap_addr = mmap ? addr_of(o, mmap) : 0;
    mbi->boot_loader_name = name;
    return 0;
}

static uint8_t *tag(struct out *o, uint32_t type, uint32_t size)
{
    uint8_t *t = take(o, size, MB2_TAG_ALIGN);
    if (t) {
        put32(t, type);
        put32(t + 4, size);
    }
    return t;
}

static void tag_string(struct out *o, uint32_t type, const char *s)
{
    uint32_t len = (uint32_t)strlen(s) + 1;
    uint8_t *t = tag(o, type, 8 + len);
    if (t)
        memcpy(t + 8, s, len);
}

static int build_mb2(const struct mbi_input *in, uint32_t required, struct out *o, char *err,
                     unsigned errlen)
{
    uint32_t provided = 0, lower, upper;
    uint8_t *hdr = take(o, 8, MB2_TAG_ALIGN), *t;

    if (!hdr)
        FAIL("the multiboot2 information does not fit in %u bytes", o->cap);
    tag_string(o, MB2_TAG_CMDLINE, in->cmdline ? in->cmdline : "");
    provided |= 1u << MB2_TAG_CMDLINE;
    if (in->loader_name && *in->loader_name) {
        tag_string(o, MB2_TAG_LOADER_NAME, in->loader_name);
        provided |= 1u << MB2_TAG_LOADER_NAME;
    }
    meminfo(in, &lower, &upper);
    if ((t = tag(o, MB2_TAG_BASIC_MEMINFO, 16))) {
        put32(t + 8, lower);
        put32(t + 12, upper);
    }
    provided |= 1u << MB2_TAG_BASIC_MEMINFO;
    if ((t = tag(o, MB2_TAG_MMAP, 16 + 24 * in->map->nr))) {
        put32(t + 8, 24);            /* entry_size */
        put32(t + 12, 0);            /* entry_version */
        for (unsigned i = 0; i < in->map->nr; i++) {
            uint8_t *e = t + 16 + 24 * i;
            put64(e, in->map->e[i].addr);
            put64(e + 8, in->map->e[i].size);
            put32(e + 16, in->map->e[i].type);
            put32(e + 20, 0);
        }
    }
    provided |= 1u << MB2_TAG_MMAP;
    for (unsigned i = 0; i < in->nr_modules; i++) {
        const char *s = in->modules[i].string ? in->modules[i].string : "";
        uint32_t len = (uint32_t)strlen(s) + 1;
        if ((t = tag(o, MB2_TAG_MODULE, 16 + len))) {
            put32(t + 8, in->modules[i].start);
            put32(t + 12, in->modules[i].end);
            memcpy(t + 16, s, len);
        }
    }
    provided |= 1u << MB2_TAG_MODULE;
    if (in->rsdp && in->rsdp_len >= 20) {
        if ((t = tag(o, MB2_TAG_ACPI_OLD, 8 + 20)))
            memcpy(t + 8, in->rsdp, 20);
        provided |= 1u << MB2_TAG_ACPI_OLD;
        if (in->rsdp_len >= 36) {
            if ((t = tag(o, MB2_TAG_ACPI_NEW, 8 + 36)))
                memcpy(t + 8, in->rsdp, 36);
            provided |= 1u << MB2_TAG_ACPI_NEW;
        }
    }
    if ((t = tag(o, MB2_TAG_LOAD_BASE_ADDR, 12)))
        put32(t + 8, in->load_base);
    provided |= 1u << MB2_TAG_LOAD_BASE_ADDR;
    tag(o, MB2_TAG_END, 8);
    if (o->full)
        FAIL("the multiboot2 information does not fit in %u bytes", o->cap);
    if (required & ~provided) {
        uint32_t missing = required & ~provided;
        unsigned type = 0;
        while (!(missing & (1u << type)))
            type++;
        FAIL("the kernel requires multiboot2 information tag type %u, which the loader did not "
             "give vtboot%s", type,
             type == MB2_TAG_ACPI_OLD || type == MB2_TAG_ACPI_NEW ? " (no ACPI RSDP copy)" : "");
    }
    put32(hdr, o->used);
    put32(hdr + 4, 0);
    return 0;
}

int mbi_build(enum boot_protocol proto, const struct mbi_input *in, uint32_t required_tags,
              void *buf, uint32_t cap, uint32_t phys, uint32_t *size, char *err, unsigned errlen)
{
    struct out o = { buf, cap, 0, phys, false };

    if (phys & 7)
        FAIL("boot information at 0x%x is not 8-byte aligned", phys);
    if ((uint64_t)phys + cap > 0x100000000ull)
        FAIL("boot information at 0x%x+0x%x reaches beyond 4 GiB", phys, cap);
    for (unsigned i = 0; i < in->nr_modules; i++)
        if (in->modules[i].end < in->modules[i].start)
            FAIL("module %u ends (0x%x) below its start (0x%x)", i, in->modules[i].end,
                 in->modules[i].start);
    int rc = proto == BOOT_MULTIBOOT2 ? build_mb2(in, required_tags, &o, err, errlen)
                                      : build_mb1(in, &o, err, errlen);
    if (rc)
        return -1;
    *size = o.used;
    return 0;
}
