/* SPDX-License-Identifier: MIT */
/* place_conflict / place_is_free / place_lowest / place_highest. */
#include "test_common.h"

#include "mem/place.h"

#define MiB 0x100000ull
#define GiB 0x40000000ull

static struct e820_map m;

static void map_qemu(void)
{
    /* 128 MiB guest below 4 GiB plus 1 GiB above it */
    memset(&m, 0, sizeof(m));
    e820_append(&m, 0, 0x9fc00, 1);
    e820_append(&m, 0x9fc00, 0x400, 2);
    e820_append(&m, 0xf0000, 0x10000, 2);
    e820_append(&m, MiB, 127 * MiB, 1);
    e820_append(&m, 0xfffc0000, 0x40000, 2);
    e820_append(&m, 4 * GiB, GiB, 1);
    assert_int_equal(e820_sanitize(&m), 0);
}

static void conflict(void **state)
{
    (void)state;
    const struct mem_range busy[] = { { 0x800000, 0x200000, "vtboot" },
                                      { 0x60000, 0x8000, "memory log" },
                                      { 0x900000, 0x1000, "inside vtboot" },
                                      { 0x5000000, 0, "empty" } };
    assert_null(place_conflict(busy, 4, 0x600000, 0x200000));        /* ends where vtboot starts */
    assert_ptr_equal(place_conflict(busy, 4, 0x600000, 0x200001), &busy[0]);
    assert_ptr_equal(place_conflict(busy, 4, 0x9fffff, 1), &busy[0]);
    assert_null(place_conflict(busy, 4, 0xa00000, 0x1000));
    assert_ptr_equal(place_conflict(busy, 4, 0x67fff, 0x100), &busy[1]);
    assert_ptr_equal(place_conflict(busy, 4, 0x900000, 1), &busy[0]); /* the first one */
    assert_null(place_conflict(busy, 4, 0x5000000, 0x1000));         /* empty busy range */
    assert_null(place_conflict(busy, 4, 0x800000, 0));                /* empty request */
    assert_null(place_conflict(busy, 0, 0x800000, 0x1000));
    assert_string_equal(place_conflict(busy, 4, 0, 0x100000)->what, "memory log");
}

static void is_free(void **state)
{
    (void)state;
    map_qemu();
    const struct mem_range busy[] = { { 0x800000, 0x200000, "vtboot" } };
    assert_true(place_is_free(&m, busy, 1, MiB, 7 * MiB));
    assert_false(place_is_free(&m, busy, 1, MiB, 7 * MiB + 1));      /* vtboot */
    assert_false(place_is_free(&m, busy, 1, 0x9f000, 0x1000));       /* reserved */
    assert_false(place_is_free(&m, busy, 1, 0xa0000, 0x1000));       /* hole */
    assert_true(place_is_free(&m, busy, 1, 4 * GiB, GiB));
    assert_false(place_is_free(&m, busy, 1, 4 * GiB, GiB + 1));
    assert_false(place_is_free(&m, busy, 1, 0x1000, 0));
}

