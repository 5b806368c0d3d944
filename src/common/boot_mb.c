/* SPDX-License-Identifier: MIT */
/*
 * The multiboot-kernel half of the boot flow (common/boot_mb.h). The decisions are pure code in
 * mbkernel/ (what module 0 is, the ELF and its multiboot headers, where things go, the boot
 * information); this file does the copying, the logging and the jump.
 */
#include <stdbool.h>
#include <stdint.h>

#include "abi/multiboot1.h"
#include "abi/multiboot2.h"
#include "common/boot_mb.h"
#include "common/halt.h"
#include "common/simd_state.h"
#include "drivers/timer.h"
#include "layout.h"
#include "lib/format.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "log/printk.h"
#include "mbkernel/detect.h"
#include "mbkernel/elf.h"
#include "mbkernel/mbheader.h"
#include "mbkernel/mbinfo.h"
#include "mbkernel/plan.h"

#define MBI_SPACE (96u * 1024u)      /* 128 map entries, 16 modules with 4 KiB strings */

void multiboot_enter(uint32_t entry, uint32_t magic, uint32_t info) __attribute__((noreturn));

static struct elf_image elf;
static struct mb_kernel_header mbh;
static struct mbk_plan plan;
static enum boot_protocol proto;
static char cmdline[MBK_CMDLINE_MAX];
static struct mbi_module mbi_mods[BOOT_MAX_MODULES];
static uint8_t mbi[MBI_SPACE] __attribute__((aligned(4096)));
static uint32_t mbi_size;
static const struct e820_map *kernel_map;
static char err[256];

__attribute__((noreturn)) static void fail(const char *what)
{
    pr_err("%s: %s\n", what, err);
    halt(what);
}

static void print_map(const struct e820_map *m)
{
    pr_detail("memory map for the multiboot kernel:\n");
    for (unsigned i = 0; i < m->nr; i++)
        pr_detail("  0x%016llx - 0x%016llx  %s\n", (unsigned long long)m->e[i].addr,
                  (unsigned long long)(m->e[i].addr + m->e[i].size),
                  e820_type_name(m->e[i].type));
}

static void describe(void)
{
    pr_info("multiboot kernel: ELF%u %s, %u loadable segment(s) in 0x%08x - 0x%08llx, entry "
            "0x%08x; headers: %s%s%s\n", elf.elf_class,
            elf.machine == 3 ? "i386" : "x86-64", elf.nr_segments, elf.lowest,
            (unsigned long long)elf.highest, plan.entry, mbh.mb1 ? "multiboot1" : "",
            mbh.mb1 && mbh.mb2 ? "+" : "", mbh.mb2 ? "multiboot2" : "");
    for (unsigned i = 0; i < elf.nr_segments; i++)
        pr_detail("  segment %u: 0x%08x - 0x%08x (0x%x bytes from the file, 0x%x zeroed)\n",
                  elf.seg[i].index, elf.seg[i].paddr, elf.seg[i].paddr + elf.seg[i].memsz,
                  elf.seg[i].filesz, elf.seg[i].memsz - elf.seg[i].filesz);
}

