/* SPDX-License-Identifier: MIT */
/* Multiboot2 information: the input is the tag list, placed in guest memory at MB2_BASE. */
#include "fuzz_common.h"

#include "boot/bootinfo.h"

#define MB2_BASE 0x100000u

static struct boot_info bi;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[192];

    if (size > (1u << 20) + 64)
        return 0;
    phys_fake_reset();
    phys_fake_add_copy(MB2_BASE, data, size);
    memset(err, 0x55, sizeof(err));
    int rc = bootinfo_parse(0x36d76289u, MB2_BASE, &bi, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    if (rc == 0) {
        FUZZ_ASSERT(bi.protocol == BOOT_MULTIBOOT2, "protocol %d", bi.protocol);
        FUZZ_ASSERT(bi.info_addr == MB2_BASE, "info_addr");
        FUZZ_ASSERT(size >= 16 && bi.info_size <= size && bi.info_size == get32(data, 0),
                    "info_size %u of %zu", bi.info_size, size);
        FUZZ_ASSERT(memchr(bi.cmdline, 0, sizeof(bi.cmdline)), "cmdline unterminated");
        FUZZ_ASSERT(memchr(bi.loader_name, 0, sizeof(bi.loader_name)), "name unterminated");
        FUZZ_ASSERT(bi.nr_modules <= BOOT_MAX_MODULES, "%u modules", bi.nr_modules);
        for (unsigned i = 0; i < bi.nr_modules; i++) {
            const struct boot_module *m = &bi.modules[i];
            FUZZ_ASSERT(m->end >= m->start, "module %u", i);
            FUZZ_ASSERT(m->string >= bi.strpool &&
                        m->string + strlen(m->string) < bi.strpool + bi.strpool_used,
                        "module %u string outside the pool", i);
        }
        FUZZ_ASSERT(bi.mmap.nr > 0, "no map");
        check_canonical(&bi.mmap);
        FUZZ_ASSERT(bi.rsdp_len == 0 || bi.rsdp_len == 20 || bi.rsdp_len == 36, "rsdp_len %u",
                    bi.rsdp_len);
    }
    phys_fake_reset();
    return 0;
}
