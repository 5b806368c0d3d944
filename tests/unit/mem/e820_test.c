/* SPDX-License-Identifier: MIT */
/* e820_append / e820_sanitize / e820_set_range / e820_range_is / e820_type_name. */
#include "test_common.h"

#include "mem/e820.h"

static struct e820_map m;

struct ent { uint64_t addr, size; uint32_t type; };

static void load(const struct ent *e, unsigned n)
{
    memset(&m, 0, sizeof(m));
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(e820_append(&m, e[i].addr, e[i].size, e[i].type), 0);
}

static void expect_map(const struct ent *e, unsigned n)
{
    int ok = m.nr == n;
    for (unsigned i = 0; ok && i < n; i++)
        ok = m.e[i].addr == e[i].addr && m.e[i].size == e[i].size && m.e[i].type == e[i].type;
    if (ok)
        return;
    for (unsigned i = 0; i < m.nr; i++)
        print_message("  got  %u: 0x%llx+0x%llx %u\n", i, (unsigned long long)m.e[i].addr,
                      (unsigned long long)m.e[i].size, m.e[i].type);
    for (unsigned i = 0; i < n; i++)
        print_message("  want %u: 0x%llx+0x%llx %u\n", i, (unsigned long long)e[i].addr,
                      (unsigned long long)e[i].size, e[i].type);
    fail_msg("map differs");
}

/* The live part of two maps is the same. */
static void expect_same(const struct e820_map *a, const struct e820_map *b)
{
    assert_int_equal(a->nr, b->nr);
    assert_memory_equal(a->e, b->e, a->nr * sizeof(a->e[0]));
}

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define SANITIZE(in, out)                                                                    \
    do {                                                                                     \
        load(in, N(in));                                                                     \
        assert_int_equal(e820_sanitize(&m), 0);                                              \
        expect_map(out, N(out));                                                             \
    } while (0)

static void append_rules(void **state)
{
    (void)state;
    memset(&m, 0, sizeof(m));
    assert_int_equal(e820_append(&m, 0x1000, 0, 2), 0);      /* zero size: ignored */
    assert_int_equal(m.nr, 0);
    assert_int_equal(e820_append(&m, 0xfffffffffffff000ull, 0x1000, 2), -1); /* to 2^64 */
    assert_int_equal(e820_append(&m, ~0ull, 2, 2), -1);
    assert_int_equal(e820_append(&m, 0xffffffffffffe000ull, 0x1000, 2), 0);
    assert_int_equal(m.nr, 1);
    assert_true(m.e[0].addr == 0xffffffffffffe000ull && m.e[0].size == 0x1000 && m.e[0].type == 2);
    for (unsigned i = 1; i < E820_MAP_MAX; i++)
        assert_int_equal(e820_append(&m, i * 0x10000ull, 0x1000, 1), 0);
    assert_int_equal(m.nr, 128);
    assert_int_equal(e820_append(&m, 0x90000000, 0x1000, 1), -1);     /* full */
    assert_int_equal(m.nr, 128);
    assert_int_equal(e820_append(&m, 0x90000000, 0, 1), 0);          /* nothing to add */
}

static void sanitize_sorts(void **state)
{
    (void)state;
    static const struct ent in[] = { { 0x100000, 0x1000, 1 }, { 0, 0x1000, 2 },
                                     { 0x5000, 0x1000, 3 } };
    static const struct ent out[] = { { 0, 0x1000, 2 }, { 0x5000, 0x1000, 3 },
                                      { 0x100000, 0x1000, 1 } };
    SANITIZE(in, out);
}

static void sanitize_merges_adjacent_equal(void **state)
{
    (void)state;
    static const struct ent in[] = { { 0x2000, 0x1000, 1 }, { 0, 0x1000, 1 },
                                     { 0x1000, 0x1000, 1 }, { 0x3000, 0x1000, 2 },
                                     { 0x4000, 0x1000, 2 }, { 0x6000, 0x1000, 2 } };
    /* a gap (0x5000) keeps equal types apart */
    static const struct ent out[] = { { 0, 0x3000, 1 }, { 0x3000, 0x2000, 2 },
                                      { 0x6000, 0x1000, 2 } };
    SANITIZE(in, out);
}

