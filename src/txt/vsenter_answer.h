/* SPDX-License-Identifier: MIT */
/*
 * The requester's side of the virtual SENTER's answers (include/abi/vsenter.h, protocol 4):
 * from the bytes the UART delivers, the one line that refuses this request. Everything else
 * (answers to an earlier requester that never read them, or to an earlier try, a line cut
 * short when its first bytes were read before) is skipped.
 */
#ifndef TXT_VSENTER_ANSWER_H
#define TXT_VSENTER_ANSWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/vsenter.h"

struct vsenter_answer {
    char head[32];                   /* "VSENTER-ERR 4 id=0x%08x " */
    size_t head_len;
    char line[VSENTER_LINE_MAX];     /* the current line, cut to fit */
    size_t len;
};

/* Starts waiting for the answer to the request with this id. */
void vsenter_answer_start(struct vsenter_answer *a, uint32_t id);
/* Feeds one byte. Returns true when it ends the refusal of this request: its reason (what
 * follows the head) in reason, cut to fit reason_size. */
bool vsenter_answer_feed(struct vsenter_answer *a, char c, char *reason, size_t reason_size);

#endif
