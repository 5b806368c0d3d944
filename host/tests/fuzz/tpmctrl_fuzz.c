/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the framing of swtpm's control channel (host/lib/tpmctrl.c), as the proxy
 * splits QEMU's requests and swtpm's answers. Input: byte 0 selects requests (even) or the
 * answers to command data[1] (odd); the rest is the stream. Invariants: the length is 0 only
 * while the bytes needed to tell it are missing; once known it never changes as more bytes
 * arrive; it is never below the fixed part it was read from; a stream splits into frames
 * that cover it exactly; the names stay in their table.
 */
#include "tpmctrl.h"
#include "lib/bytes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off;
    uint32_t cmd;

    if (size < 2)
        return 0;
    cmd = data[1];
    check(tpmctrl_cmd_name(cmd) != NULL && tpmctrl_cmd_name(0xffffffffu) != NULL);
    off = 2;
    while (off < size) {
        const uint8_t *p = data + off;
        size_t left = size - off, want = 0, first = 0, have;
        uint8_t *copy;

        /* byte by byte, up to 32 bytes, then all at once: the answer must not change */
        for (have = 0; have <= left && have <= 32; have++) {
            copy = malloc(have ? have : 1);      /* exactly `have` bytes for ASan */
            memcpy(copy, p, have);
            want = data[0] & 1 ? tpmctrl_response_len(cmd, copy, have)
                               : tpmctrl_request_len(copy, have);
            free(copy);
            if (want) {
                if (!first)
                    first = have;
                break;
            }
        }
        if (!want) {
            copy = malloc(left);
            memcpy(copy, p, left);
            want = data[0] & 1 ? tpmctrl_response_len(cmd, copy, left)
                               : tpmctrl_request_len(copy, left);
            free(copy);
            if (!want)
                break;          /* the stream ends inside a header */
            check(left > 32);
            first = left;
        }
        check(first <= 16 && want >= 4 && want >= first);
        if (!(data[0] & 1))
            check(first == 4 || first == 8 || first == 16);
        /* with all the bytes there, the same length */
        copy = malloc(left);
        memcpy(copy, p, left);
        check((data[0] & 1 ? tpmctrl_response_len(cmd, copy, left)
                           : tpmctrl_request_len(copy, left)) == want);
        free(copy);
        if (!(data[0] & 1))
            cmd = load_be32(p);      /* the answers that follow are to this request */
        if (want > left)
            break;
        off += want;
    }
    return 0;
}
