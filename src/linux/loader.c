/* SPDX-License-Identifier: MIT */
#include "lib/format.h"
#include "lib/string.h"
#include "linux/loader.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

#define FOUR_GIB 0x100000000ull
#define PAGE 0x1000u
#define LOW_MEMORY_END 0x100000u     /* the initrd stays out of the first MiB */

/* The caller's busy ranges, then the kernel's own, then where moved modules go. */
struct busy_list {
    struct mem_range r[48];
    unsigned n;
};

/*
 * Every caller range overlapping the kernel's fixed ranges (the last two of `all`) must be
 * movable; each gets a new home, as high as possible, clear of everything planned so far.
 */
static int move_out_of_the_way(const struct e820_map *map, struct busy_list *all,
                               unsigned nbusy, unsigned nr_movable, struct linux_plan *plan,
                               char *err, unsigned errlen)
{
    const struct mem_range *kernel = &all->r[all->n - 2];
    for (unsigned i = 0; i < nbusy; i++) {
        const struct mem_range *b = &all->r[i];
        if (!place_conflict(kernel, 2, b->addr, b->size))
            continue;
        if (i < nbusy - nr_movable)
            FAIL("non-relocatable kernel would overwrite %s at 0x%llx", b->what,
                 (unsigned long long)b->addr);
        uint64_t to;
        if (plan->nr_moves >= LINUX_MAX_MOVES || all->n >= sizeof(all->r) / sizeof(all->r[0]) ||
            !place_highest(map, all->r, all->n, LOW_MEMORY_END, FOUR_GIB, b->size, PAGE, &to))
            FAIL("no free RAM to move %s (0x%llx bytes) out of the kernel's way", b->what,
                 (unsigned long long)b->size);
        plan->moves[plan->nr_moves++] = (struct module_move){ i, (uint32_t)to };
        all->r[all->n++] = (struct mem_range){ to, b->size, "a moved module" };
    }
    return 0;
}

/* Where the initrd is once the planned moves are done. */
static uint32_t initrd_after_moves(const struct mem_range *busy, const struct linux_plan *plan,
                                   uint32_t at, uint32_t size)
{
    for (unsigned i = 0; i < plan->nr_moves; i++) {
        const struct mem_range *b = &busy[plan->moves[i].busy_index];
        if (b->addr == at && b->size == size)
            return plan->moves[i].to;
    }
    return at;
}

int linux_plan(const struct bzimage *bz, const struct e820_map *map, const struct mem_range *busy,
               unsigned nbusy, unsigned nr_movable, uint32_t initrd_at, uint32_t initrd_size,
               struct linux_plan *plan, char *err, unsigned errlen)
{
    static struct busy_list all;
    uint64_t at;

    memset(plan, 0, sizeof(*plan));
    if (nr_movable > nbusy)
        FAIL("%u movable ranges of %u", nr_movable, nbusy);
    if (nbusy + 2 + LINUX_MAX_MOVES > sizeof(all.r) / sizeof(all.r[0]))
        FAIL("too many busy memory ranges (%u)", nbusy);
    for (unsigned i = 0; i < nbusy; i++)
        all.r[i] = busy[i];
    all.n = nbusy;

