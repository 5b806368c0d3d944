/* SPDX-License-Identifier: MIT */
#include "boot/modules.h"
#include "lib/format.h"
#include "lib/phys.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int modules_check(const struct boot_info *bi, uint64_t image_start, uint64_t image_end,
                  char *err, unsigned errlen)
{
    for (unsigned i = 0; i < bi->nr_modules; i++) {
        const struct boot_module *m = &bi->modules[i];
        uint32_t size = m->end - m->start;
        if (size && ranges_overlap(m->start, size, image_start, image_end - image_start))
            FAIL("module %u at 0x%x+0x%x overlaps vtboot's loaded image 0x%llx-0x%llx", i,
                 m->start, size, (unsigned long long)image_start,
                 (unsigned long long)image_end);
        if (size && !e820_range_is(&bi->mmap, m->start, size, E820_TYPE_RAM))
            FAIL("module %u at 0x%x+0x%x is not in RAM", i, m->start, size);
        for (unsigned j = 0; j < i; j++) {
            const struct boot_module *o = &bi->modules[j];
            if (ranges_overlap(m->start, size, o->start, o->end - o->start))
                FAIL("modules %u and %u overlap", j, i);
        }
    }
    return 0;
}
