/* SPDX-License-Identifier: MIT */
/* The memory log in tboot's tboot_log_t layout, as txt-stat reads it. */
#include "test_common.h"

#include "log/memlog.h"

static const uint8_t uuid[16] = { 0x26, 0x25, 0x19, 0xc0, 0x30, 0x6b, 0xb4, 0x4d,
                                  0x4c, 0x84, 0xa3, 0xe9, 0x53, 0xb8, 0x81, 0x74 };
static const char note[] = "\n[vtboot: memory log full, later lines are on serial only]\n";
#define NOTE (sizeof(note) - 1)

static uint8_t mem[0x8000];

static void header_layout(void **state)
{
    (void)state;
    memset(mem, 0xee, sizeof(mem));
    struct tboot_log *log = memlog_init(mem, 0x8000);
    assert_ptr_equal(log, mem);
    assert_memory_equal(mem, uuid, 16);
    assert_int_equal(get16(mem, 16), 32706);     /* max_size = 0x8000 - sizeof(tboot_log_t) */
    assert_int_equal(get16(mem, 18), 0);         /* curr_pos */
    for (unsigned i = 20; i < 60; i++)           /* zip_pos[10], zip_size[10] */
        assert_int_equal(mem[i], 0);
    assert_int_equal(mem[60], 0);                /* zip_count */
    assert_int_equal(mem[62], 0xee);             /* the text is not cleared (buf[0] is padding) */

    assert_int_equal(memlog_append(log, 0x8000, "vtboot: hello\n", 14), 14);
    assert_int_equal(get16(mem, 18), 14);
    assert_memory_equal(mem + 61, "vtboot: hello\n", 14);
    assert_int_equal(memlog_append(log, 0x8000, "second", 6), 6);
    assert_int_equal(get16(mem, 18), 20);
    assert_memory_equal(mem + 61, "vtboot: hello\nsecond", 20);
    assert_int_equal(memlog_append(log, 0x8000, "", 0), 0);
    assert_int_equal(get16(mem, 18), 20);
    assert_int_equal(get16(mem, 16), 32706);
}

static void capacity(void **state)
{
    (void)state;
    memlog_init(mem, 62 + 64);
    assert_int_equal(get16(mem, 16), 64);
    static uint8_t big[0x20000];
    memlog_init(big, sizeof(big));
    assert_int_equal(get16(big, 16), 0xffff);    /* u16: capped */
}

/* Ordinary text stops NOTE bytes before the end; then the note, then nothing. */
static void full_log(void **state)
{
    (void)state;
    struct tboot_log *log = memlog_init(mem, 0x8000);
    const unsigned max = 32706, limit = max - NOTE;
    char line[100];
    memset(line, 'x', sizeof(line));
    unsigned pos = 0;
    while (pos + 100 <= limit) {
        assert_int_equal(memlog_append(log, 0x8000, line, 100), 100);
        pos += 100;
    }
    assert_int_equal(get16(mem, 18), pos);
    /* exactly to the limit still fits as text */
    unsigned rest = limit - pos;
    assert_int_equal(memlog_append(log, 0x8000, line, rest), rest);
    assert_int_equal(get16(mem, 18), limit);
    /* one more byte: the note */
    assert_int_equal(memlog_append(log, 0x8000, "y", 1), 0);
    assert_int_equal(get16(mem, 18), max);
    assert_memory_equal(mem + 61 + limit, note, NOTE);
    /* and nothing after it, ever */
    assert_int_equal(memlog_append(log, 0x8000, "z", 1), 0);
    assert_int_equal(memlog_append(log, 0x8000, "", 0), 0);
    assert_int_equal(get16(mem, 18), max);
    assert_memory_equal(mem + 61 + max - NOTE, note, NOTE);
    assert_int_equal(memcmp(mem + 61, line, 100), 0);
}

/* A chunk that does not fit while there is still room: the log is full after it. */
static void full_log_big_chunk(void **state)
{
    (void)state;
    struct tboot_log *log = memlog_init(mem, 62 + 200);
    const unsigned max = 200, limit = max - NOTE;    /* 141 bytes of text */
    char text[200];
    for (unsigned i = 0; i < sizeof(text); i++)
        text[i] = (char)('a' + i % 26);
    assert_int_equal(memlog_append(log, 62 + 200, text, 20), 20);
    /* 130 bytes, 121 fit: they are kept, then the note */
    assert_int_equal(memlog_append(log, 62 + 200, text + 20, 130), limit - 20);
    assert_int_equal(get16(mem, 18), max);
    assert_memory_equal(mem + 61, text, limit);
    assert_memory_equal(mem + 61 + limit, note, NOTE);
    /* a line that would have fit after the dropped one is dropped too */
    assert_int_equal(memlog_append(log, 62 + 200, "ok\n", 3), 0);
    assert_int_equal(get16(mem, 18), max);
    assert_memory_equal(mem + 61 + limit, note, NOTE);

    /* the same from an empty log */
    log = memlog_init(mem, 62 + 200);
    assert_int_equal(memlog_append(log, 62 + 200, text, 200), limit);
    assert_int_equal(get16(mem, 18), max);
    assert_int_equal(memlog_append(log, 62 + 200, "ok\n", 3), 0);
    assert_int_equal(get16(mem, 18), max);
}