static void lowest(void **state)
{
    (void)state;
    map_qemu();
    uint64_t at = 0;
    assert_true(place_lowest(&m, NULL, 0, 0, 4 * GiB, 0x1000, 0x1000, &at));
    assert_int_equal(at, 0);
    assert_true(place_lowest(&m, NULL, 0, 0x1234, 4 * GiB, 0x1000, 0x1000, &at));
    assert_int_equal(at, 0x2000);
    /* does not fit below 0x9fc00: next RAM is at 1 MiB */
    assert_true(place_lowest(&m, NULL, 0, 0x90000, 4 * GiB, 0x10000, 0x1000, &at));
    assert_int_equal(at, MiB);
    /* 16 MiB alignment */
    assert_true(place_lowest(&m, NULL, 0, MiB, 4 * GiB, 0x1000, 16 * MiB, &at));
    assert_int_equal(at, 16 * MiB);

    const struct mem_range busy[] = { { 0x1000000, 0x300000, "a" }, { 0x1400000, 0x1000, "b" },
                                      { 0x1600000, 0x100000, "c" } };
    /* 0x1000000 (a), 0x1400000 (b), 0x1600000 (c) are busy: the next 2 MiB step is free */
    assert_true(place_lowest(&m, busy, 3, 16 * MiB, 4 * GiB, 2 * MiB, 2 * MiB, &at));
    assert_int_equal(at, 0x1800000);
    /* with 4 KiB alignment: right after b runs into c, so right after c */
    assert_true(place_lowest(&m, busy, 3, 16 * MiB, 4 * GiB, 0x200000, 0x1000, &at));
    assert_int_equal(at, 0x1700000);
    assert_true(place_lowest(&m, busy, 3, 16 * MiB, 4 * GiB, 0x1ff000, 0x1000, &at));
    assert_int_equal(at, 0x1401000);
    assert_true(place_lowest(&m, busy, 3, 16 * MiB, 4 * GiB, 0x100000, 0x1000, &at));
    assert_int_equal(at, 0x1300000);

    /* 4 GiB limit: the RAM above 4 GiB is not used, the whole low RAM is too small */
    assert_false(place_lowest(&m, NULL, 0, MiB, 4 * GiB, 128 * MiB, 0x1000, &at));
    assert_true(place_lowest(&m, NULL, 0, MiB, 8 * GiB, 128 * MiB, 0x1000, &at));
    assert_int_equal(at, 4 * GiB);
    /* exactly up to the limit */
    assert_true(place_lowest(&m, NULL, 0, 100 * MiB, 128 * MiB, 28 * MiB, 0x1000, &at));
    assert_int_equal(at, 100 * MiB);
    assert_false(place_lowest(&m, NULL, 0, 100 * MiB, 128 * MiB - 1, 28 * MiB, 0x1000, &at));
    /* bad arguments */
    assert_false(place_lowest(&m, NULL, 0, 0, 4 * GiB, 0, 0x1000, &at));
    assert_false(place_lowest(&m, NULL, 0, 0, 4 * GiB, 0x1000, 0, &at));
    assert_false(place_lowest(&m, NULL, 0, 0, 4 * GiB, 0x1000, 0x3000, &at));
    /* a busy range that covers everything */
    const struct mem_range all[] = { { 0, 8 * GiB, "all" } };
    assert_false(place_lowest(&m, all, 1, 0, 8 * GiB, 0x1000, 0x1000, &at));
    /* a busy range reaching the end of the address space does not wrap the search */
    const struct mem_range top[] = { { 5 * GiB - 0x1000, ~0ull - (5 * GiB - 0x1000), "top" } };
    assert_false(place_lowest(&m, top, 1, 5 * GiB - 0x1000, ~0ull, 0x1000, 0x1000, &at));
}

