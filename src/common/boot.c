/* SPDX-License-Identifier: MIT */
/*
 * vtboot's boot flow, run by the MLE after a launch and by the pre-launch code when there is
 * none: take the loader's information (again: nothing the pre-launch code saw is trusted),
 * check memory and modules, load Linux with a tboot shared page, measure or not, and jump.
 * Every step that can fail says why on the log and ends in a clean halt (which caps the PCRs
 * once launched); nothing jumps into an image that was not validated.
 */
#include <stdbool.h>
#include <stdint.h>

#include "abi/tboot_log.h"
#include "arch/x86/io.h"
#include "arch/x86/segments.h"
#include "boot/bootinfo.h"
#include "boot/modules.h"
#include "boot/options.h"
#include "common/boot.h"
#include "common/boot_mb.h"
#include "common/ext_block.h"
#include "common/halt.h"
#include "common/machine.h"
#include "common/simd_state.h"
#include "drivers/timer.h"
#include "drivers/uart.h"
#include "layout.h"
#include "lib/format.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "linux/bzimage.h"
#include "linux/loader.h"
#include "log/memlog.h"
#include "log/printk.h"
#include "mem/e820.h"
#include "mem/place.h"
#include "tboot/malform.h"
#include "tboot/shared_page.h"

#ifndef VTBOOT_VERSION
#define VTBOOT_VERSION "unknown"
#endif

void linux_enter(uint32_t entry, uint32_t boot_params) __attribute__((noreturn));

static struct vtboot_options opts;
static struct boot_info bi;
static struct e820_map final_map;
static struct boot_params boot_params __attribute__((aligned(4096)));
static char kernel_cmdline[BOOT_MODSTR_MAX] __attribute__((aligned(16)));
static uint8_t rsdp_copy[BOOT_RSDP_MAX] __attribute__((aligned(16)));
static char err[192];

static uint16_t console_port;

static void serial_write(const char *s, size_t len)
{
    uart_write(console_port, s, len);
}

void apply_log_options(const struct vtboot_options *o)
{
    console_port = o->serial_port;
    if (o->log_serial && uart_init(o->serial_port, o->serial_baud, o->serial_clock_hz,
                                   o->serial_lcr))
        printk_set_console(serial_write);
    else
        printk_set_console(0);
    printk_set_loglvl(o->loglvl);
}

const struct vtboot_options *boot_options(void)
{
    return &opts;
}

const char *boot_cmdline(void)
{
    return mle_cmdline;
}

const struct e820_map *linux_e820_map(void)
{
    return &final_map;
}

__attribute__((noreturn)) static void fail(const char *what)
{
    pr_err("%s: %s\n", what, err);
    halt(what);
}

static void print_map(const char *title, const struct e820_map *m)
{
    pr_detail("%s:\n", title);
    for (unsigned i = 0; i < m->nr; i++)
        pr_detail("  0x%016llx - 0x%016llx  %s\n", (unsigned long long)m->e[i].addr,
                  (unsigned long long)(m->e[i].addr + m->e[i].size),
                  e820_type_name(m->e[i].type));
}

/* vtboot's region, the memory log and the low pages: ranges nothing else may touch. */
static unsigned vtboot_ranges(struct mem_range *r)
{
    unsigned n = 0;
    uint32_t base = sym_addr(_region_start), size = sym_addr(_end) - base;
    r[n++] = (struct mem_range){ base, size, "vtboot" };
    if (opts.log_memory)
        r[n++] = (struct mem_range){ TBOOT_LOG_ADDR, TBOOT_LOG_SIZE, "memory log" };
    r[n++] = (struct mem_range){ LOWMEM_BASE, LOWMEM_SIZE, "S3 wake-up page" };
    r[n++] = (struct mem_range){ AP_START_BASE, AP_START_SIZE, "AP start page" };
    return n;
}

/*
 * A module the loader put over vtboot's own memory goes elsewhere, before vtboot writes there:
 * a loader sees only the ELF image, not the persistent area before it nor the logs below 1 MiB
 * (GRUB places modules low, right after each other, and a big initrd reaches 8 MiB).
 */
