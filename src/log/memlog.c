/* SPDX-License-Identifier: MIT */
#include "log/memlog.h"
#include "lib/string.h"

static const uint8_t memlog_uuid[16] = TBOOT_LOG_UUID_BYTES;
static const char full_note[] = "\n[vtboot: memory log full, later lines are on serial only]\n";
static const char restart_note[] = "[vtboot: the memory log's header was changed behind "
                                   "vtboot's back; the log starts over]\n";
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

bool memlog_valid(const struct tboot_log *log, size_t size)
{
    return size >= sizeof(*log) && memcmp(log->uuid, memlog_uuid, sizeof(memlog_uuid)) == 0 &&
           log->max_size >= NOTE_LEN + sizeof(restart_note) &&
           log->max_size <= size - sizeof(*log) && log->curr_pos <= log->max_size &&
           log->zip_count == 0;
}

/*
 * Ordinary text never goes past max_size - NOTE_LEN; the note may, so "full" is exactly
 * curr_pos > max_size - NOTE_LEN.
 */
size_t memlog_append(struct tboot_log *log, size_t size, const char *text, size_t len)
{
    if (!memlog_valid(log, size)) {
        memlog_init(log, size);
        if (!memlog_valid(log, size))
            return 0;                /* a region too small for a log */
        memlog_append(log, size, restart_note, sizeof(restart_note) - 1);
    }
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

struct tboot_log *memlog_move(const struct tboot_log *from, size_t from_size, void *to,
                              size_t size)
{
    if (!memlog_valid(from, from_size) || size < sizeof(*from) + from->max_size)
        return NULL;
    size_t used = sizeof(*from) + from->curr_pos;
    memmove(to, from, used);
    struct tboot_log *log = to;
    size_t cap = size - sizeof(*log);
    log->max_size = (uint16_t)(cap > 0xffff ? 0xffff : cap);
    return log;
}
