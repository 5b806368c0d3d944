/* SPDX-License-Identifier: MIT */
/*
 * Multiboot1 and multiboot2 boot information, validated field by field and copied into a
 * struct boot_info. Nothing here trusts a length, address or string terminator it was given.
 */
#include "abi/multiboot1.h"
#include "abi/multiboot2.h"
#include "boot/bootinfo.h"
#include "lib/format.h"
#include "lib/phys.h"
#include "lib/string.h"

#define MB2_INFO_MAX (1u << 20)       /* no sane loader builds a bigger MBI */
#define MB1_MMAP_MAX (E820_MAP_MAX * 64u)

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/*
 * Copies the NUL-terminated string at physical `addr` (at most `max` bytes including the NUL)
 * into dst. Returns its length, -1 if unterminated within max, -2 if unaddressable.
 */
static int copy_phys_string(uint64_t addr, unsigned max, char *dst)
{
    for (unsigned i = 0; i < max; i++) {
        const char *c = phys_map(addr + i, 1);
        if (!c)
            return -2;
        dst[i] = *c;
        if (!*c)
            return (int)i;
    }
    return -1;
}

/* Stores a string of known length in the pool; NULL when the pool is full. */
static const char *pool_add(struct boot_info *bi, const char *s, unsigned len)
{
    if (len + 1 > BOOT_STRPOOL_SIZE - bi->strpool_used)
        return NULL;
    char *dst = bi->strpool + bi->strpool_used;
    memcpy(dst, s, len);
    dst[len] = '\0';
    bi->strpool_used += len + 1;
    return dst;
}

static int add_module(struct boot_info *bi, uint32_t start, uint32_t end, const char *str,
                      unsigned len, char *err, unsigned errlen)
{
    unsigned n = bi->nr_modules;

    if (n >= BOOT_MAX_MODULES)
        FAIL("more than %u modules", BOOT_MAX_MODULES);
    if (end < start)
        FAIL("module %u: end 0x%x below start 0x%x", n, end, start);
    if (len >= BOOT_MODSTR_MAX)
        FAIL("module %u: string longer than %u bytes", n, BOOT_MODSTR_MAX - 1);
    const char *s = pool_add(bi, str, len);
    if (!s)
        FAIL("module %u: module strings exceed %u bytes in all", n, BOOT_STRPOOL_SIZE);
    bi->modules[n] = (struct boot_module){ start, end, s };
    bi->nr_modules = n + 1;
    return 0;
}

static int add_mmap_entry(struct boot_info *bi, uint64_t addr, uint64_t len, uint32_t type,
                          char *err, unsigned errlen)
{
    if (addr + len < addr)
        FAIL("memory map entry 0x%llx+0x%llx wraps", (unsigned long long)addr,
             (unsigned long long)len);
    if (e820_append(&bi->mmap, addr, len, type))
        FAIL("memory map has more than %u entries", E820_MAP_MAX);
    return 0;
}

static int finish_mmap(struct boot_info *bi, char *err, unsigned errlen)
{
    if (bi->mmap.nr == 0 && bi->have_meminfo) {
        /* No map: the two classic ranges, as multiboot defines mem_lower/mem_upper. */
        if (add_mmap_entry(bi, 0, (uint64_t)bi->mem_lower_kb << 10, E820_TYPE_RAM, err, errlen) ||
            add_mmap_entry(bi, 0x100000, (uint64_t)bi->mem_upper_kb << 10, E820_TYPE_RAM, err,
                           errlen))
            return -1;
    }
    if (bi->mmap.nr == 0)
        FAIL("no memory map and no memory size from the loader");
    bi->mmap_loader_nr = bi->mmap.nr;
    bi->mmap_was_sanitised = !e820_sorted_disjoint(&bi->mmap);
    if (e820_sanitize(&bi->mmap))
        FAIL("memory map has more than %u regions", E820_MAP_MAX);
    return 0;
}

