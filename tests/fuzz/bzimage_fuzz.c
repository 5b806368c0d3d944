/* SPDX-License-Identifier: MIT */
/*
 * bzimage_parse() on any image; an accepted one is then planned into a QEMU-like map and
 * given a zero page, as common/boot.c does.
 */
#include "fuzz_common.h"

#include "linux/bzimage.h"
#include "linux/loader.h"

static struct e820_map map;
static struct boot_params bp;

static void qemu_map(void)
{
    if (map.nr)
        return;
    e820_append(&map, 0, 0x9fc00, 1);
    e820_append(&map, 0x9fc00, 0x400, 2);
    e820_append(&map, 0xf0000, 0x10000, 2);
    e820_append(&map, 0x100000, 0x3fee0000, 1);
    e820_append(&map, 0x60000, 0x8000, 2);
    e820_append(&map, 0x800000, 0x200000, 2);
    e820_append(&map, 0xfffc0000, 0x40000, 2);
    e820_sanitize(&map);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct bzimage bz;
    char err[192];

    if (size > 1u << 24)
        return 0;
    memset(err, 0x55, sizeof(err));
    int rc = bzimage_parse(data, (uint32_t)size, &bz, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    if (rc)
        return 0;

    FUZZ_ASSERT(memcmp(data + 0x202, "HdrS", 4) == 0, "no HdrS");
    FUZZ_ASSERT(bz.hdr.version >= 0x020a, "version");
    FUZZ_ASSERT(bz.hdr_len >= 0x73 && bz.hdr_len <= 0x7b, "hdr_len 0x%x", bz.hdr_len);
    FUZZ_ASSERT(bz.setup_size == bz.pm_offset && bz.setup_size % 512 == 0, "setup");
    FUZZ_ASSERT((uint64_t)bz.pm_offset + bz.pm_size == size && bz.pm_size > 0, "pm part");
    FUZZ_ASSERT(bz.init_size >= bz.pm_size, "init_size");
    FUZZ_ASSERT(bz.pref_address % 4096 == 0 && bz.pref_address + bz.init_size <= 0x100000000ull,
                "pref");
    if (bz.relocatable)
        FUZZ_ASSERT(bz.alignment >= 4096 && (bz.alignment & (bz.alignment - 1)) == 0, "align");
    FUZZ_ASSERT((uint64_t)get32(data, 0x1f4) * 16 <= (uint64_t)bz.pm_size + 15, "syssize");

    qemu_map();
    struct mem_range busy[] = { { 0x800000, 0x200000, "vtboot" }, { 0x60000, 0x8000, "log" },
                                { 0x2000000, size, "a module" } };
    struct linux_plan plan;
    if (linux_plan(&bz, &map, busy, 3, 0, 0, 0, &plan, err, sizeof(err)))
        return 0;
    FUZZ_ASSERT(e820_range_is(&map, plan.kernel_mem, bz.init_size, 1), "kernel not in RAM");
    FUZZ_ASSERT(!place_conflict(busy, 3, plan.kernel_mem, bz.init_size), "kernel on busy");
    struct linux_boot_args args = { 0x9000, 0x801000, 0 };
    FUZZ_ASSERT(linux_build_boot_params(&bp, &bz, &plan, &map, &args) == 0, "boot params");
    FUZZ_ASSERT(memcmp(&bp.hdr, data + 0x1f1, 9) == 0 && bp.hdr.vid_mode == 0xffff, "hdr");
    FUZZ_ASSERT(bp.hdr.type_of_loader == 0xff && bp.hdr.code32_start == plan.kernel_load &&
                bp.e820_entries == map.nr && bp.tboot_addr == 0x801000, "zero page");
    return 0;
}
