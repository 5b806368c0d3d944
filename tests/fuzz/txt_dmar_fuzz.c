/* SPDX-License-Identifier: MIT */
/*
 * src/txt/vtd_units.c's txt_dmar_take on arbitrary DMAR bytes (RAM the loader owns) against
 * platforms of 0 to 3 units: only the copy is read after the copy is made (the RAM bytes are
 * overwritten then), the result is one of the DMAR's error numbers, too big exactly past the
 * room, and an accepted copy equals the input, has a zero byte sum and names every unit
 * exactly once with its segment and flags, and nothing else.
 *
 * Input: byte 0: bits 0-1 the number of units (from a fixed list: QEMU's, and two more),
 * bit 2 fix the length field and checksum first (so mutations reach the structures), bit 3 a
 * room of 128 bytes instead of TXT_DMAR_MAX; the rest: the DMAR's bytes.
 */
#include "fuzz_common.h"

#include "lib/bytes.h"
#include "txt/vtd_units.h"

static const struct acpi_drhd pool[3] = {
    { 0xfed90000ull, 0, 0 },
    { 0xfed91000ull, 0, ACPI_DRHD_INCLUDE_PCI_ALL },
    { 0x1fed92000ull, 1, 0 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 2 * TXT_DMAR_MAX)
        return 0;
    uint8_t mode = data[0];
    unsigned n = mode & 3u;
    uint32_t len = (uint32_t)size - 1, cap = (mode & 8) ? 128u : TXT_DMAR_MAX;
    uint8_t *ram = malloc(len ? len : 1), *copy = malloc(cap), *orig = malloc(len ? len : 1);
    memcpy(ram, data + 1, len);
    if ((mode & 4) && len >= 36) {
        store_le32(ram + 4, len);
        ram[9] = 0;
        uint8_t sum = 0;
        for (uint32_t i = 0; i < len; i++)
            sum = (uint8_t)(sum + ram[i]);
        ram[9] = (uint8_t)-sum;
    }
    memcpy(orig, ram, len);
    memset(copy, 0xa5, cap);
    char err[200];
    unsigned sub = 0x5555;
    memset(err, 0x55, sizeof(err));
    enum txt_dmar_result r = txt_dmar_take(ram, len, copy, cap, pool, n, &sub, err, sizeof(err));
    check_err(err, sizeof(err), r == TXT_DMAR_OK ? 0 : -1);
    FUZZ_ASSERT(r == TXT_DMAR_OK || r == TXT_DMAR_MALFORMED || r == TXT_DMAR_TOO_BIG ||
                r == TXT_DMAR_UNITS, "result %d", r);
    FUZZ_ASSERT((r == TXT_DMAR_TOO_BIG) == (len > cap), "too big: %d for %u in %u", r, len, cap);
    FUZZ_ASSERT(r == TXT_DMAR_UNITS ? sub >= TXT_DMAR_UNIT_MISSING &&
                                          sub <= TXT_DMAR_UNIT_DIFFERS
                                    : sub == 0, "result %d sub %u", r, sub);
    if (r == TXT_DMAR_TOO_BIG) {
        for (uint32_t i = 0; i < cap; i++)
            FUZZ_ASSERT(copy[i] == 0xa5, "too big, yet copied");
    }
    if (r == TXT_DMAR_OK) {
        FUZZ_ASSERT(memcmp(copy, orig, len) == 0, "the copy is not the table");
        FUZZ_ASSERT(memcmp(copy, "DMAR", 4) == 0 && load_le32(copy + 4) == len, "header");
        uint8_t sum = 0;
        for (uint32_t i = 0; i < len; i++)
            sum = (uint8_t)(sum + copy[i]);
        FUZZ_ASSERT(sum == 0, "checksum");
        struct acpi_drhd d[4];
        unsigned nd;
        char e2[128];
        FUZZ_ASSERT(acpi_dmar_drhds(copy, len, d, 4, &nd, e2, sizeof(e2)) == 0 && nd == n,
                    "%u DRHDs for %u units", nd, n);
        for (unsigned u = 0; u < n; u++) {
            unsigned times = 0;
            for (unsigned i = 0; i < nd; i++)
                times += d[i].base == pool[u].base && d[i].segment == pool[u].segment &&
                         d[i].flags == pool[u].flags;
            FUZZ_ASSERT(times == 1, "unit %u named %u times", u, times);
        }
    }
    /* taken again from the copy alone (the RAM bytes changed after the copy): the same answer */
    if (r != TXT_DMAR_TOO_BIG) {
        uint8_t *copy2 = malloc(cap);
        memset(ram, 0x5a, len);
        unsigned sub2;
        enum txt_dmar_result r2 = txt_dmar_take(copy, len, copy2, cap, pool, n, &sub2, err,
                                                sizeof(err));
        FUZZ_ASSERT(r2 == r && sub2 == sub, "the copy answers %d/%u, the table %d/%u", r2, sub2,
                    r, sub);
        free(copy2);
    }
    free(ram);
    free(copy);
    free(orig);
    return 0;
}
