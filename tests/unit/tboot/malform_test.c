/* SPDX-License-Identifier: MIT */
/* The test-only hand-over damage (test_shared=): names, shared page fields, e820 effects. */
#include "test_common.h"

#include "tboot/malform.h"
#include "tboot/shared_page.h"

#define BASE 0x800000u
#define PAGE 0x801000u
#define SIZE 0xb7000u

static void names_round_trip(void **state)
{
    (void)state;
    int bad;
    char buf[160];
    unsigned m = malform_parse("uuid,first-page,e820-split", &bad);
    assert_int_equal(bad, 0);
    assert_int_equal(m, MALFORM_UUID | MALFORM_FIRST_PAGE | MALFORM_E820_SPLIT);
    assert_string_equal(malform_names(m, buf, sizeof(buf)), "uuid,first-page,e820-split");
    assert_int_equal(malform_parse("uuid,nonsense", &bad), 0);
    assert_int_equal(bad, 1);
    assert_int_equal(malform_parse("", &bad), 0);
    assert_int_equal(bad, 0);
}

static void shared_page_fields(void **state)
{
    (void)state;
    static uint8_t page[4096];
    struct tboot_shared *sp = (void *)page;
    struct shared_page_args a = { 0x60000, 0x846702, BASE, SIZE };

    shared_page_init(page, &a);
    malform_shared_page(sp, MALFORM_UUID | MALFORM_VERSION4 | MALFORM_ENTRY_OUTSIDE);
    assert_false(shared_page_valid(sp));
    assert_int_equal(page[15], 0x08 ^ 0xff);
    assert_int_equal(sp->version, 4);
    assert_int_equal(sp->shutdown_entry, BASE + SIZE + 0x1000);

    shared_page_init(page, &a);
    malform_shared_page(sp, MALFORM_SIZE_OVERFLOW);
    assert_true((uint64_t)sp->tboot_base + sp->tboot_size > 0xffffffffull);
    malform_shared_page(sp, MALFORM_ENTRY_ZERO | MALFORM_SIZE_ZERO | MALFORM_VERSION7);
    assert_int_equal(sp->shutdown_entry, 0);
    assert_int_equal(sp->tboot_size, 0);
    assert_int_equal(sp->version, 7);
}

static void e820_effects(void **state)
{
    (void)state;
    static struct e820_map m;
    memset(&m, 0, sizeof(m));
    e820_append(&m, 0x100000, 0x1ff00000, E820_TYPE_RAM);
    assert_int_equal(malform_reserved_size(0, BASE, SIZE, PAGE), SIZE);
    assert_int_equal(malform_reserved_size(MALFORM_REGION_RAM, BASE, SIZE, PAGE), 0x2000);
    e820_set_range(&m, BASE, SIZE, E820_TYPE_RESERVED);
    assert_int_equal(malform_e820(&m, MALFORM_FIRST_PAGE, BASE, PAGE), 0);
    /* [BASE, PAGE) is NVS, so the reserved entry starts exactly at the shared page */
    assert_true(e820_range_is(&m, BASE, PAGE - BASE, E820_TYPE_NVS));
    unsigned i = 0;
    while (m.e[i].addr != PAGE)
        i++;
    assert_int_equal(m.e[i].type, E820_TYPE_RESERVED);
    assert_int_equal(m.e[i].size, BASE + SIZE - PAGE);

    assert_int_equal(malform_e820(&m, MALFORM_E820_SPLIT, BASE, PAGE), 0);
    unsigned ram = 0;
    for (i = 0; i < m.nr; i++)
        ram += m.e[i].type == E820_TYPE_RAM;
    assert_true(ram > 32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_round_trip),
        cmocka_unit_test(shared_page_fields),
        cmocka_unit_test(e820_effects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
