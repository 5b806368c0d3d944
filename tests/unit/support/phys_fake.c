/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "lib/phys.h"
#include "phys_fake.h"

struct window {
    uint64_t base;
    size_t size;
    uint8_t *buf;
};


static struct window windows[PHYS_FAKE_MAX_WINDOWS];
static unsigned nwindows;
static void **copies;
static size_t ncopies, capcopies;
static bool strict = true;
static unsigned long calls, misses;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        abort();
    return p;
}

void *phys_fake_add(uint64_t base, size_t size)
{
    if (nwindows == PHYS_FAKE_MAX_WINDOWS)
        abort();
    struct window *w = &windows[nwindows++];
    w->base = base;
    w->size = size;
    w->buf = xmalloc(size);
    memset(w->buf, 0, size);
    return w->buf;
}

void *phys_fake_add_copy(uint64_t base, const void *data, size_t size)
{
    void *p = phys_fake_add(base, size);
    memcpy(p, data, size);
    return p;
}

static struct window *find(uint64_t addr, uint64_t len)
{
    for (unsigned i = 0; i < nwindows; i++) {
        struct window *w = &windows[i];
        if (addr >= w->base && addr - w->base <= w->size && len <= w->size - (addr - w->base))
            return w;
    }
    return NULL;
}

void *phys_fake_ptr(uint64_t addr)
{
    struct window *w = find(addr, 1);
    return w ? w->buf + (addr - w->base) : NULL;
}

void phys_fake_reset(void)
{
    for (unsigned i = 0; i < nwindows; i++)
        free(windows[i].buf);
    nwindows = 0;
    for (size_t i = 0; i < ncopies; i++)
        free(copies[i]);
    free(copies);
    copies = NULL;
    ncopies = capcopies = 0;
    strict = true;
    calls = misses = 0;
}

void phys_fake_set_strict(bool s)
{
    strict = s;
}

unsigned long phys_fake_calls(void)
{
    return calls;
}

unsigned long phys_fake_misses(void)
{
    return misses;
}

void *phys_map(uint64_t addr, uint64_t len)
{
    calls++;
    struct window *w = range_fits(addr, len, 0x100000000ull) && addr ? find(addr, len) : NULL;
    if (!w) {
        misses++;
        return NULL;
    }
    uint8_t *src = w->buf + (addr - w->base);
    if (!strict)
        return src;
    /* exactly len bytes, so ASan's redzones start right before and after them */
    if (ncopies == capcopies) {
        capcopies = capcopies ? 2 * capcopies : 64;
        copies = realloc(copies, capcopies * sizeof(*copies));
        if (!copies)
            abort();
    }
    void *c = xmalloc(len);
    memcpy(c, src, len);
    copies[ncopies++] = c;
    return c;
}
