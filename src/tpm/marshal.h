/* SPDX-License-Identifier: MIT */
/*
 * Big-endian marshalling for TPM 2.0 commands and responses. Writers and readers are sticky:
 * once a write overflows or a read runs past the data, every later call is a no-op and `bad`
 * stays set, so a builder or parser checks once at the end.
 */
#ifndef TPM_MARSHAL_H
#define TPM_MARSHAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tpm_writer {
    uint8_t *buf;
    size_t cap;
    size_t len;
    bool bad;
};

struct tpm_reader {
    const uint8_t *buf;
    size_t len;
    size_t pos;
    bool bad;
};

void tw_init(struct tpm_writer *w, uint8_t *buf, size_t cap);
void tw_u8(struct tpm_writer *w, uint8_t v);
void tw_u16(struct tpm_writer *w, uint16_t v);
void tw_u32(struct tpm_writer *w, uint32_t v);
void tw_bytes(struct tpm_writer *w, const void *p, size_t n);
void tw_tpm2b(struct tpm_writer *w, const void *p, uint16_t n);   /* u16 size + bytes */
/* Overwrites a u32 written earlier at `at` (for size fields known only at the end). */
void tw_patch_u32(struct tpm_writer *w, size_t at, uint32_t v);

void tr_init(struct tpm_reader *r, const uint8_t *buf, size_t len);
uint8_t tr_u8(struct tpm_reader *r);
uint16_t tr_u16(struct tpm_reader *r);
uint32_t tr_u32(struct tpm_reader *r);
/* Returns a pointer to the next n bytes and skips them; NULL (and bad) if short. */
const uint8_t *tr_bytes(struct tpm_reader *r, size_t n);
/* Reads a TPM2B into out (at most cap bytes); sets bad if longer. Returns its size. */
uint16_t tr_tpm2b(struct tpm_reader *r, uint8_t *out, size_t cap);
size_t tr_left(const struct tpm_reader *r);

#endif