static void highest(void **state)
{
    (void)state;
    map_qemu();
    uint64_t at = 0;
    /* the highest page below 4 GiB is the last of the 128 MiB */
    assert_true(place_highest(&m, NULL, 0, MiB, 4 * GiB, 0x1000, 0x1000, &at));
    assert_int_equal(at, 128 * MiB - 0x1000);
    /* with no limit, it is above 4 GiB */
    assert_true(place_highest(&m, NULL, 0, MiB, 16 * GiB, 0x1000, 0x1000, &at));
    assert_int_equal(at, 5 * GiB - 0x1000);
    /* limit inside RAM; alignment rounds down */
    assert_true(place_highest(&m, NULL, 0, MiB, 0x2345678, 0x10000, 0x10000, &at));
    assert_int_equal(at, 0x2330000);
    assert_true(place_highest(&m, NULL, 0, MiB, 0x2345678, 0x10000, 0x1000, &at));
    assert_int_equal(at, 0x2335000);

    const struct mem_range busy[] = { { 0x7f00000, 0x100000, "initrd" },
                                      { 0x7c00000, 0x280000, "kernel" } };
    /* skips both: ends at 0x7c00000 */
    assert_true(place_highest(&m, busy, 2, MiB, 4 * GiB, 0x100000, 0x1000, &at));
    assert_int_equal(at, 0x7b00000);
    /* small enough for the gap between them */
    assert_true(place_highest(&m, busy, 2, MiB, 4 * GiB, 0x80000, 0x1000, &at));
    assert_int_equal(at, 0x7e80000);
    /* min bounds the search */
    assert_false(place_highest(&m, busy, 2, 0x7b80000, 4 * GiB, 0x100000, 0x1000, &at));
    assert_true(place_highest(&m, busy, 2, 0x7b00000, 4 * GiB, 0x100000, 0x1000, &at));
    assert_int_equal(at, 0x7b00000);
    /* low memory is used when the high part is busy, and min 0 is fine */
    const struct mem_range high[] = { { MiB, 127 * MiB, "everything" } };
    assert_true(place_highest(&m, high, 1, 0, 4 * GiB, 0x10000, 0x1000, &at));
    assert_int_equal(at, 0x8f000);
    assert_false(place_highest(&m, high, 1, 0, 4 * GiB, 0x100000, 0x1000, &at));
    /* bad arguments */
    assert_false(place_highest(&m, NULL, 0, 0, 4 * GiB, 0, 0x1000, &at));
    assert_false(place_highest(&m, NULL, 0, 0, 4 * GiB, 0x1000, 0x1800, &at));
    assert_false(place_highest(&m, NULL, 0, 0, 4 * GiB, 256 * MiB, 0x1000, &at));
}

/* Brute force on a small map: the fast search agrees with trying every aligned address. */
static bool free_at(const struct mem_range *busy, unsigned n, uint64_t a, uint64_t size)
{
    return e820_range_is(&m, a, size, 1) && !place_conflict(busy, n, a, size);
}

static uint32_t seed = 12345;

static uint32_t rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
}
#define RND() rnd()

static void brute_force(void **state)
{
    (void)state;
    for (unsigned iter = 0; iter < 300; iter++) {
        memset(&m, 0, sizeof(m));
        unsigned ne = 1 + RND() % 6;
        for (unsigned i = 0; i < ne; i++) {
            uint64_t a = (RND() % 64) * 0x1000ull, s = (1 + RND() % 16) * 0x1000ull;
            e820_append(&m, a, s, RND() % 3 ? 1 : 2);
        }
        assert_int_equal(e820_sanitize(&m), 0);
        struct mem_range busy[4];
        unsigned nb = RND() % 5;
        for (unsigned i = 0; i < nb; i++) {
            uint64_t a = (RND() % 80) * 0x800ull, s = (RND() % 8) * 0x800ull;
            busy[i] = (struct mem_range){ a, s, "b" };
        }
        uint64_t size = (1 + RND() % 6) * 0x800ull;
        uint64_t align = 0x800ull << (RND() % 3);
        uint64_t min = (RND() % 16) * 0x1000ull;
        uint64_t limit = (RND() % 90) * 0x1000ull;
        uint64_t want_lo = ~0ull, want_hi = ~0ull, at;
        for (uint64_t a = 0; a + size <= limit; a += align) {
            if (a >= min && free_at(busy, nb, a, size)) {
                if (want_lo == ~0ull)
                    want_lo = a;
                want_hi = a;
            }
        }
        bool ok = place_lowest(&m, busy, nb, min, limit, size, align, &at);
        assert_int_equal(ok, want_lo != ~0ull);
        if (ok)
            assert_int_equal(at, want_lo);
        ok = place_highest(&m, busy, nb, min, limit, size, align, &at);
        assert_int_equal(ok, want_hi != ~0ull);
        if (ok)
            assert_int_equal(at, want_hi);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conflict),
        cmocka_unit_test(is_free),
        cmocka_unit_test(lowest),
        cmocka_unit_test(highest),
        cmocka_unit_test(brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