static void move_out_of_own_ranges(unsigned i, const struct mem_range *own, unsigned nown)
{
    static struct mem_range busy[BOOT_MAX_MODULES + 4];
    struct boot_module *m = &bi.modules[i];
    uint32_t size = m->end - m->start;
    unsigned n = 0;
    uint64_t to;

    for (unsigned k = 0; k < nown; k++)
        busy[n++] = own[k];
    for (unsigned k = 0; k < bi.nr_modules; k++)
        busy[n++] = (struct mem_range){ bi.modules[k].start,
                                        bi.modules[k].end - bi.modules[k].start, "a module" };
    if (!place_highest(&bi.mmap, busy, n, 0x100000, 0x100000000ull, size, 0x1000, &to)) {
        fmt_snprintf(err, sizeof(err), "module %u at 0x%x+0x%x overlaps vtboot's memory and "
                     "there is no free RAM to move it to", i, m->start, size);
        fail("bad module");
    }
    memmove((void *)(uintptr_t)to, (const void *)(uintptr_t)m->start, size);
    pr_info("module %u moved from 0x%08x to 0x%08x, out of vtboot's memory\n", i, m->start,
            (uint32_t)to);
    m->start = (uint32_t)to;
    m->end = (uint32_t)to + size;
}

void boot_refuse_bad_modules(void)
{
    if (modules_check(&bi, sym_addr(_mle_start), sym_addr(_end), err, sizeof(err)))
        fail("bad module");
}

/* Refuses modules that cannot be used (boot/modules.h); moves those that lie in vtboot's memory
 * outside its loaded image. */
static void check_modules(const struct mem_range *own, unsigned nown)
{
    for (unsigned i = 0; i < bi.nr_modules; i++)
        pr_info("module %u: 0x%08x - 0x%08x (%u bytes) '%s'\n", i, bi.modules[i].start,
                bi.modules[i].end, bi.modules[i].end - bi.modules[i].start,
                bi.modules[i].string);
    boot_refuse_bad_modules();
    for (unsigned i = 0; i < bi.nr_modules; i++)
        if (place_conflict(own, nown, bi.modules[i].start,
                           bi.modules[i].end - bi.modules[i].start))
            move_out_of_own_ranges(i, own, nown);
}

/* The map Linux gets: the loader's, with vtboot and the memory log reserved. */
static void build_final_map(const struct mem_range *own, unsigned nown)
{
    final_map = bi.mmap;
    for (unsigned i = 0; i < nown; i++) {
        if (!e820_range_is(&bi.mmap, own[i].addr, own[i].size, E820_TYPE_RAM)) {
            fmt_snprintf(err, sizeof(err), "%s 0x%llx+0x%llx is not RAM in the loader's map",
                         own[i].what, (unsigned long long)own[i].addr,
                         (unsigned long long)own[i].size);
            fail("memory layout");
        }
        uint64_t size = i ? own[i].size
                          : malform_reserved_size(opts.test_shared, (uint32_t)own[i].addr,
                                                  (uint32_t)own[i].size, sym_addr(_shared_page));
        if (e820_set_range(&final_map, own[i].addr, size, E820_TYPE_RESERVED)) {
            fmt_snprintf(err, sizeof(err), "memory map is full");
            fail("memory layout");
        }
    }
    if (malform_e820(&final_map, opts.test_shared, sym_addr(_region_start),
                     sym_addr(_shared_page))) {
        fmt_snprintf(err, sizeof(err), "memory map is full");
        fail("memory layout");
    }
}

static struct bzimage bz;
static struct linux_plan plan;

