/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a byte stream split into gdb remote-protocol units (as the multiplexer
 * does for both directions), each packet decoded and fed to the tracker as the user's and as
 * QEMU's. Invariants: units cover the stream exactly, never past its end; a packet is
 * '$' payload '#' and two characters; decoding stays in its buffer; the tracker's state and
 * thread selection stay valid strings.
 */
#include "gdbmux.h"
#include "gdbrsp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gdbtrack t;
    struct rsp_unit u;
    char dec[64];
    size_t off = 0;
    int i = 0;

    gdbtrack_init(&t);
    for (;;) {
        rsp_next(data + off, size - off, &u);
        if (u.kind == RSP_INCOMPLETE) {
            check(u.len == 0);
            break;
        }
        check(u.len >= 1 && u.len <= size - off);
        if (u.kind == RSP_PACKET) {
            check(data[off] == '$' && data[off + u.body + u.blen] == '#' && u.len == u.blen + 4);
            check(memchr(data + off + 1, '#', u.blen) == NULL);
            rsp_decode(data + off + u.body, u.blen, dec, sizeof(dec));
            check(strlen(dec) < sizeof(dec));
            if (i++ % 2)
                gdbtrack_qemu(&t, dec);
            else
                gdbtrack_user(&t, dec);
            check(t.st == GT_IDLE || t.st == GT_OUTSTANDING || t.st == GT_RUNNING);
            check(strlen(t.gsel) < sizeof(t.gsel) && strlen(t.pending) < sizeof(t.pending));
        } else {
            check(u.len == 1);
        }
        off += u.len;
    }
    return 0;
}