static void sanitize_overlap_larger_type_wins(void **state)
{
    (void)state;
    /* reserved over RAM: RAM loses, in both orders */
    static const struct ent in1[] = { { 0, 0x10000, 1 }, { 0x4000, 0x2000, 2 } };
    static const struct ent in2[] = { { 0x4000, 0x2000, 2 }, { 0, 0x10000, 1 } };
    static const struct ent out[] = { { 0, 0x4000, 1 }, { 0x4000, 0x2000, 2 },
                                      { 0x6000, 0xa000, 1 } };
    SANITIZE(in1, out);
    SANITIZE(in2, out);

    /* ACPI (3) inside reserved (2): 3 wins; NVS (4) partly over ACPI: 4 wins */
    static const struct ent in3[] = { { 0, 0x8000, 2 }, { 0x2000, 0x4000, 3 },
                                      { 0x5000, 0x2000, 4 } };
    static const struct ent out3[] = { { 0, 0x2000, 2 }, { 0x2000, 0x3000, 3 },
                                       { 0x5000, 0x2000, 4 }, { 0x7000, 0x1000, 2 } };
    SANITIZE(in3, out3);

    /* an unknown type outranks everything below it, and RAM */
    static const struct ent in4[] = { { 0, 0x3000, 7 }, { 0x1000, 0x1000, 0x1234 },
                                      { 0x2000, 0x2000, 1 } };
    static const struct ent out4[] = { { 0, 0x1000, 7 }, { 0x1000, 0x1000, 0x1234 },
                                       { 0x2000, 0x1000, 7 }, { 0x3000, 0x1000, 1 } };
    SANITIZE(in4, out4);
}

static void sanitize_ram_always_loses(void **state)
{
    (void)state;
    /* type 0 is not a valid e820 type, but it is not RAM: RAM loses to it too, in any order */
    static const struct ent in1[] = { { 0, 0x2000, 1 }, { 0x1000, 0x2000, 0 } };
    static const struct ent in2[] = { { 0x1000, 0x2000, 0 }, { 0, 0x2000, 1 } };
    static const struct ent out[] = { { 0, 0x1000, 1 }, { 0x1000, 0x2000, 0 } };
    SANITIZE(in1, out);
    SANITIZE(in2, out);
    /* and RAM overlapping RAM stays RAM */
    static const struct ent in3[] = { { 0, 0x2000, 1 }, { 0x1000, 0x2000, 1 } };
    static const struct ent out3[] = { { 0, 0x3000, 1 } };
    SANITIZE(in3, out3);
}

static void sanitize_identical_and_nested(void **state)
{
    (void)state;
    static const struct ent in[] = { { 0x1000, 0x1000, 2 }, { 0x1000, 0x1000, 2 },
                                     { 0, 0x4000, 2 }, { 0x1800, 0x100, 2 } };
    static const struct ent out[] = { { 0, 0x4000, 2 } };
    SANITIZE(in, out);
}

static void sanitize_top_of_address_space(void **state)
{
    (void)state;
    static const struct ent in[] = { { 0xffffffff00000000ull, 0xfffffffe, 1 },
                                     { 0xffffffff80000000ull, 0x1000, 2 },
                                     { 0x100000000ull, 0x80000000ull, 1 } };
    static const struct ent out[] = { { 0x100000000ull, 0x80000000ull, 1 },
                                      { 0xffffffff00000000ull, 0x80000000ull, 1 },
                                      { 0xffffffff80000000ull, 0x1000, 2 },
                                      { 0xffffffff80001000ull, 0x7fffeffeull, 1 } };
    SANITIZE(in, out);
}

static void sanitize_empty_and_idempotent(void **state)
{
    (void)state;
    memset(&m, 0, sizeof(m));
    assert_int_equal(e820_sanitize(&m), 0);
    assert_int_equal(m.nr, 0);

    static const struct ent in[] = { { 0x9fc00, 0x400, 2 }, { 0, 0xa0000, 1 },
                                     { 0x100000, 0x7ee0000, 1 }, { 0xf0000, 0x10000, 2 } };
    static const struct ent out[] = { { 0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 },
                                      { 0xf0000, 0x10000, 2 }, { 0x100000, 0x7ee0000, 1 } };
    SANITIZE(in, out);
    assert_int_equal(e820_sanitize(&m), 0);
    expect_map(out, N(out));
}