/* Validates the kernel and plans where everything goes, before anything is measured. */
static void plan_linux(const struct mem_range *own, unsigned nown)
{
    static struct mem_range busy[BOOT_MAX_MODULES + 4];
    unsigned nbusy = 0;

    if (bi.nr_modules == 0) {
        fmt_snprintf(err, sizeof(err), "no modules: the first module must be a Linux bzImage");
        fail("no kernel");
    }
    const struct boot_module *km = &bi.modules[0];
    const uint8_t *image = phys_map(km->start, km->end - km->start);
    if (!image || bzimage_parse(image, km->end - km->start, &bz, err, sizeof(err)))
        fail("module 0 is not a usable Linux kernel");
    pr_info("Linux bzImage: boot protocol %u.%02u, %s, 0x%x bytes to load, init_size 0x%x, "
            "alignment 0x%x\n", bz.hdr.version >> 8, bz.hdr.version & 0xff,
            bz.relocatable ? "relocatable" : "not relocatable", bz.pm_size, bz.init_size,
            bz.alignment);

    size_t cmdlen = strlen(km->string);
    if (cmdlen > bz.cmdline_max) {
        fmt_snprintf(err, sizeof(err), "command line is %u bytes, the kernel accepts %u",
                     (unsigned)cmdlen, bz.cmdline_max);
        fail("kernel command line too long");
    }
    memcpy(kernel_cmdline, km->string, cmdlen + 1);

    for (unsigned i = 0; i < nown; i++)
        busy[nbusy++] = own[i];
    for (unsigned i = 0; i < bi.nr_modules; i++)
        busy[nbusy++] = (struct mem_range){ bi.modules[i].start,
                                            bi.modules[i].end - bi.modules[i].start, "a module" };
    const struct boot_module *initrd = bi.nr_modules > 1 ? &bi.modules[1] : 0;
    uint32_t initrd_size = initrd ? initrd->end - initrd->start : 0;
    if (initrd && initrd_size == 0)
        pr_warn("module 1 (initrd) is empty; booting without an initrd\n");
    if (linux_plan(&bz, &final_map, busy, nbusy, bi.nr_modules, initrd ? initrd->start : 0,
                   initrd_size, &plan, err, sizeof(err)))
        fail("no room for Linux");

    /* Modules in the way of a kernel that cannot move go elsewhere, before they are measured. */
    for (unsigned i = 0; i < plan.nr_moves; i++) {
        struct boot_module *m = &bi.modules[plan.moves[i].busy_index - nown];
        uint32_t size = m->end - m->start;
        memmove((void *)(uintptr_t)plan.moves[i].to, (const void *)(uintptr_t)m->start, size);
        pr_info("module %u moved from 0x%08x to 0x%08x, out of the kernel's way\n",
                plan.moves[i].busy_index - nown, m->start, plan.moves[i].to);
        m->start = plan.moves[i].to;
        m->end = m->start + size;
    }
}

/* Copies kernel and initrd to their planned places, builds the zero page and jumps. */
__attribute__((noreturn)) static void start_linux(void)
{
    const struct boot_module *km = &bi.modules[0];
    const uint8_t *image = phys_map(km->start, km->end - km->start);

    /* Destinations avoid every module, so no copy overwrites a source. */
    memmove((void *)(uintptr_t)plan.kernel_load, image + bz.pm_offset, bz.pm_size);
    pr_info("Linux kernel at 0x%08x - 0x%08x (decompresses into 0x%08x - 0x%08x)\n",
            plan.kernel_load, plan.kernel_load + bz.pm_size, plan.kernel_mem,
            plan.kernel_mem + bz.init_size);
    if (plan.initrd_size) {
        const struct boot_module *initrd = &bi.modules[1];
        if (plan.initrd_addr != initrd->start)
            memmove((void *)(uintptr_t)plan.initrd_addr, (const void *)(uintptr_t)initrd->start,
                    plan.initrd_size);
        pr_info("initrd at 0x%08x - 0x%08x%s\n", plan.initrd_addr,
                plan.initrd_addr + plan.initrd_size,
                plan.initrd_addr != initrd->start ? " (moved)" : "");
    }
    pr_info("Linux command line: '%s'\n", kernel_cmdline);

    if (opts.test_shared) {
        char names[160];
        malform_shared_page((struct tboot_shared *)_shared_page, opts.test_shared);
        pr_warn("TESTING: the hand-over to Linux is deliberately malformed: %s\n",
                malform_names(opts.test_shared, names, sizeof(names)));
    }
    struct linux_boot_args args = {
        .cmdline_addr = sym_addr(kernel_cmdline),
        .tboot_addr = sym_addr(_shared_page) + (opts.test_shared & MALFORM_UNALIGNED ? 0x100 : 0),
        .acpi_rsdp_addr = bi.rsdp_len ? sym_addr(rsdp_copy) : 0,
    };
    if (linux_build_boot_params(&boot_params, &bz, &plan, &final_map, &args)) {
        fmt_snprintf(err, sizeof(err), "%u memory map entries, the zero page holds %u",
                     final_map.nr, BP_E820_MAX_ENTRIES);
        fail("memory map too large");
    }
    print_map("memory map for Linux", &final_map);
    pr_info("transferring control to Linux at 0x%08x (boot_params 0x%08x)\n", plan.kernel_load,
            sym_addr(&boot_params));
    timer_log_jump("jump into Linux");
    boot_simd_restore();
    linux_enter(plan.kernel_load, sym_addr(&boot_params));
}

