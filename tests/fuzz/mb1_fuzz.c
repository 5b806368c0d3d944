/* SPDX-License-Identifier: MIT */
/*
 * Multiboot1 information: the whole input is guest memory at MB1_BASE and the info structure
 * is its first 72 bytes, so the pointers in it (cmdline, modules, mmap, strings) can reach
 * every other part of the input. Seeds carry such pointers (gen_corpus.c).
 */
#include "fuzz_common.h"

#include "boot/bootinfo.h"

#define MB1_BASE 0x100000u

static struct boot_info bi;

static void check_info(const struct boot_info *b)
{
    FUZZ_ASSERT(memchr(b->cmdline, 0, sizeof(b->cmdline)), "cmdline unterminated");
    FUZZ_ASSERT(memchr(b->loader_name, 0, sizeof(b->loader_name)), "loader name unterminated");
    FUZZ_ASSERT(b->nr_modules <= BOOT_MAX_MODULES, "%u modules", b->nr_modules);
    FUZZ_ASSERT(b->strpool_used <= sizeof(b->strpool), "pool %u", b->strpool_used);
    for (unsigned i = 0; i < b->nr_modules; i++) {
        const struct boot_module *m = &b->modules[i];
        FUZZ_ASSERT(m->end >= m->start, "module %u end < start", i);
        FUZZ_ASSERT(m->string >= b->strpool && m->string < b->strpool + b->strpool_used,
                    "module %u string outside the pool", i);
        size_t room = (size_t)(b->strpool + b->strpool_used - m->string);
        FUZZ_ASSERT(memchr(m->string, 0, room), "module %u string unterminated", i);
        FUZZ_ASSERT(strlen(m->string) < BOOT_MODSTR_MAX, "module %u string too long", i);
    }
    FUZZ_ASSERT(b->mmap.nr > 0, "success without a memory map");
    check_canonical(&b->mmap);
    FUZZ_ASSERT(b->rsdp_len == 0 || b->rsdp_len == 20 || b->rsdp_len == 36, "rsdp_len %u",
                b->rsdp_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[192];

    if (size > 1u << 20)
        return 0;
    phys_fake_reset();
    phys_fake_add_copy(MB1_BASE, data, size);
    memset(err, 0x55, sizeof(err));
    int rc = bootinfo_parse(0x2badb002u, MB1_BASE, &bi, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    if (rc == 0) {
        FUZZ_ASSERT(bi.protocol == BOOT_MULTIBOOT1, "protocol %d", bi.protocol);
        FUZZ_ASSERT(bi.info_addr == MB1_BASE && bi.info_size == 72, "info range");
        check_info(&bi);
    } else {
        FUZZ_ASSERT(strncmp(err, "multiboot1: ", 12) == 0 || strstr(err, "memory map") ||
                        strstr(err, "module"), "unexpected message '%s'", err);
    }
    phys_fake_reset();
    return 0;
}