static void sanitize_full_map_error(void **state)
{
    (void)state;
    /* 64 RAM ranges each cut in three by a reserved one: 192 regions do not fit */
    memset(&m, 0, sizeof(m));
    for (unsigned i = 0; i < 64; i++) {
        assert_int_equal(e820_append(&m, i * 0x10000ull, 0x3000, 1), 0);
        assert_int_equal(e820_append(&m, i * 0x10000ull + 0x1000, 0x1000, 2), 0);
    }
    static struct e820_map before;
    before = m;
    assert_int_equal(e820_sanitize(&m), -1);
    /* the map is left as it was */
    expect_same(&m, &before);

    /* 128 disjoint entries that all survive: exactly full is fine */
    memset(&m, 0, sizeof(m));
    for (unsigned i = 0; i < 128; i++)
        assert_int_equal(e820_append(&m, (127 - i) * 0x10000ull, 0x1000, 1 + i % 2), 0);
    assert_int_equal(e820_sanitize(&m), 0);
    assert_int_equal(m.nr, 128);
    assert_int_equal(m.e[0].addr, 0);
    assert_int_equal(m.e[127].addr, 127 * 0x10000ull);
}

static void set_range_carves(void **state)
{
    (void)state;
    static const struct ent in[] = { { 0, 0x9fc00, 1 }, { 0x100000, 0x7f00000, 1 } };
    load(in, N(in));
    assert_int_equal(e820_sanitize(&m), 0);
    /* vtboot at 0x800000 and the memory log at 0x60000, reserved */
    assert_int_equal(e820_set_range(&m, 0x800000, 0x200000, 2), 0);
    assert_int_equal(e820_set_range(&m, 0x60000, 0x8000, 2), 0);
    static const struct ent out[] = { { 0, 0x60000, 1 }, { 0x60000, 0x8000, 2 },
                                      { 0x68000, 0x37c00, 1 }, { 0x100000, 0x700000, 1 },
                                      { 0x800000, 0x200000, 2 }, { 0xa00000, 0x7600000, 1 } };
    expect_map(out, N(out));

    /* reserving next to a reserved range merges with it */
    assert_int_equal(e820_set_range(&m, 0xa00000, 0x1000, 2), 0);
    assert_int_equal(m.e[4].addr, 0x800000);
    assert_int_equal(m.e[4].size, 0x201000);
    assert_int_equal(m.e[5].addr, 0xa01000);

    /* a weaker type changes nothing */
    static struct e820_map before;
    before = m;
    assert_int_equal(e820_set_range(&m, 0x800000, 0x1000, 1), 0);
    expect_same(&m, &before);

    /* a range over a hole and RAM: the hole becomes reserved too */
    assert_int_equal(e820_set_range(&m, 0x9f000, 0x62000, 2), 0);
    assert_int_equal(m.e[2].addr, 0x68000);
    assert_int_equal(m.e[2].size, 0x37000);
    assert_int_equal(m.e[3].addr, 0x9f000);
    assert_int_equal(m.e[3].size, 0x62000);
    assert_int_equal(m.e[3].type, 2);
    assert_int_equal(m.e[4].addr, 0x101000);
    assert_int_equal(e820_set_range(&m, 0x1000, 0, 2), 0);     /* empty: nothing */
    assert_int_equal(e820_set_range(&m, ~0ull - 5, 0x10, 2), -1);
}

static void set_range_full_map(void **state)
{
    (void)state;
    /* 128 alternating entries: nothing can be appended, even what would merge away */
    memset(&m, 0, sizeof(m));
    for (unsigned i = 0; i < 128; i++)
        assert_int_equal(e820_append(&m, i * 0x1000ull, 0x1000, 1 + i % 2), 0);
    assert_int_equal(e820_sanitize(&m), 0);
    assert_int_equal(m.nr, 128);
    static struct e820_map before;
    before = m;
    assert_int_equal(e820_set_range(&m, 0, 0x1000, 2), -1);
    expect_same(&m, &before);

    /* 127 entries: the new one fits, but the result would have 129 regions */
    memset(&m, 0, sizeof(m));
    for (unsigned i = 0; i < 127; i++)
        assert_int_equal(e820_append(&m, i * 0x2000ull, 0x2000, 1 + i % 2), 0);
    assert_int_equal(e820_sanitize(&m), 0);
    assert_int_equal(m.nr, 127);
    before = m;
    assert_int_equal(e820_set_range(&m, 0x800, 0x800, 3), -1);
    /* a failed set_range leaves the map as it was: still sanitised, 127 entries */
    expect_same(&m, &before);
    /* while one that merges away (reserved over the start of a reserved entry) works */
    assert_int_equal(e820_set_range(&m, 0x2000, 0x1000, 2), 0);
    assert_int_equal(m.nr, 127);
}