static void move(void **state)
{
    (void)state;
    static uint8_t from[0x8000], to[0x8000];
    struct tboot_log *log = memlog_init(from, sizeof(from));
    memlog_append(log, sizeof(from), "moved text\n", 11);
    memset(to, 0x77, sizeof(to));
    assert_null(memlog_move(log, sizeof(from), to, 0x8000 - 1));
    assert_int_equal(to[0], 0x77);
    struct tboot_log *n = memlog_move(log, sizeof(from), to, 0x8000);
    assert_ptr_equal(n, to);
    assert_memory_equal(to, uuid, 16);
    assert_int_equal(get16(to, 16), 32706);
    assert_int_equal(get16(to, 18), 11);
    assert_memory_equal(to + 61, "moved text\n", 11);
    assert_int_equal(to[62 + 11], 0x77);         /* only the used part (and padding) is copied */
    /* it keeps working at the new place */
    assert_int_equal(memlog_append(n, 0x8000, "more", 4), 4);
    assert_memory_equal(to + 61, "moved text\nmore", 15);
    /* an overlapping move (into a bigger buffer starting inside) */
    static uint8_t big[0x10000];
    log = memlog_init(big, 0x8000);
    memlog_append(log, 0x8000, "overlap", 7);
    n = memlog_move(log, 0x8000, big + 16, 0x8000);
    assert_memory_equal(big + 16, uuid, 16);
    assert_memory_equal(big + 16 + 61, "overlap", 7);
    assert_int_equal(get16(big + 16, 18), 7);
    /* a small log moved into a bigger area takes the whole area: the pre-launch code's log
     * (4 KiB) continues at tboot's address (32 KiB) */
    static uint8_t small[0x1000];
    log = memlog_init(small, sizeof(small));
    assert_int_equal(get16(small, 16), 0x1000 - 62);
    memlog_append(log, sizeof(small), "pre", 3);
    memset(to, 0x77, sizeof(to));
    n = memlog_move(log, sizeof(small), to, 0x8000);
    assert_ptr_equal(n, to);
    assert_int_equal(get16(to, 16), 32706);
    assert_int_equal(get16(to, 18), 3);
    assert_memory_equal(to + 61, "pre", 3);
    /* a damaged log is not moved */
    struct tboot_log *sl = (struct tboot_log *)small;
    sl->curr_pos = (uint16_t)(sl->max_size + 1);
    assert_null(memlog_move(sl, sizeof(small), to, 0x8000));
}

static const char restart[] = "[vtboot: the memory log's header was changed behind vtboot's "
                              "back; the log starts over]\n";

/* Whatever the header says, text lands inside the region: every header field a writer of RAM
 * can set is checked before each append, and a bad header formats the log again. */
static void damaged_header(void **state)
{
    (void)state;
    static uint8_t region[62 + 1000 + 64];
    const size_t size = 62 + 1000;
    struct {
        const char *what;
        unsigned off, len;
        uint32_t value;
    } damage[] = {
        { "max_size past the region", 16, 2, 1001 },
        { "max_size 0xffff", 16, 2, 0xffff },
        { "max_size below the note", 16, 2, 10 },
        { "curr_pos past max_size", 18, 2, 1001 },
        { "curr_pos 0xffff", 18, 2, 0xffff },
        { "a compressed part", 60, 1, 1 },
        { "the UUID", 0, 1, 0 },
    };
    for (unsigned i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
        memset(region, 0xcc, sizeof(region));
        struct tboot_log *log = memlog_init(region, size);
        assert_true(memlog_valid(log, size));
        memlog_append(log, size, "before\n", 7);
        memcpy(region + damage[i].off, &damage[i].value, damage[i].len);
        assert_false(memlog_valid(log, size));
        assert_int_equal(memlog_append(log, size, "after\n", 6), 6);
        assert_true(memlog_valid(log, size));
        assert_int_equal(get16(region, 16), 1000);
        assert_int_equal(get16(region, 18), sizeof(restart) - 1 + 6);
        assert_memory_equal(region + 61, restart, sizeof(restart) - 1);
        assert_memory_equal(region + 61 + sizeof(restart) - 1, "after\n", 6);
        for (unsigned b = size; b < sizeof(region); b++)       /* nothing past the region */
            if (region[b] != 0xcc)
                fail_msg("%s: byte %u past the region written", damage[i].what, b - (unsigned)size);
    }
    /* a region too small for a log takes no text at all */
    static uint8_t tiny[62 + 64];
    memset(tiny, 0xcc, sizeof(tiny));
    struct tboot_log *log = memlog_init(tiny, sizeof(tiny));
    assert_false(memlog_valid(log, sizeof(tiny)));
    assert_int_equal(memlog_append(log, sizeof(tiny), "x", 1), 0);
    /* a log valid in a bigger region is not valid in a smaller one */
    log = memlog_init(region, size);
    assert_false(memlog_valid(log, size - 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_layout),
        cmocka_unit_test(capacity),
        cmocka_unit_test(full_log),
        cmocka_unit_test(full_log_big_chunk),
        cmocka_unit_test(move),
        cmocka_unit_test(damaged_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
