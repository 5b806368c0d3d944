/* SPDX-License-Identifier: MIT */
/* The big-endian sticky writer and reader under every TPM command and response. */
#include "test_common.h"

#include "tpm/marshal.h"

static uint8_t buf[64];

static void writer_primitives(void **state)
{
    (void)state;
    struct tpm_writer w;
    memset(buf, 0xee, sizeof(buf));
    tw_init(&w, buf, sizeof(buf));
    assert_ptr_equal(w.buf, buf);
    assert_int_equal(w.cap, sizeof(buf));
    assert_int_equal(w.len, 0);
    assert_false(w.bad);

    tw_u8(&w, 0x81);
    tw_u16(&w, 0x8001);
    tw_u32(&w, 0x12345678);
    tw_bytes(&w, "abc", 3);
    tw_bytes(&w, NULL, 0);                 /* nothing, and not an error */
    tw_tpm2b(&w, "xy", 2);
    tw_tpm2b(&w, NULL, 0);                 /* an empty TPM2B: just its size */
    static const uint8_t want[] = { 0x81, 0x80, 0x01, 0x12, 0x34, 0x56, 0x78, 'a', 'b', 'c',
                                    0x00, 0x02, 'x', 'y', 0x00, 0x00 };
    assert_false(w.bad);
    assert_int_equal(w.len, sizeof(want));
    assert_memory_equal(buf, want, sizeof(want));
    assert_int_equal(buf[sizeof(want)], 0xee);   /* nothing written past len */
}

static void writer_patch(void **state)
{
    (void)state;
    struct tpm_writer w;
    memset(buf, 0, sizeof(buf));
    tw_init(&w, buf, sizeof(buf));
    tw_u16(&w, 0x8002);
    tw_u32(&w, 0);
    tw_u32(&w, 0x17e);
    tw_patch_u32(&w, 2, 0x0a0b0c0d);
    static const uint8_t want[] = { 0x80, 0x02, 0x0a, 0x0b, 0x0c, 0x0d, 0, 0, 0x01, 0x7e };
    assert_false(w.bad);
    assert_int_equal(w.len, 10);
    assert_memory_equal(buf, want, sizeof(want));
    /* the last four bytes written: allowed */
    tw_patch_u32(&w, 6, 0xdeadbeef);
    assert_false(w.bad);
    assert_int_equal(get32(buf, 6), 0xefbeadde);   /* big-endian on the wire */
    assert_int_equal(w.len, 10);
    /* reaching past what was written: bad, buffer untouched, and bad stays */
    tw_patch_u32(&w, 7, 1);
    assert_true(w.bad);
    assert_int_equal(buf[9], 0xef);
    tw_u8(&w, 1);
    assert_int_equal(w.len, 10);

    tw_init(&w, buf, sizeof(buf));
    tw_patch_u32(&w, 0, 1);                  /* nothing written yet */
    assert_true(w.bad);
    tw_init(&w, buf, sizeof(buf));
    tw_u32(&w, 0);
    tw_patch_u32(&w, 5, 1);                  /* at > len */
    assert_true(w.bad);
    tw_init(&w, buf, sizeof(buf));
    tw_u32(&w, 0);
    tw_patch_u32(&w, (size_t)-1, 1);         /* no wrap-around */
    assert_true(w.bad);
    /* a patch on a writer that went bad earlier does nothing */
    tw_init(&w, buf, 4);
    tw_u32(&w, 0x11111111);
    tw_u8(&w, 0);
    assert_true(w.bad);
    tw_patch_u32(&w, 0, 0x22222222);
    assert_int_equal(get32(buf, 0), 0x11111111);
}

