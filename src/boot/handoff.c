/* SPDX-License-Identifier: MIT */
#include <stdbool.h>

#include "abi/multiboot1.h"
#include "abi/multiboot2.h"
#include "boot/handoff.h"
#include "lib/format.h"
#include "lib/string.h"
#include "log/memlog.h"

void handoff_start(struct handoff *h, enum handoff_kind kind, uint32_t loader_magic,
                   uint32_t loader_info)
{
    h->magic = HANDOFF_MAGIC;
    h->version = HANDOFF_VERSION;
    h->kind = kind;
    h->loader_magic = loader_magic;
    h->loader_info = loader_info;
}

int handoff_check(const struct handoff *h, char *err, unsigned errlen)
{
    if (h->magic != HANDOFF_MAGIC || h->version != HANDOFF_VERSION) {
        fmt_snprintf(err, errlen, "no hand-over from the pre-launch code (magic 0x%08x, "
                     "version %u)", h->magic, h->version);
        return -1;
    }
    switch (h->kind) {
    case HANDOFF_BOOT:
        if (h->loader_magic != MB1_BOOTLOADER_MAGIC && h->loader_magic != MB2_BOOTLOADER_MAGIC) {
            fmt_snprintf(err, errlen, "the hand-over names no multiboot loader (magic 0x%08x)",
                         h->loader_magic);
            return -1;
        }
        return 0;
    case HANDOFF_S3_RESUME:
        return 0;
    default:
        fmt_snprintf(err, errlen, "the hand-over is of unknown kind %u", h->kind);
        return -1;
    }
}

const char *handoff_log_text(const struct handoff *h, size_t *len)
{
    const struct tboot_log *log = (const struct tboot_log *)h->log;

    *len = 0;
    if (!memlog_valid(log, sizeof(h->log)))
        return NULL;
    *len = log->curr_pos;
    return log->buf;
}

void mle_cmdline_store(char *area, size_t size, const char *cmdline)
{
    if (size == 0)
        return;
    memset(area, 0, size);
    size_t n = strlen(cmdline);
    memcpy(area, cmdline, n < size - 1 ? n : size - 1);
}
