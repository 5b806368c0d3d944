/* SPDX-License-Identifier: MIT */
/*
 * src/txt/mle_walk.c on arbitrary MLE page tables (tboot, or whoever runs before SENTER, writes
 * them): a walk that succeeds hands over physically contiguous pages (page i at page 0 +
 * i * 4096), each
 * inside the allowed range and outside the forbidden one, no table among them, exactly
 * ceil(size / 4096) of them with only the last one short; txt_mle_phys agrees with the walk.
 *
 * Input: u16 PDPT page index, u16 MLE size in 256-byte units, then the bytes of a 64-page
 * window of guest memory at 0x800000 (what the tables and pages are made of).
 */
#include "fuzz_common.h"

#include "lib/bytes.h"
#include "lib/phys.h"
#include "phys_fake.h"
#include "txt/mle_walk.h"

#define BASE 0x800000u
#define PAGES 64u

static const struct txt_mle_limits lim = {
    .allowed_base = BASE, .allowed_size = (PAGES - 4) * 4096u,
    .nr_forbidden = 1, .forbidden = { { BASE + 40 * 4096u, 4 * 4096u } },
};

struct seen {
    uint64_t pages[PAGES + 1];
    uint32_t lens[PAGES + 1];
    unsigned n;
};

static int page(void *ctx, uint64_t phys, uint32_t len)
{
    struct seen *s = ctx;
    FUZZ_ASSERT(s->n <= PAGES, "more pages than the window holds");
    s->pages[s->n] = phys;
    s->lens[s->n++] = len;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
    if (n < 4)
        return 0;
    uint64_t ptab = BASE + 4096ull * (load_le16(in) % (PAGES + 2));
    uint64_t size = 256ull * load_le16(in + 2);
    phys_fake_reset();
    uint8_t *mem = phys_fake_add(BASE, PAGES * 4096u);
    memcpy(mem, in + 4, n - 4 < PAGES * 4096u ? n - 4 : PAGES * 4096u);

    struct seen s = { .n = 0 };
    char err[200];
    memset(err, 0x55, sizeof(err));
    int rc = txt_mle_walk(ptab, size, &lim, page, &s, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    if (rc)
        return 0;
    FUZZ_ASSERT(s.n == (size + 4095) / 4096, "%u pages for 0x%llx bytes", s.n,
                (unsigned long long)size);
    for (unsigned i = 0; i < s.n; i++) {
        FUZZ_ASSERT(s.pages[i] % 4096 == 0 && s.pages[i] >= lim.allowed_base &&
                    s.pages[i] + 4096 <= lim.allowed_base + lim.allowed_size, "page %u", i);
        FUZZ_ASSERT(!ranges_overlap(s.pages[i], 4096, lim.forbidden[0].base,
                                    lim.forbidden[0].size), "page %u forbidden", i);
        FUZZ_ASSERT(s.pages[i] == s.pages[0] + 4096ull * i, "page %u not contiguous", i);
        FUZZ_ASSERT(s.lens[i] == (i + 1 < s.n ? 4096 : size - 4096ull * i), "page %u length", i);
        FUZZ_ASSERT(ptab < s.pages[0] || ptab > s.pages[s.n - 1], "the PDPT among the pages");
        uint64_t phys;
        FUZZ_ASSERT(txt_mle_phys(ptab, size, &lim, 4096ull * i + 7, &phys, err, sizeof(err)) == 0 &&
                    phys == s.pages[i] + 7, "txt_mle_phys disagrees at page %u", i);
    }
    return 0;
}
