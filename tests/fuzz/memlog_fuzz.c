/* SPDX-License-Identifier: MIT */
/*
 * The memory log with any header at all (what the kernel, or anyone writing RAM while the
 * machine sleeps, can leave at 0x60000): the input's first bytes become the region (header
 * included), the rest is appended in pieces. Nothing may be written outside the region, and
 * after an append the log is valid.
 */
#include "fuzz_common.h"

#include "log/memlog.h"

#define GUARD 256u
#define REGION_MAX 4096u

static uint8_t mem[REGION_MAX + GUARD];
static uint8_t scratch[REGION_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t region = 62 + (size_t)(data[0] | data[1] << 8) % (REGION_MAX - 62 + 1);
    data += 2;
    size -= 2;
    memset(mem, 0xa5, sizeof(mem));
    size_t head = size < region ? size : region;
    memcpy(mem, data, head);
    data += head;
    size -= head;
    struct tboot_log *log = (struct tboot_log *)mem;
    /* a region a fresh log is valid in: every append must leave a valid log there */
    bool could_hold = memlog_valid(memlog_init(scratch, region), region);
    while (size) {
        size_t n = data[0] % 64;
        data++;
        size--;
        if (n > size)
            n = size;
        size_t stored = memlog_append(log, region, (const char *)data, n);
        FUZZ_ASSERT(stored <= n, "stored %zu of %zu", stored, n);
        if (could_hold)
            FUZZ_ASSERT(memlog_valid(log, region), "invalid after an append");
        data += n;
        size -= n;
    }
    for (size_t i = region; i < sizeof(mem); i++)
        FUZZ_ASSERT(mem[i] == 0xa5, "byte %zu past a %zu-byte region written", i - region,
                    region);
    return 0;
}