static void init_shared_page(void)
{
    struct shared_page_args sp = {
        .log_addr = opts.log_memory ? TBOOT_LOG_ADDR : 0,
        .shutdown_entry = sym_addr(shutdown_entry),
        .tboot_base = sym_addr(_region_start),
        .tboot_size = sym_addr(_end) - sym_addr(_region_start),
    };
    shared_page_init(_shared_page, &sp);
    ext_block_init(sp.log_addr);
    pr_info("tboot shared page at 0x%08x: version %u, log_addr 0x%x, shutdown_entry 0x%08x, "
            "tboot_base 0x%08x, tboot_size 0x%x\n", sym_addr(_shared_page),
            TBOOT_SHARED_VERSION, sp.log_addr, sp.shutdown_entry, sp.tboot_base, sp.tboot_size);
}

void boot_log_init(void *staging, size_t size)
{
    options_defaults(&opts);
    apply_log_options(&opts);
    printk_set_memlog(memlog_init(staging, size), size);
}

void boot_log_options(const char *cmdline)
{
    static struct options_diag diag;

    options_defaults(&opts);
    diag.n = 0;
    options_parse(&opts, cmdline, &diag);
    apply_log_options(&opts);
    if (!opts.log_memory)
        printk_set_memlog(0, 0);
    for (unsigned i = 0; i < diag.n; i++)
        pr_warn("%s\n", diag.msg[i]);
}

void boot_banner(const char *half)
{
    pr_info("*********************** vtboot ***********************\n");
    pr_info("   version %s, tboot-compatible measured launch\n", VTBOOT_VERSION);
    pr_info("   %s\n", half);
    pr_info("******************************************************\n");
}

const struct boot_info *boot_read_loader(uint32_t magic, uint32_t info)
{
    if (bootinfo_parse(magic, info, &bi, err, sizeof(err)))
        fail("bad boot information");
    return &bi;
}

static bool multiboot;

const struct boot_info *boot_prepare(uint32_t magic, uint32_t info)
{
    static struct mem_range own[4];

    boot_read_loader(magic, info);
    pr_info("loader: %s (multiboot%u)\n", bi.loader_name[0] ? bi.loader_name : "unnamed",
            bi.protocol == BOOT_MULTIBOOT2 ? 2 : 1);
    if (strcmp(bi.cmdline, mle_cmdline))
        pr_warn("the loader's command line is not the measured one; vtboot runs with the "
                "measured one: %s\n", mle_cmdline);
    if (bi.rsdp_len)
        memcpy(rsdp_copy, bi.rsdp, bi.rsdp_len);
    machine_init(bi.rsdp_len ? sym_addr(rsdp_copy) : 0);
    if (bi.mmap_was_sanitised)
        pr_warn("the loader's memory map (%u entries) is unsorted or has overlapping entries; "
                "vtboot uses it sanitised (%u entries: sorted, each overlap given to the non-RAM "
                "type)\n",
                bi.mmap_loader_nr, bi.mmap.nr);
    print_map("memory map from the loader", &bi.mmap);

    unsigned nown = vtboot_ranges(own);
    check_modules(own, nown);
    build_final_map(own, nown);
    if (opts.log_memory) {
        size_t staging_size;
        struct tboot_log *staging = printk_memlog(&staging_size);
        printk_set_memlog(memlog_move(staging, staging_size,
                                      phys_map(TBOOT_LOG_ADDR, TBOOT_LOG_SIZE), TBOOT_LOG_SIZE),
                          TBOOT_LOG_SIZE);
        pr_info("memory log at 0x%x (0x%x bytes), reserved\n", TBOOT_LOG_ADDR, TBOOT_LOG_SIZE);
    }
    /* module 0 by its content: a multiboot ELF kernel (Xen) takes its own path */
    multiboot = boot_mb_plan(&bi, &final_map, own, nown);
    if (!multiboot)
        plan_linux(own, nown);
    init_shared_page();
    return &bi;
}

void boot_start(void)
{
    if (multiboot)
        boot_mb_start(&bi);
    start_linux();
}
