/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the attestation host page (host/lib/hostpage.c), as the guest tool reads
 * it from the ivshmem BAR. Input: byte 0 picks `max` and the name to look up, the rest is the
 * page (at most HOSTPAGE_SIZE bytes are read, as the guest maps). Invariants: an accepted page
 * has its items inside its used bytes, end to end, each name valid and unique; hostpage_build
 * of those items writes exactly the page's used bytes again; hostpage_find agrees with the
 * parse (found, not found, malformed); every refusal has a reason.
 */
#include "hostpage.h"
#include "lib/bytes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t rebuilt[HOSTPAGE_SIZE];
    struct hostpage_item items[HOSTPAGE_MAX_ITEMS];
    unsigned max, n = 99;
    char err[256] = "", name[HOSTPAGE_NAME_MAX + 8];
    const uint8_t *page, *d = NULL;
    uint8_t *copy;
    size_t len, used;
    uint32_t dsz = 0;
    int rc, frc;

    if (size < 1)
        return 0;
    max = data[0] & 0x80 ? HOSTPAGE_MAX_ITEMS : data[0] & 0x7f;
    len = size - 1 > HOSTPAGE_SIZE ? HOSTPAGE_SIZE : size - 1;
    copy = malloc(len ? len : 1);       /* exactly len bytes: ASan sees any read past them */
    memcpy(copy, data + 1, len);
    page = copy;
    rc = hostpage_parse(page, len, items, max, &n, err, sizeof(err));
    if (rc != 0) {
        check(rc == -1 && err[0] && n == 0);
    } else {
        uint32_t at = HOSTPAGE_HDR;

        used = load_le32(page + 8);
        check(!memcmp(page, HOSTPAGE_MAGIC, 8) && used >= HOSTPAGE_HDR && used <= len);
        check(n == load_le32(page + 12) && n <= max && n <= HOSTPAGE_MAX_ITEMS);
        for (unsigned i = 0; i < n; i++) {
            size_t nl = strnlen(items[i].name, HOSTPAGE_NAME_MAX);

            check(nl > 0 && nl < HOSTPAGE_NAME_MAX);
            for (size_t k = 0; k < nl; k++)
                check(items[i].name[k] > 0x20 && items[i].name[k] < 0x7f);
            check(items[i].data == page + at + HOSTPAGE_ENTRY_HDR);
            at += HOSTPAGE_ENTRY_HDR + items[i].size;
            check(at <= used);
            for (unsigned j = 0; j < i; j++)
                check(strcmp(items[i].name, items[j].name) != 0);
        }
        check(at == used);
        /* the writer makes the same bytes from the items */
        check(hostpage_build(rebuilt, sizeof(rebuilt), items, n) == used);
        check(!memcmp(rebuilt, page, used));
        for (size_t k = used; k < sizeof(rebuilt); k++)
            check(rebuilt[k] == 0);
    }
    /* find: the first item's name, or a name from the input byte */
    if (rc == 0 && n && (data[0] & 1))
        memcpy(name, items[0].name, HOSTPAGE_NAME_MAX);
    else
        strcpy(name, data[0] & 2 ? "nonce" : "x");
    err[0] = 0;
    frc = hostpage_find(page, len, name, &d, &dsz, err, sizeof(err));
    if (max < HOSTPAGE_MAX_ITEMS && rc != 0) {
        /* parse refused for `max` (count above it) or for the page: find uses 64 */
        check(frc == -1 || frc == 0 || frc == 1);
    } else if (rc != 0) {
        check(frc == -1 && err[0]);
    }
    if (frc == 0) {
        check(d >= page + HOSTPAGE_HDR + HOSTPAGE_ENTRY_HDR && d + dsz <= page + len);
        check(!strcmp((const char *)d - HOSTPAGE_ENTRY_HDR, name));
    } else if (frc == 1) {
        check(err[0] != 0);
        if (rc == 0)
            for (unsigned i = 0; i < n; i++)
                check(strcmp(items[i].name, name) != 0);
    }
    if (rc == 0 && n && (data[0] & 1))
        check(frc == 0 && d == items[0].data && dsz == items[0].size);
    free(copy);
    return 0;
}
