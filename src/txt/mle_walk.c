/* SPDX-License-Identifier: MIT */
#include "txt/mle_walk.h"

#include "abi/mle.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/phys.h"
#include "lib/string.h"

#define FAIL(...) do { fmt_snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

#define PAGE 4096u
#define PTE_PRESENT 0x1u
#define PTE_PS 0x80u                         /* a large page in a PD entry */
#define PTE_ADDR 0x000ffffffffff000ull
#define FOUR_GIB 0x100000000ull

/* A table or page at `addr` may be used: aligned, below 4 GiB, allowed, not forbidden. */
static int usable(uint64_t addr, const struct txt_mle_limits *lim, const char *what, char *err,
                  unsigned errlen)
{
    if (addr & (PAGE - 1) || addr >= FOUR_GIB)
        FAIL("%s at 0x%llx: not a 4 KiB page below 4 GiB", what, (unsigned long long)addr);
    if (addr < lim->allowed_base || addr - lim->allowed_base >= lim->allowed_size ||
        lim->allowed_size - (addr - lim->allowed_base) < PAGE)
        FAIL("%s at 0x%llx: outside the DMA-protected range [0x%llx, 0x%llx)", what,
             (unsigned long long)addr, (unsigned long long)lim->allowed_base,
             (unsigned long long)(lim->allowed_base + lim->allowed_size));
    for (unsigned i = 0; i < lim->nr_forbidden && i < TXT_MLE_MAX_FORBIDDEN; i++)
        if (ranges_overlap(addr, PAGE, lim->forbidden[i].base, lim->forbidden[i].size))
            FAIL("%s at 0x%llx: inside the TXT region [0x%llx, 0x%llx)", what,
                 (unsigned long long)addr, (unsigned long long)lim->forbidden[i].base,
                 (unsigned long long)(lim->forbidden[i].base + lim->forbidden[i].size));
    return 0;
}

/* Entry `i` of the table at `table`: the next level's (or the page's) address. */
static int entry(uint64_t table, unsigned i, const char *what, uint64_t linear, uint64_t *next,
                 char *err, unsigned errlen)
{
    const uint8_t *t = phys_map(table + 8u * i, 8);
    if (!t)
        FAIL("%s at 0x%llx: not addressable", what, (unsigned long long)table);
    uint64_t e = load_le64(t);
    if (!(e & PTE_PRESENT))
        FAIL("%s entry %u for linear 0x%llx: not present", what, i, (unsigned long long)linear);
    if (e & PTE_PS)
        FAIL("%s entry %u for linear 0x%llx: a large page", what, i, (unsigned long long)linear);
    *next = e & PTE_ADDR;
    return 0;
}

struct walk {
    uint64_t ptab, mle_size;
    const struct txt_mle_limits *lim;
    uint64_t tables[3 + TXT_MLE_MAX_SIZE / (512u * PAGE)];    /* PDPT, PD, the PTs */
    unsigned nr_tables;
};

static int note_table(struct walk *w, uint64_t t, const char *what, char *err, unsigned errlen)
{
    for (unsigned i = 0; i < w->nr_tables; i++)
        if (w->tables[i] == t)
            return 0;
    if (usable(t, w->lim, what, err, errlen))
        return -1;
    w->tables[w->nr_tables++] = t;
    return 0;
}

/* linear -> physical, every table on the way checked */
static int translate(struct walk *w, uint64_t linear, uint64_t *phys, char *err, unsigned errlen)
{
    uint64_t pd, pt;
    if (note_table(w, w->ptab, "the page directory pointer table", err, errlen) ||
        entry(w->ptab, (unsigned)(linear >> 30) & 3, "PDPT", linear, &pd, err, errlen) ||
        note_table(w, pd, "a page directory", err, errlen) ||
        entry(pd, (unsigned)(linear >> 21) & 511, "PD", linear, &pt, err, errlen) ||
        note_table(w, pt, "a page table", err, errlen) ||
        entry(pt, (unsigned)(linear >> 12) & 511, "PT", linear, phys, err, errlen) ||
        usable(*phys, w->lim, "an MLE page", err, errlen))
        return -1;
    return 0;
}