static void sorted_disjoint(void **state)
{
    (void)state;
    /* in order, adjacent pieces of one type included: what a careful loader gives */
    const struct ent sorted[] = { { 0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 },
                                  { 0x100000, 0x100000, 1 }, { 0x200000, 0x100000, 1 } };
    load(sorted, 4);
    assert_true(e820_sorted_disjoint(&m));
    const struct ent unsorted[] = { { 0x100000, 0x100000, 1 }, { 0, 0x9fc00, 1 } };
    load(unsorted, 2);
    assert_false(e820_sorted_disjoint(&m));
    const struct ent overlapping[] = { { 0, 0x200000, 1 }, { 0x1ff000, 0x2000, 2 } };
    load(overlapping, 2);
    assert_false(e820_sorted_disjoint(&m));
    /* the same start twice is an overlap too */
    const struct ent twice[] = { { 0x100000, 0x1000, 1 }, { 0x100000, 0x1000, 1 } };
    load(twice, 2);
    assert_false(e820_sorted_disjoint(&m));
    load(twice, 0);
    assert_true(e820_sorted_disjoint(&m));
    /* sanitised, any map is */
    load(overlapping, 2);
    assert_int_equal(e820_sanitize(&m), 0);
    assert_true(e820_sorted_disjoint(&m));
}

static void range_is(void **state)
{
    (void)state;
    static const struct ent in[] = { { 0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 },
                                     { 0x100000, 0x100000, 1 }, { 0x200000, 0x100000, 1 } };
    load(in, N(in));
    assert_int_equal(e820_sanitize(&m), 0);
    assert_true(e820_range_is(&m, 0, 1, 1));
    assert_true(e820_range_is(&m, 0, 0x9fc00, 1));
    assert_false(e820_range_is(&m, 0, 0x9fc01, 1));
    assert_true(e820_range_is(&m, 0x9fc00, 0x400, 2));
    assert_false(e820_range_is(&m, 0x9fc00, 0x401, 2));          /* runs into a hole */
    assert_true(e820_range_is(&m, 0x100000, 0x200000, 1));       /* across the merge */
    assert_false(e820_range_is(&m, 0x100000, 0x200001, 1));
    assert_false(e820_range_is(&m, 0xfffff, 2, 1));              /* starts in a hole */
    assert_false(e820_range_is(&m, 0x100000, 0, 1));             /* empty */
    assert_false(e820_range_is(&m, 0x100000, ~0ull, 1));         /* wraps */
    assert_false(e820_range_is(&m, 0xa0000, 0x1000, 2));
    assert_false(e820_range_is(&m, 0x2fffff, 1, 2));
    assert_true(e820_range_is(&m, 0x2fffff, 1, 1));
    memset(&m, 0, sizeof(m));
    assert_false(e820_range_is(&m, 0x1000, 1, 1));
}

static void type_names(void **state)
{
    (void)state;
    assert_string_equal(e820_type_name(1), "usable");
    assert_string_equal(e820_type_name(2), "reserved");
    assert_string_equal(e820_type_name(3), "ACPI data");
    assert_string_equal(e820_type_name(4), "ACPI NVS");
    assert_string_equal(e820_type_name(5), "unusable");
    assert_string_equal(e820_type_name(7), "persistent");
    assert_string_equal(e820_type_name(0), "unknown");
    assert_string_equal(e820_type_name(6), "unknown");
    assert_string_equal(e820_type_name(0xffffffffu), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(append_rules),
        cmocka_unit_test(sanitize_sorts),
        cmocka_unit_test(sanitize_merges_adjacent_equal),
        cmocka_unit_test(sanitize_overlap_larger_type_wins),
        cmocka_unit_test(sanitize_ram_always_loses),
        cmocka_unit_test(sanitize_identical_and_nested),
        cmocka_unit_test(sanitize_top_of_address_space),
        cmocka_unit_test(sanitize_empty_and_idempotent),
        cmocka_unit_test(sanitize_full_map_error),
        cmocka_unit_test(set_range_carves),
        cmocka_unit_test(set_range_full_map),
        cmocka_unit_test(range_is),
        cmocka_unit_test(sorted_disjoint),
        cmocka_unit_test(type_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