static void writer_overflow_sticks(void **state)
{
    (void)state;
    struct tpm_writer w;
    memset(buf, 0xee, sizeof(buf));
    tw_init(&w, buf, 7);
    tw_u32(&w, 0x01020304);
    tw_u16(&w, 0x0506);
    tw_u16(&w, 0x0708);                      /* one byte short: refused whole */
    assert_true(w.bad);
    assert_int_equal(w.len, 6);
    assert_int_equal(buf[6], 0xee);
    tw_u8(&w, 9);                            /* would fit, but the writer is bad */
    assert_int_equal(w.len, 6);
    assert_int_equal(buf[6], 0xee);
    tw_bytes(&w, "", 0);
    assert_true(w.bad);
    assert_int_equal(w.len, 6);

    /* each primitive on its own */
    tw_init(&w, buf, 0);
    tw_u8(&w, 1);
    assert_true(w.bad);
    tw_init(&w, buf, 1);
    tw_u16(&w, 1);
    assert_true(w.bad);
    assert_int_equal(w.len, 0);
    tw_init(&w, buf, 3);
    tw_u32(&w, 1);
    assert_true(w.bad);
    tw_init(&w, buf, 4);
    tw_bytes(&w, "abcde", 5);
    assert_true(w.bad);
    assert_int_equal(w.len, 0);
    tw_init(&w, buf, 4);
    tw_bytes(&w, "abcd", 4);                 /* exactly full is fine */
    assert_false(w.bad);
    assert_int_equal(w.len, 4);
    tw_bytes(&w, NULL, 0);                   /* and so is nothing more */
    assert_false(w.bad);
    /* a TPM2B whose size fits but not its bytes: the size is written, then bad */
    memset(buf, 0xee, sizeof(buf));
    tw_init(&w, buf, 4);
    tw_tpm2b(&w, "abc", 3);
    assert_true(w.bad);
    assert_int_equal(w.len, 2);
    assert_int_equal(buf[0], 0);
    assert_int_equal(buf[1], 3);
    assert_int_equal(buf[2], 0xee);
    /* a huge n cannot wrap the bounds check */
    tw_init(&w, buf, sizeof(buf));
    tw_u8(&w, 0);
    tw_bytes(&w, buf, (size_t)-1);
    assert_true(w.bad);
    assert_int_equal(w.len, 1);
}

static void reader_primitives(void **state)
{
    (void)state;
    static const uint8_t in[] = { 0x81, 0x80, 0x01, 0xfe, 0xdc, 0xba, 0x98, 'a', 'b', 'c',
                                  0x00, 0x02, 'x', 'y', 0x00, 0x00, 0x55 };
    struct tpm_reader r;
    tr_init(&r, in, sizeof(in));
    assert_ptr_equal(r.buf, in);
    assert_int_equal(r.len, sizeof(in));
    assert_int_equal(r.pos, 0);
    assert_false(r.bad);
    assert_int_equal(tr_left(&r), 17);
    assert_int_equal(tr_u8(&r), 0x81);
    assert_int_equal(tr_u16(&r), 0x8001);
    assert_int_equal(tr_u32(&r), 0xfedcba98u);
    assert_int_equal(tr_left(&r), 10);
    const uint8_t *p = tr_bytes(&r, 3);
    assert_ptr_equal(p, in + 7);
    assert_ptr_equal(tr_bytes(&r, 0), in + 10);   /* zero bytes: a valid pointer */
    uint8_t out[4] = { 0xee, 0xee, 0xee, 0xee };
    assert_int_equal(tr_tpm2b(&r, out, sizeof(out)), 2);
    assert_memory_equal(out, "xy\xee\xee", 4);
    assert_int_equal(tr_tpm2b(&r, out, 0), 0);     /* an empty TPM2B fits any cap */
    assert_int_equal(tr_left(&r), 1);
    assert_false(r.bad);
    assert_int_equal(r.pos, 16);
    assert_int_equal(tr_u8(&r), 0x55);
    assert_int_equal(tr_left(&r), 0);
    assert_false(r.bad);
}