static int parse_mb1(uint32_t addr, struct boot_info *bi, char *err, unsigned errlen)
{
    static char str[BOOT_MODSTR_MAX];
    const struct mb1_info *mbi = phys_map(addr, sizeof(*mbi));
    int len;

    if (!mbi)
        FAIL("multiboot1: info at 0x%x is not addressable", addr);
    bi->info_addr = addr;
    bi->info_size = sizeof(*mbi);
    uint32_t flags = mbi->flags;

    if (flags & MB1_INFO_CMDLINE) {
        len = copy_phys_string(mbi->cmdline, BOOT_CMDLINE_MAX, bi->cmdline);
        if (len < 0)
            FAIL("multiboot1: command line at 0x%x %s", mbi->cmdline,
                 len == -1 ? "is longer than 1023 bytes" : "is not addressable");
    }
    if (flags & MB1_INFO_LOADER_NAME) {
        len = copy_phys_string(mbi->boot_loader_name, sizeof(bi->loader_name), bi->loader_name);
        if (len == -2)
            FAIL("multiboot1: loader name at 0x%x is not addressable", mbi->boot_loader_name);
        bi->loader_name[sizeof(bi->loader_name) - 1] = '\0'; /* a long name is only cosmetic */
    }
    if (flags & MB1_INFO_MEMORY) {
        bi->have_meminfo = true;
        bi->mem_lower_kb = mbi->mem_lower;
        bi->mem_upper_kb = mbi->mem_upper;
    }
    if (flags & MB1_INFO_MODS) {
        if (mbi->mods_count > BOOT_MAX_MODULES)
            FAIL("multiboot1: %u modules, at most %u supported", mbi->mods_count,
                 BOOT_MAX_MODULES);
        const struct mb1_module *mods =
            phys_map(mbi->mods_addr, (uint64_t)mbi->mods_count * sizeof(*mods));
        if (mbi->mods_count && !mods)
            FAIL("multiboot1: module list at 0x%x is not addressable", mbi->mods_addr);
        for (uint32_t i = 0; i < mbi->mods_count; i++) {
            len = 0;
            str[0] = '\0';
            if (mods[i].string) {
                len = copy_phys_string(mods[i].string, sizeof(str), str);
                if (len < 0)
                    FAIL("multiboot1: module %u string at 0x%x %s", i, mods[i].string,
                         len == -1 ? "is unterminated or too long" : "is not addressable");
            }
            if (add_module(bi, mods[i].mod_start, mods[i].mod_end, str, (unsigned)len, err,
                           errlen))
                return -1;
        }
    }
    if (flags & MB1_INFO_MEM_MAP) {
        uint32_t length = mbi->mmap_length;
        if (length > MB1_MMAP_MAX)
            FAIL("multiboot1: memory map length %u is too large", length);
        const uint8_t *map = phys_map(mbi->mmap_addr, length);
        if (length && !map)
            FAIL("multiboot1: memory map at 0x%x is not addressable", mbi->mmap_addr);
        for (uint32_t off = 0; off < length;) {
            const struct mb1_mmap_entry *e = (const void *)(map + off);
            if (length - off < sizeof(*e))
                FAIL("multiboot1: memory map entry at offset %u is truncated", off);
            if (e->size < sizeof(*e) - 4 || e->size > length - off - 4)
                FAIL("multiboot1: memory map entry at offset %u has bad size %u", off, e->size);
            if (add_mmap_entry(bi, e->addr, e->len, e->type, err, errlen))
                return -1;
            off += e->size + 4;
        }
    }
    return finish_mmap(bi, err, errlen);
}

static int mb2_string(const struct mb2_tag *tag, const char *s, const char **out, unsigned *len)
{
    unsigned room = tag->size - (unsigned)((const char *)s - (const char *)tag);
    unsigned n = (unsigned)strnlen(s, room);
    if (n == room)
        return -1;
    *out = s;
    *len = n;
    return 0;
}