static int start(struct walk *w, uint64_t ptab, uint64_t mle_size,
                 const struct txt_mle_limits *lim, char *err, unsigned errlen)
{
    w->ptab = ptab;
    w->mle_size = mle_size;
    w->lim = lim;
    w->nr_tables = 0;
    if (mle_size == 0 || mle_size > TXT_MLE_MAX_SIZE)
        FAIL("MLE size 0x%llx, not 1 byte to %u MiB", (unsigned long long)mle_size,
             TXT_MLE_MAX_SIZE >> 20);
    return 0;
}

int txt_mle_walk(uint64_t ptab, uint64_t mle_size, const struct txt_mle_limits *lim,
                 txt_mle_page_fn fn, void *ctx, char *err, unsigned errlen)
{
    struct walk w;
    uint64_t first = 0, pages = (mle_size + PAGE - 1) / PAGE;

    if (start(&w, ptab, mle_size, lim, err, errlen))
        return -1;
    for (uint64_t i = 0; i < pages; i++) {
        uint64_t phys;
        if (translate(&w, i * PAGE, &phys, err, errlen))
            return -1;
        if (i == 0)
            first = phys;
        /* entered with paging off, the MLE runs the bytes at first + its linear address:
         * only a contiguous MLE runs the pages that were measured */
        if (phys != first + i * PAGE)
            FAIL("MLE page %llu at 0x%llx, not at 0x%llx: the MLE is not physically "
                 "contiguous", (unsigned long long)i, (unsigned long long)phys,
                 (unsigned long long)(first + i * PAGE));
    }
    /* the MLE lies in [first, first + pages * PAGE): no table may be in there */
    for (unsigned t = 0; t < w.nr_tables; t++)
        if (w.tables[t] >= first && w.tables[t] - first < pages * PAGE)
            FAIL("a page table at 0x%llx lies among the MLE's pages [0x%llx, 0x%llx)",
                 (unsigned long long)w.tables[t], (unsigned long long)first,
                 (unsigned long long)(first + pages * PAGE));
    for (uint64_t i = 0; i < pages; i++) {
        uint64_t phys;
        if (translate(&w, i * PAGE, &phys, err, errlen))
            return -1;
        uint64_t left = mle_size - i * PAGE;
        int rc = fn(ctx, phys, left < PAGE ? (uint32_t)left : PAGE);
        if (rc)
            return rc;
    }
    return 0;
}

int txt_mle_phys(uint64_t ptab, uint64_t mle_size, const struct txt_mle_limits *lim,
                 uint64_t linear, uint64_t *phys, char *err, unsigned errlen)
{
    struct walk w;
    if (start(&w, ptab, mle_size, lim, err, errlen))
        return -1;
    if (linear >= mle_size)
        FAIL("linear 0x%llx beyond the MLE's 0x%llx bytes", (unsigned long long)linear,
             (unsigned long long)mle_size);
    if (translate(&w, linear & ~(uint64_t)(PAGE - 1), phys, err, errlen))
        return -1;
    *phys += linear & (PAGE - 1);
    return 0;
}

int txt_mle_header_check(const struct mle_hdr *h, uint64_t hdr_linear, uint64_t mle_size,
                         uint32_t min_ver, char *err, unsigned errlen)
{
    static const uint8_t uuid[16] = MLE_HDR_UUID_BYTES;
    /* the fields each version has: 2.0 ends at capabilities, 2.1 adds the command line */
    uint32_t need = h->version >= MLE_HDR_VERSION ? sizeof(*h)
                                                  : offsetof(struct mle_hdr, cmdline_start_off);

    if (hdr_linear >= mle_size || mle_size - hdr_linear < sizeof(*h))
        FAIL("MLE header at 0x%llx: not inside the MLE's 0x%llx bytes",
             (unsigned long long)hdr_linear, (unsigned long long)mle_size);
    if (memcmp(h->uuid, uuid, sizeof(uuid)))
        FAIL("MLE header at 0x%llx: not tboot's UUID", (unsigned long long)hdr_linear);
    if (h->version < min_ver || h->version > MLE_HDR_VERSION)
        FAIL("MLE header version 0x%08x: the SINIT takes 0x%08x-0x%08x", h->version, min_ver,
             MLE_HDR_VERSION);
    if (h->length < need)
        FAIL("MLE header length %u: version 0x%08x has %u bytes", h->length, h->version, need);
    if (h->entry_point >= mle_size)
        FAIL("MLE entry point 0x%x: outside the MLE's 0x%llx bytes", h->entry_point,
             (unsigned long long)mle_size);
    return 0;
}
