/* SPDX-License-Identifier: MIT */
#include "txt/vsenter_answer.h"

#include "lib/format.h"
#include "lib/string.h"

void vsenter_answer_start(struct vsenter_answer *a, uint32_t id)
{
    int n = fmt_snprintf(a->head, sizeof(a->head), VSENTER_ERR_ID_FMT, VSENTER_PROTOCOL, id);

    a->head_len = n > 0 ? (size_t)n : 0;
    a->len = 0;
}

bool vsenter_answer_feed(struct vsenter_answer *a, char c, char *reason, size_t reason_size)
{
    if (c == '\r')
        return false;
    if (c != '\n') {
        if (a->len + 1 < sizeof(a->line))
            a->line[a->len++] = c;
        return false;
    }
    a->line[a->len] = '\0';
    a->len = 0;
    if (a->head_len == 0 || strncmp(a->line, a->head, a->head_len) != 0)
        return false;
    strlcpy(reason, a->line + a->head_len, reason_size);
    return true;
}
