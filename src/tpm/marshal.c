/* SPDX-License-Identifier: MIT */
#include "lib/bytes.h"
#include "lib/string.h"
#include "tpm/marshal.h"

void tw_init(struct tpm_writer *w, uint8_t *buf, size_t cap)
{
    *w = (struct tpm_writer){ buf, cap, 0, false };
}

static uint8_t *tw_room(struct tpm_writer *w, size_t n)
{
    if (w->bad || n > w->cap - w->len) {
        w->bad = true;
        return NULL;
    }
    uint8_t *p = w->buf + w->len;
    w->len += n;
    return p;
}

void tw_u8(struct tpm_writer *w, uint8_t v)
{
    uint8_t *p = tw_room(w, 1);
    if (p)
        p[0] = v;
}

void tw_u16(struct tpm_writer *w, uint16_t v)
{
    uint8_t *p = tw_room(w, 2);
    if (p)
        store_be16(p, v);
}

void tw_u32(struct tpm_writer *w, uint32_t v)
{
    uint8_t *p = tw_room(w, 4);
    if (p)
        store_be32(p, v);
}

void tw_bytes(struct tpm_writer *w, const void *src, size_t n)
{
    uint8_t *p = tw_room(w, n);
    if (p && n)
        memcpy(p, src, n);
}

void tw_tpm2b(struct tpm_writer *w, const void *src, uint16_t n)
{
    tw_u16(w, n);
    tw_bytes(w, src, n);
}

void tw_patch_u32(struct tpm_writer *w, size_t at, uint32_t v)
{
    if (w->bad || at > w->len || w->len - at < 4) {
        w->bad = true;
        return;
    }
    store_be32(w->buf + at, v);
}

void tr_init(struct tpm_reader *r, const uint8_t *buf, size_t len)
{
    *r = (struct tpm_reader){ buf, len, 0, false };
}

const uint8_t *tr_bytes(struct tpm_reader *r, size_t n)
{
    if (r->bad || n > r->len - r->pos) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *p = r->buf + r->pos;
    r->pos += n;
    return p;
}

uint8_t tr_u8(struct tpm_reader *r)
{
    const uint8_t *p = tr_bytes(r, 1);
    return p ? p[0] : 0;
}

uint16_t tr_u16(struct tpm_reader *r)
{
    const uint8_t *p = tr_bytes(r, 2);
    return p ? load_be16(p) : 0;
}

uint32_t tr_u32(struct tpm_reader *r)
{
    const uint8_t *p = tr_bytes(r, 4);
    return p ? load_be32(p) : 0;
}

uint16_t tr_tpm2b(struct tpm_reader *r, uint8_t *out, size_t cap)
{
    uint16_t n = tr_u16(r);
    if (n > cap) {
        r->bad = true;
        return 0;
    }
    const uint8_t *p = tr_bytes(r, n);
    if (!p)
        return 0;
    if (out && n)
        memcpy(out, p, n);
    return n;
}

size_t tr_left(const struct tpm_reader *r)
{
    return r->bad ? 0 : r->len - r->pos;
}
