/* SPDX-License-Identifier: MIT */
/*
 * mbi_build() for random command lines, loader names, maps, modules and RSDPs, both kinds:
 * the result must fit the buffer, and vtboot's own loader-side parser (bootinfo_parse) must
 * read back exactly the input (strings, modules, map, memory sizes, RSDP); a failure is only
 * "does not fit" (for a smaller buffer) or a missing required tag.
 */
#include "fuzz_common.h"

#include "boot/bootinfo.h"
#include "mbkernel/mbinfo.h"

#define PHYS 0x86c000u

static struct boot_info bi;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 12)
        return 0;
    enum boot_protocol proto = data[0] & 1 ? BOOT_MULTIBOOT2 : BOOT_MULTIBOOT1;
    unsigned ne = data[1] % 20, nm = data[2] % 5;
    uint32_t cap = get16(data, 3) + 8 * (data[0] >> 4);
    uint32_t required = get32(data, 5) & ((1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) |
                                          (1u << 6) | (1u << 14) | (1u << 15) | (1u << 21));
    unsigned rsdp_len = data[9] % 3 == 0 ? 0 : data[9] % 3 == 1 ? 20 : 36;
    const uint8_t *p = data + 12;
    size_t left = size - 12;
    if (left < 10u * ne + 8u * nm + rsdp_len)
        return 0;
    struct e820_map map;
    memset(&map, 0, sizeof(map));
    for (unsigned i = 0; i < ne; i++, p += 10, left -= 10)
        e820_append(&map, (uint64_t)get32(p, 0) << 4, ((uint64_t)get32(p, 4) + 1) << 4,
                    1 + p[8] % 5);
    if (e820_sanitize(&map) || map.nr == 0)
        return 0;
    struct mbi_module mods[5];
    for (unsigned i = 0; i < nm; i++, p += 8, left -= 8)
        mods[i] = (struct mbi_module){ get32(p, 0), get32(p, 0) + get16(p, 4), NULL };
    const uint8_t *rsdp = p;
    p += rsdp_len, left -= rsdp_len;
    /* the rest: NUL-separated strings for the cmdline, loader name, module strings */
    char strs[7][512];
    for (unsigned i = 0; i < 7; i++) {
        size_t n = 0;
        while (left && *p && n < sizeof(strs[i]) - 1)
            strs[i][n++] = (char)*p++, left--;
        if (left)
            p++, left--;
        strs[i][n] = 0;
    }
    for (unsigned i = 0; i < nm; i++)
        mods[i].string = strs[2 + i];
    struct mbi_input in = {
        .cmdline = strs[0], .loader_name = strs[1], .have_meminfo = data[10] & 1,
        .mem_lower_kb = get16(data, 10), .mem_upper_kb = get32(data, 8), .map = &map,
        .nr_modules = nm, .modules = mods, .rsdp = rsdp_len ? rsdp : NULL, .rsdp_len = rsdp_len,
        .load_base = get32(data, 4),
    };
    if (cap > 0x8000)
        cap = 0x8000;
    phys_fake_reset();
    uint8_t *win = phys_fake_add(PHYS, 0x8000);
    uint32_t used = 0xdeadbeef;
    char err[256];
    memset(err, 0, sizeof(err));
    memset(win, 0xcc, 0x8000);
    int rc = mbi_build(proto, &in, required, win, cap, PHYS, &used, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    for (uint32_t i = cap; i < 0x8000; i++)
        FUZZ_ASSERT(win[i] == 0xcc, "written past the buffer at %u (cap %u)", i, cap);
    if (rc) {
        FUZZ_ASSERT(used == 0xdeadbeef, "size set on failure");
        bool wraps = false;
        for (unsigned i = 0; i < nm; i++)
            wraps |= mods[i].end < mods[i].start;
        FUZZ_ASSERT(strstr(err, "does not fit in") || strstr(err, "requires multiboot2") ||
                    (wraps && strstr(err, "below its start")), "'%s'", err);
        phys_fake_reset();
        return 0;
    }
    FUZZ_ASSERT(used <= cap, "used %u of %u", used, cap);
    char perr[192];
    int prc = bootinfo_parse(proto == BOOT_MULTIBOOT2 ? 0x36d76289u : 0x2badb002u, PHYS, &bi,
                             perr, sizeof(perr));
    /* strings stay below the parser's limits, the map below its 128 entries: it must accept */
    FUZZ_ASSERT(prc == 0, "vtboot's parser refuses what was built: '%s'", perr);
    {
        FUZZ_ASSERT(!strcmp(bi.cmdline, strs[0]), "cmdline");
        FUZZ_ASSERT(!strncmp(bi.loader_name, strs[1], sizeof(bi.loader_name) - 1), "name");
        FUZZ_ASSERT(bi.nr_modules == nm, "%u modules", bi.nr_modules);
        for (unsigned i = 0; i < nm; i++)
            FUZZ_ASSERT(bi.modules[i].start == mods[i].start && bi.modules[i].end == mods[i].end &&
                        !strcmp(bi.modules[i].string, mods[i].string), "module %u", i);
        FUZZ_ASSERT(bi.mmap.nr == map.nr, "map %u of %u", bi.mmap.nr, map.nr);
        for (unsigned i = 0; i < map.nr; i++)
            FUZZ_ASSERT(bi.mmap.e[i].addr == map.e[i].addr && bi.mmap.e[i].size == map.e[i].size &&
                        bi.mmap.e[i].type == map.e[i].type, "map entry %u", i);
        FUZZ_ASSERT(bi.have_meminfo, "meminfo");
        if (in.have_meminfo)
            FUZZ_ASSERT(bi.mem_lower_kb == in.mem_lower_kb && bi.mem_upper_kb == in.mem_upper_kb,
                        "meminfo values");
        if (proto == BOOT_MULTIBOOT2)
            FUZZ_ASSERT(bi.rsdp_len == rsdp_len && !memcmp(bi.rsdp, rsdp, rsdp_len), "rsdp");
    }
    phys_fake_reset();
    return 0;
}
