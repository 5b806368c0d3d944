/* SPDX-License-Identifier: MIT */
#include "hostpage.h"
#include "lib/bytes.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(char *err, size_t errsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errsz, const char *fmt, ...)
{
    va_list ap;

    if (err && errsz) {
        va_start(ap, fmt);
        vsnprintf(err, errsz, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* NULL if name[0..HOSTPAGE_NAME_MAX) is a valid name field, else the reason */
static const char *name_problem(const uint8_t *name, unsigned *bad)
{
    size_t n = 0;

    while (n < HOSTPAGE_NAME_MAX && name[n])
        n++;
    if (n == HOSTPAGE_NAME_MAX)
        return "the name is not NUL-terminated within 24 bytes";
    if (n == 0)
        return "the name is empty";
    for (size_t i = 0; i < n; i++)
        if (name[i] < 0x21 || name[i] > 0x7e) {
            *bad = name[i];
            return "the name has a byte that is not printable ASCII";
        }
    for (size_t i = n; i < HOSTPAGE_NAME_MAX; i++)
        if (name[i])
            return "the name field is not zero after its NUL";
    return NULL;
}

size_t hostpage_build(uint8_t *page, size_t cap, const struct hostpage_item *items, unsigned n)
{
    size_t at = HOSTPAGE_HDR;

    if (cap < HOSTPAGE_HDR || n > HOSTPAGE_MAX_ITEMS)
        return 0;
    memset(page, 0, cap);
    for (unsigned i = 0; i < n; i++) {
        uint8_t field[HOSTPAGE_NAME_MAX] = { 0 };
        size_t len = strnlen(items[i].name, HOSTPAGE_NAME_MAX);
        unsigned bad = 0;

        if (len >= HOSTPAGE_NAME_MAX)
            return 0;
        memcpy(field, items[i].name, len);
        if (name_problem(field, &bad))
            return 0;
        for (unsigned j = 0; j < i; j++)
            if (!strcmp(items[j].name, items[i].name))
                return 0;
        if (cap - at < HOSTPAGE_ENTRY_HDR || cap - at - HOSTPAGE_ENTRY_HDR < items[i].size)
            return 0;
        memcpy(page + at, field, HOSTPAGE_NAME_MAX);
        store_le32(page + at + 24, items[i].size);
        if (items[i].size)
            memcpy(page + at + HOSTPAGE_ENTRY_HDR, items[i].data, items[i].size);
        at += HOSTPAGE_ENTRY_HDR + items[i].size;
    }
    memcpy(page, HOSTPAGE_MAGIC, 8);
    store_le32(page + 8, (uint32_t)at);
    store_le32(page + 12, n);
    return at;
}

int hostpage_parse(const uint8_t *page, size_t len, struct hostpage_item *items,
                   unsigned max, unsigned *n, char *err, size_t errsz)
{
    uint32_t used, count;
    size_t at = HOSTPAGE_HDR;

    *n = 0;
    if (len < HOSTPAGE_HDR)
        return fail(err, errsz, "the page is too short: %zu bytes, its header is %u", len,
                    HOSTPAGE_HDR);
    if (memcmp(page, HOSTPAGE_MAGIC, 8))
        return fail(err, errsz, "not a vtboot host page (no \"" HOSTPAGE_MAGIC "\" magic)");
    used = load_le32(page + 8);
    count = load_le32(page + 12);
    if (used < HOSTPAGE_HDR || used > len)
        return fail(err, errsz, "the page says it uses %u bytes, outside %u..%zu", used,
                    HOSTPAGE_HDR, len);
    if (count > HOSTPAGE_MAX_ITEMS || count > max)
        return fail(err, errsz, "the page lists %u items, at most %u", count,
                    max < HOSTPAGE_MAX_ITEMS ? max : HOSTPAGE_MAX_ITEMS);
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = page + at;
        const char *why;
        unsigned bad = 0;
        uint32_t size, reserved;

        if (used - at < HOSTPAGE_ENTRY_HDR)
            return fail(err, errsz, "item %u of %u: its header runs past the used %u bytes",
                        i, count, used);
        if ((why = name_problem(e, &bad)) != NULL) {
            if (bad)
                return fail(err, errsz, "item %u: %s (0x%02x)", i, why, bad);
            return fail(err, errsz, "item %u: %s", i, why);
        }
        size = load_le32(e + 24);
        reserved = load_le32(e + 28);
        if (reserved)
            return fail(err, errsz, "item %u (%s): its reserved field is 0x%x, not 0", i,
                        (const char *)e, reserved);
        if (used - at - HOSTPAGE_ENTRY_HDR < size)
            return fail(err, errsz, "item %u (%s): its %u bytes run past the used %u bytes", i,
                        (const char *)e, size, used);
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(items[j].name, (const char *)e))
                return fail(err, errsz, "item %u: the name \"%s\" is there twice", i,
                            (const char *)e);
        memcpy(items[i].name, e, HOSTPAGE_NAME_MAX);
        items[i].data = e + HOSTPAGE_ENTRY_HDR;
        items[i].size = size;
        at += HOSTPAGE_ENTRY_HDR + size;
    }
    if (at != used)
        return fail(err, errsz, "%zu bytes after the last of %u items (the page says it uses "
                    "%u)", used - at, count, used);
    *n = count;
    return 0;
}

int hostpage_find(const uint8_t *page, size_t len, const char *name, const uint8_t **data,
                  uint32_t *size, char *err, size_t errsz)
{
    struct hostpage_item items[HOSTPAGE_MAX_ITEMS];
    unsigned n;
    size_t at;

    if (hostpage_parse(page, len, items, HOSTPAGE_MAX_ITEMS, &n, err, errsz) != 0)
        return -1;
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(items[i].name, name)) {
            *data = items[i].data;
            *size = items[i].size;
            return 0;
        }
    if (err && errsz) {
        at = (size_t)snprintf(err, errsz, "no item \"%s\" in the host page (%s", name,
                              n ? "it has: " : "it is empty");
        for (unsigned i = 0; i < n && at < errsz; i++)
            at += (size_t)snprintf(err + at, errsz - at, "%s%s", i ? ", " : "", items[i].name);
        if (at < errsz)
            snprintf(err + at, errsz - at, ")");
    }
    return 1;
}
