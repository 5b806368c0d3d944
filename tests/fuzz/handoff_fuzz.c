/* SPDX-License-Identifier: MIT */
/* What the pre-launch code leaves for the MLE (struct handoff): any bytes at all. */
#include "fuzz_common.h"

#include "boot/handoff.h"

static struct handoff h;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[160];

    memset(&h, 0, sizeof(h));
    memcpy(&h, data, size < sizeof(h) ? size : sizeof(h));
    memset(err, 0x55, sizeof(err));
    int rc = handoff_check(&h, err, sizeof(err));
    check_err(err, sizeof(err), rc);
    if (rc == 0)
        FUZZ_ASSERT(h.kind == HANDOFF_BOOT || h.kind == HANDOFF_S3_RESUME, "kind %u", h.kind);
    size_t len = 12345;
    const char *text = handoff_log_text(&h, &len);
    if (text) {
        FUZZ_ASSERT(text >= (const char *)h.log && text + len <= (const char *)h.log + sizeof(h.log),
                    "log text 0x%zx bytes outside the area", len);
        volatile char sink = 0;
        for (size_t i = 0; i < len; i++)
            sink ^= text[i];
        (void)sink;
    } else {
        FUZZ_ASSERT(len == 0, "len %zu without text", len);
    }
    return 0;
}