    if (bz->relocatable) {
        /* Loaded at or above pref_address, the kernel decompresses in place. */
        if (!place_lowest(map, all.r, all.n, bz->pref_address, FOUR_GIB, bz->init_size,
                          bz->alignment, &at))
            FAIL("no free RAM for the kernel: 0x%x bytes aligned to 0x%x above 0x%llx",
                 bz->init_size, bz->alignment, (unsigned long long)bz->pref_address);
        plan->kernel_load = plan->kernel_mem = (uint32_t)at;
        all.r[all.n++] = (struct mem_range){ at, bz->init_size, "kernel" };
    } else {
        /* Loaded at 1 MiB, it moves itself to pref_address (LOAD_PHYSICAL_ADDR). */
        if (!e820_range_is(map, BZIMAGE_NONRELOC_ADDR, bz->pm_size, E820_TYPE_RAM) ||
            !e820_range_is(map, bz->pref_address, bz->init_size, E820_TYPE_RAM))
            FAIL("non-relocatable kernel: 0x%x+0x%x or 0x%llx+0x%x is not RAM",
                 BZIMAGE_NONRELOC_ADDR, bz->pm_size, (unsigned long long)bz->pref_address,
                 bz->init_size);
        plan->kernel_load = BZIMAGE_NONRELOC_ADDR;
        plan->kernel_mem = (uint32_t)bz->pref_address;
        all.r[all.n++] = (struct mem_range){ BZIMAGE_NONRELOC_ADDR, bz->pm_size, "kernel image" };
        all.r[all.n++] = (struct mem_range){ plan->kernel_mem, bz->init_size, "kernel" };
        if (move_out_of_the_way(map, &all, nbusy, nr_movable, plan, err, errlen))
            return -1;
        initrd_at = initrd_after_moves(busy, plan, initrd_at, initrd_size);
    }

    if (!initrd_size)
        return 0;
    uint64_t limit = (uint64_t)bz->hdr.initrd_addr_max + 1;
    if (limit > FOUR_GIB || bz->hdr.initrd_addr_max == 0)
        limit = FOUR_GIB;
    plan->initrd_size = initrd_size;
    /* Where the loader (or a move) put it is fine unless the kernel needs it or it is out of
     * reach; the caller has checked that modules overlap neither each other nor vtboot, and
     * moves went clear of everything. */
    unsigned nkernel = bz->relocatable ? 1 : 2;
    if (!place_conflict(all.r + nbusy, nkernel, initrd_at, initrd_size) &&
        initrd_at >= LOW_MEMORY_END && (initrd_at & (PAGE - 1)) == 0 &&
        (uint64_t)initrd_at + initrd_size <= limit &&
        e820_range_is(map, initrd_at, initrd_size, E820_TYPE_RAM)) {
        plan->initrd_addr = initrd_at;
        return 0;
    }
    if (!place_highest(map, all.r, all.n, LOW_MEMORY_END, limit, initrd_size, PAGE, &at))
        FAIL("no free RAM below 0x%llx for the 0x%x-byte initrd", (unsigned long long)limit,
             initrd_size);
    plan->initrd_addr = (uint32_t)at;
    return 0;
}

int linux_build_boot_params(struct boot_params *bp, const struct bzimage *bz,
                            const struct linux_plan *plan, const struct e820_map *map,
                            const struct linux_boot_args *args)
{
    if (map->nr > BP_E820_MAX_ENTRIES)
        return -1;
    memset(bp, 0, sizeof(*bp));
    memcpy(&bp->hdr, &bz->hdr, bz->hdr_len);

    struct setup_header *h = &bp->hdr;
    h->type_of_loader = BP_TYPE_OF_LOADER_UNDEFINED;
    h->vid_mode = BP_VID_MODE_NORMAL;
    h->code32_start = plan->kernel_load;
    h->cmd_line_ptr = args->cmdline_addr;
    h->ramdisk_image = plan->initrd_addr;
    h->ramdisk_size = plan->initrd_size;
    h->setup_data = 0;

    /* 80x25 VGA text, as tboot describes the console when there is no framebuffer */
    bp->screen_info.orig_video_mode = 3;
    bp->screen_info.orig_video_cols = 80;
    bp->screen_info.orig_video_lines = 25;
    bp->screen_info.orig_video_is_vga = 1;
    bp->screen_info.orig_video_points = 16;
    bp->screen_info.orig_y = 24;

    bp->tboot_addr = args->tboot_addr;
    bp->acpi_rsdp_addr = args->acpi_rsdp_addr;
    bp->e820_entries = (uint8_t)map->nr;
    for (unsigned i = 0; i < map->nr; i++)
        bp->e820_table[i] = (struct boot_e820_entry){ map->e[i].addr, map->e[i].size,
                                                      map->e[i].type };
    return 0;
}