bool boot_mb_plan(struct boot_info *bi, struct e820_map *final_map, const struct mem_range *own,
                  unsigned nown)
{
    static struct mem_range mods[BOOT_MAX_MODULES];

    if (bi->nr_modules == 0)
        return false;                /* the Linux path says "no kernel" */
    const struct boot_module *km = &bi->modules[0];
    uint32_t ksize = km->end - km->start;
    const uint8_t *image = phys_map(km->start, ksize);
    if (!image) {
        fmt_snprintf(err, sizeof(err), "module 0 at 0x%x+0x%x is not addressable", km->start,
                     ksize);
        fail("unknown kernel");
    }
    switch (kernel_detect(image, ksize, err, sizeof(err))) {
    case KERNEL_BZIMAGE:
        return false;
    case KERNEL_UNKNOWN:
        fail("module 0 is not a kernel");
    case KERNEL_ELF:
        break;
    }

    pr_info("module 0 is an ELF image: loading it as a multiboot kernel\n");
    if (elf_parse(image, ksize, &elf, err, sizeof(err)))
        fail("module 0 is not a usable multiboot kernel");
    if (mbhdr_scan(image, ksize, &mbh, err, sizeof(err)))
        fail("module 0 is not a usable multiboot kernel");
    proto = mbhdr_protocol(&mbh, bi->protocol);
    uint32_t entry = proto == BOOT_MULTIBOOT2 && mbh.mb2_entry_set ? mbh.mb2_entry : elf.entry;

    if (mbk_cmdline(cmdline, km->string, sym_addr(_shared_page), err, sizeof(err)))
        fail("multiboot kernel command line too long");

    for (unsigned i = 0; i < bi->nr_modules; i++)
        mods[i] = (struct mem_range){ bi->modules[i].start,
                                      bi->modules[i].end - bi->modules[i].start,
                                      i ? "a module" : "the kernel's file" };
    if (mbk_plan(&elf, entry, &bi->mmap, own, nown, mods, bi->nr_modules, &plan, err,
                 sizeof(err)))
        fail("no room for the multiboot kernel");
    describe();

    /* Destinations avoid every module, segment and vtboot range: no copy overwrites a source. */
    for (unsigned i = 0; i < plan.nr_moves; i++) {
        struct boot_module *m = &bi->modules[plan.moves[i].module];
        uint32_t size = m->end - m->start;
        bool in_the_way = false;
        for (unsigned k = 0; k < elf.nr_segments; k++)
            in_the_way |= ranges_overlap(m->start, size, elf.seg[k].paddr, elf.seg[k].memsz);
        memmove((void *)(uintptr_t)plan.moves[i].to, (const void *)(uintptr_t)m->start, size);
        pr_info("module %u moved from 0x%08x to 0x%08x, %s\n", plan.moves[i].module, m->start,
                plan.moves[i].to, in_the_way ? "out of the kernel's way" : "to a page boundary");
        m->start = plan.moves[i].to;
        m->end = m->start + size;
    }

    /* tboot protects its region from an ELF kernel as unusable, from Linux as reserved */
    kernel_map = final_map;
    if (e820_set_range(final_map, own[0].addr, own[0].size, E820_TYPE_UNUSABLE)) {
        fmt_snprintf(err, sizeof(err), "memory map is full");
        fail("memory layout");
    }

    for (unsigned i = 1; i < bi->nr_modules; i++)
        mbi_mods[i - 1] = (struct mbi_module){ bi->modules[i].start, bi->modules[i].end,
                                               bi->modules[i].string };
    struct mbi_input in = {
        .cmdline = cmdline,
        .loader_name = bi->loader_name,
        .have_meminfo = bi->have_meminfo,
        .mem_lower_kb = bi->mem_lower_kb,
        .mem_upper_kb = bi->mem_upper_kb,
        .map = final_map,
        .nr_modules = bi->nr_modules - 1,
        .modules = mbi_mods,
        .rsdp = bi->rsdp_len ? bi->rsdp : 0,
        .rsdp_len = bi->rsdp_len,
        .load_base = elf.lowest,
    };
    if (mbi_build(proto, &in, mbh.mb2_info_required, mbi, sizeof(mbi), sym_addr(mbi), &mbi_size,
                  err, sizeof(err)))
        fail("multiboot information");
    pr_info("multiboot kernel command line: '%s'\n", cmdline);
    return true;
}

void boot_mb_start(const struct boot_info *bi)
{
    const struct boot_module *km = &bi->modules[0];
    const uint8_t *image = (const uint8_t *)(uintptr_t)km->start;

    /* segments avoid the (moved) file, vtboot and every module: a copy never hits a source */
    for (unsigned i = 0; i < elf.nr_segments; i++) {
        const struct elf_segment *s = &elf.seg[i];
        memmove((void *)(uintptr_t)s->paddr, image + s->offset, s->filesz);
        memset((void *)(uintptr_t)(s->paddr + s->filesz), 0, s->memsz - s->filesz);
    }
    pr_info("multiboot kernel loaded at 0x%08x - 0x%08llx\n", elf.lowest,
            (unsigned long long)elf.highest);
    for (unsigned i = 1; i < bi->nr_modules; i++)
        pr_info("  module %u for it: 0x%08x - 0x%08x '%s'\n", i - 1, bi->modules[i].start,
                bi->modules[i].end, bi->modules[i].string);
    print_map(kernel_map);
    pr_info("transferring control to the multiboot kernel at 0x%08x (multiboot%u information "
            "at 0x%08x, %u bytes)\n", plan.entry, proto == BOOT_MULTIBOOT2 ? 2 : 1, sym_addr(mbi),
            mbi_size);
    timer_log_jump("jump into the multiboot kernel");
    boot_simd_restore();
    multiboot_enter(plan.entry,
                    proto == BOOT_MULTIBOOT2 ? MB2_BOOTLOADER_MAGIC : MB1_BOOTLOADER_MAGIC,
                    sym_addr(mbi));
}
