/* SPDX-License-Identifier: MIT */
/*
 * What vtboot's pre-launch half leaves for its measured half (the MLE), in the .handoff
 * section: outside the measured range and not cleared at the MLE's entry, like TXT's
 * OsMleData in the TXT heap. The pre-launch code is not measured, so nothing here is trusted:
 * the MLE checks it, then re-reads and re-validates the loader's information it points at.
 *
 * And the MLE's command line area, filled in before the launch so that the launch measures
 * it (tboot's g_cmdline), the way tboot's lcp2_mlehash predicts it.
 */
#ifndef BOOT_HANDOFF_H
#define BOOT_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

#include "abi/tboot_log.h"

#define HANDOFF_MAGIC 0x4f444e48u        /* "HNDO" */
#define HANDOFF_VERSION 1u
#define HANDOFF_LOG_SIZE 0x1000u         /* the pre-launch lines, as a tboot_log */

enum handoff_kind {
    HANDOFF_BOOT = 1,                    /* from a multiboot loader */
    HANDOFF_S3_RESUME = 2,               /* from the S3 waking vector */
};

struct handoff {
    uint32_t magic;
    uint32_t version;
    uint32_t kind;                       /* enum handoff_kind */
    uint32_t loader_magic;               /* HANDOFF_BOOT: the loader's EAX and EBX */
    uint32_t loader_info;
    uint8_t log[HANDOFF_LOG_SIZE] __attribute__((aligned(8)));
};

/* Starts a hand-over of `kind` (the pre-launch log is formatted separately, with
 * memlog_init on h->log). */
void handoff_start(struct handoff *h, enum handoff_kind kind, uint32_t loader_magic,
                   uint32_t loader_info);

/* 0 if `h` is a hand-over the MLE can act on, or -1 with the reason in err. */
int handoff_check(const struct handoff *h, char *err, unsigned errlen);

/* The text of the pre-launch log, or NULL (len 0) if its header does not hold within the
 * area. */
const char *handoff_log_text(const struct handoff *h, size_t *len);

/* Fills the MLE's command line area of `size` bytes as lcp2_mlehash does before it hashes:
 * zeros, then at most size - 1 bytes of cmdline. */
void mle_cmdline_store(char *area, size_t size, const char *cmdline);

#endif
