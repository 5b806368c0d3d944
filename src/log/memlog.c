/* SPDX-License-Identifier: MIT */
#include "log/memlog.h"
#include "lib/string.h"

static const uint8_t memlog_uuid[16] = TBOOT_LOG_UUID_BYTES;
static const char full_note[] = "\n[vtboot: memory log full, later lines are on serial only]\n";
#define NOTE_LEN (sizeof(full_note) - 1)

struct tboot_log *memlog_init(void *mem, size_t size)
{
    struct tboot_log *log = mem;
    size_t cap = size - sizeof(*log);

    memset(log, 0, sizeof(*log));
    memcpy(log->uuid, memlog_uuid, sizeof(log->uuid));
    log->max_size = (uint16_t)(cap > 0xffff ? 0xffff : cap);
    return log;
}

/*
 * Ordinary text never goes past max_size - NOTE_LEN; the note may, so "full" is exactly
 * curr_pos > max_size - NOTE_LEN.
 */
size_t memlog_append(struct tboot_log *log, const char *text, size_t len)
{
    size_t limit = log->max_size - NOTE_LEN;

    if (log->curr_pos > limit)
        return 0;
    if (len > limit - log->curr_pos) {
        /* keep what fits, then the note: curr_pos ends at max_size, so the log is full */
        size_t part = limit - log->curr_pos;
        memcpy(log->buf + log->curr_pos, text, part);
        memcpy(log->buf + limit, full_note, NOTE_LEN);
        log->curr_pos = log->max_size;
        return part;
    }
    memcpy(log->buf + log->curr_pos, text, len);
    log->curr_pos = (uint16_t)(log->curr_pos + len);
    return len;
}

bool memlog_valid(const struct tboot_log *log)
{
    return memcmp(log->uuid, memlog_uuid, sizeof(memlog_uuid)) == 0 &&
           log->max_size <= TBOOT_LOG_MAX_SIZE && log->curr_pos <= log->max_size;
}

struct tboot_log *memlog_move(const struct tboot_log *from, void *to, size_t size)
{
    size_t used = sizeof(*from) + from->curr_pos;

    if (size < sizeof(*from) + from->max_size)
        return NULL;
    memmove(to, from, used);
    struct tboot_log *log = to;
    size_t cap = size - sizeof(*log);
    log->max_size = (uint16_t)(cap > 0xffff ? 0xffff : cap);
    return log;
}