static void reader_overrun_sticks(void **state)
{
    (void)state;
    static const uint8_t in[] = { 1, 2, 3, 4, 5 };
    struct tpm_reader r;
    tr_init(&r, in, sizeof(in));
    assert_int_equal(tr_u16(&r), 0x0102);
    assert_int_equal(tr_u32(&r), 0);         /* 3 bytes left: refused whole, returns 0 */
    assert_true(r.bad);
    assert_int_equal(r.pos, 2);
    assert_int_equal(tr_left(&r), 0);        /* a bad reader has nothing left */
    assert_int_equal(tr_u8(&r), 0);          /* would fit, but the reader is bad */
    assert_int_equal(r.pos, 2);
    assert_null(tr_bytes(&r, 0));

    tr_init(&r, in, 0);
    assert_int_equal(tr_u8(&r), 0);
    assert_true(r.bad);
    tr_init(&r, in, 1);
    assert_int_equal(tr_u16(&r), 0);
    assert_true(r.bad);
    tr_init(&r, in, 3);
    assert_int_equal(tr_u32(&r), 0);
    assert_true(r.bad);
    assert_int_equal(r.pos, 0);
    tr_init(&r, in, 5);
    assert_null(tr_bytes(&r, 6));
    assert_true(r.bad);
    tr_init(&r, in, 5);
    tr_u8(&r);
    assert_null(tr_bytes(&r, (size_t)-1));   /* no wrap-around */
    assert_true(r.bad);
    assert_int_equal(r.pos, 1);
    tr_init(&r, in, 5);
    assert_non_null(tr_bytes(&r, 5));        /* exactly all of it */
    assert_false(r.bad);
    assert_int_equal(tr_left(&r), 0);
}

static void reader_tpm2b_cap(void **state)
{
    (void)state;
    static const uint8_t in[] = { 0x00, 0x03, 'a', 'b', 'c', 0x00, 0x04, 'x' };
    uint8_t out[8];
    struct tpm_reader r;

    /* size exactly the cap */
    memset(out, 0xee, sizeof(out));
    tr_init(&r, in, sizeof(in));
    assert_int_equal(tr_tpm2b(&r, out, 3), 3);
    assert_memory_equal(out, "abc\xee", 4);
    assert_false(r.bad);
    /* a TPM2B longer than the cap: bad, nothing copied, returns 0 */
    memset(out, 0xee, sizeof(out));
    tr_init(&r, in, sizeof(in));
    assert_int_equal(tr_tpm2b(&r, out, 2), 0);
    assert_true(r.bad);
    assert_int_equal(out[0], 0xee);
    assert_int_equal(tr_left(&r), 0);
    /* sticky afterwards: the next, valid-looking TPM2B is not read */
    assert_int_equal(tr_tpm2b(&r, out, 8), 0);
    assert_int_equal(out[0], 0xee);
    /* a size past the data: bad, nothing copied */
    tr_init(&r, in, sizeof(in));
    tr_bytes(&r, 5);
    assert_int_equal(tr_tpm2b(&r, out, sizeof(out)), 0);
    assert_true(r.bad);
    assert_int_equal(out[0], 0xee);
    /* a truncated size field */
    tr_init(&r, in, 1);
    assert_int_equal(tr_tpm2b(&r, out, sizeof(out)), 0);
    assert_true(r.bad);
    /* NULL out: skipped, size still checked against the cap */
    tr_init(&r, in, sizeof(in));
    assert_int_equal(tr_tpm2b(&r, NULL, 3), 3);
    assert_false(r.bad);
    assert_int_equal(r.pos, 5);
    tr_init(&r, in, sizeof(in));
    assert_int_equal(tr_tpm2b(&r, NULL, 2), 0);
    assert_true(r.bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writer_primitives),
        cmocka_unit_test(writer_patch),
        cmocka_unit_test(writer_overflow_sticks),
        cmocka_unit_test(reader_primitives),
        cmocka_unit_test(reader_overrun_sticks),
        cmocka_unit_test(reader_tpm2b_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