static int parse_mb2(uint32_t addr, struct boot_info *bi, char *err, unsigned errlen)
{
    const struct mb2_info_header *hdr = phys_map(addr, sizeof(*hdr));
    const char *s;
    unsigned len;
    bool have_cmdline = false, have_mmap = false, have_end = false;

    if (addr & (MB2_TAG_ALIGN - 1))
        FAIL("multiboot2: info at 0x%x is not 8-byte aligned", addr);
    if (!hdr)
        FAIL("multiboot2: info at 0x%x is not addressable", addr);
    uint32_t total = hdr->total_size;
    if (total < sizeof(*hdr) + sizeof(struct mb2_tag) || total > MB2_INFO_MAX)
        FAIL("multiboot2: total_size %u out of range", total);
    const uint8_t *base = phys_map(addr, total);
    if (!base)
        FAIL("multiboot2: info 0x%x+0x%x is not addressable", addr, total);
    bi->info_addr = addr;
    bi->info_size = total;

    for (uint32_t off = sizeof(*hdr); off < total;) {
        const struct mb2_tag *tag = (const void *)(base + off);
        if (total - off < sizeof(*tag))
            FAIL("multiboot2: tag at offset %u is truncated", off);
        if (tag->size < sizeof(*tag) || tag->size > total - off)
            FAIL("multiboot2: tag type %u at offset %u has bad size %u", tag->type, off,
                 tag->size);
        switch (tag->type) {
        case MB2_TAG_END:
            if (tag->size != sizeof(*tag))
                FAIL("multiboot2: end tag has size %u", tag->size);
            have_end = true;
            break;
        case MB2_TAG_CMDLINE:
            if (have_cmdline)
                FAIL("multiboot2: two command line tags");
            have_cmdline = true;
            if (mb2_string(tag, ((const struct mb2_tag_string *)tag)->string, &s, &len))
                FAIL("multiboot2: command line is not NUL-terminated");
            if (len >= BOOT_CMDLINE_MAX)
                FAIL("multiboot2: command line is longer than %u bytes", BOOT_CMDLINE_MAX - 1);
            memcpy(bi->cmdline, s, len + 1);
            break;
        case MB2_TAG_LOADER_NAME:
            if (mb2_string(tag, ((const struct mb2_tag_string *)tag)->string, &s, &len))
                FAIL("multiboot2: loader name is not NUL-terminated");
            strlcpy(bi->loader_name, s, sizeof(bi->loader_name));
            break;
        case MB2_TAG_MODULE: {
            const struct mb2_tag_module *m = (const void *)tag;
            if (tag->size < sizeof(*m) + 1)
                FAIL("multiboot2: module tag at offset %u has size %u", off, tag->size);
            if (mb2_string(tag, m->string, &s, &len))
                FAIL("multiboot2: module %u string is not NUL-terminated", bi->nr_modules);
            if (add_module(bi, m->mod_start, m->mod_end, s, len, err, errlen))
                return -1;
            break;
        }
        case MB2_TAG_BASIC_MEMINFO: {
            const struct mb2_tag_basic_meminfo *mi = (const void *)tag;
            if (tag->size < sizeof(*mi))
                FAIL("multiboot2: basic meminfo tag has size %u", tag->size);
            bi->have_meminfo = true;
            bi->mem_lower_kb = mi->mem_lower;
            bi->mem_upper_kb = mi->mem_upper;
            break;
        }
        case MB2_TAG_MMAP: {
            const struct mb2_tag_mmap *mm = (const void *)tag;
            if (have_mmap)
                FAIL("multiboot2: two memory map tags");
            have_mmap = true;
            if (tag->size < sizeof(*mm))
                FAIL("multiboot2: memory map tag has size %u", tag->size);
            uint32_t esz = mm->entry_size;
            if (esz < sizeof(struct mb2_mmap_entry) || esz % 8 || esz > 4096 ||
                (tag->size - sizeof(*mm)) % esz)
                FAIL("multiboot2: memory map entry_size %u does not fit tag size %u", esz,
                     tag->size);
            for (uint32_t eo = sizeof(*mm); eo < tag->size; eo += esz) {
                const struct mb2_mmap_entry *e = (const void *)((const uint8_t *)tag + eo);
                if (add_mmap_entry(bi, e->addr, e->len, e->type, err, errlen))
                    return -1;
            }
            break;
        }
        case MB2_TAG_ACPI_OLD:
        case MB2_TAG_ACPI_NEW: {
            unsigned want = tag->type == MB2_TAG_ACPI_NEW ? 36u : 20u;
            if (tag->size - sizeof(*tag) < want)
                FAIL("multiboot2: ACPI RSDP tag has size %u", tag->size);
            if (bi->rsdp_len < want) {
                memcpy(bi->rsdp, (const uint8_t *)tag + sizeof(*tag), want);
                bi->rsdp_len = want;
            }
            break;
        }
        default:
            break;
        }
        if (have_end)
            break;
        off += (tag->size + MB2_TAG_ALIGN - 1) & ~(MB2_TAG_ALIGN - 1);
    }
    if (!have_end)
        FAIL("multiboot2: no end tag within total_size %u", total);
    return finish_mmap(bi, err, errlen);
}

int bootinfo_parse(uint32_t magic, uint32_t addr, struct boot_info *bi, char *err, unsigned errlen)
{
    memset(bi, 0, sizeof(*bi));
    if (magic == MB1_BOOTLOADER_MAGIC) {
        bi->protocol = BOOT_MULTIBOOT1;
        return parse_mb1(addr, bi, err, errlen);
    }
    if (magic == MB2_BOOTLOADER_MAGIC) {
        bi->protocol = BOOT_MULTIBOOT2;
        return parse_mb2(addr, bi, err, errlen);
    }
    FAIL("not started by a multiboot loader (eax 0x%08x)", magic);
}
