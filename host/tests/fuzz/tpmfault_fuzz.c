/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: --tpm-fault SPECs (tpmfault_parse, tpmfault_add) and the decision made for
 * each command the guest sends (tpmfault_command, tpmfault_first_handle, tpmfault_check),
 * against an independent model. Input: lines up to the first empty line are SPECs; after it,
 * commands, each a 2-byte big-endian length and that many bytes (as they reach the data
 * channel). Invariants: an accepted SPEC, written back as "0x<cc>[:<h>][@<n>]=0x<rc>", parses
 * to the same fault; the set refuses exactly duplicates and the 33rd; a command counts for
 * every spec that names it (code, and first handle if the spec has one), and is failed with
 * the rc of the first spec whose occurrence it is, else of the first "every" spec.
 */
#include "tpmfault.h"
#include "lib/bytes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tpmfault_set set = { .n = 0 };
    struct tpmfault model[TPMFAULT_MAX];
    uint32_t seen[TPMFAULT_MAX] = { 0 };
    char spec[256], err[512], again[128];
    size_t off = 0;
    int nm = 0;

    /* the SPECs */
    while (off < size) {
        const uint8_t *nl = memchr(data + off, '\n', size - off);
        size_t len = nl ? (size_t)(nl - (data + off)) : size - off;
        struct tpmfault f, g;
        int prc, arc, dup = 0;

        if (!len) {
            off++;
            break;
        }
        if (len >= sizeof(spec))
            len = sizeof(spec) - 1;
        memcpy(spec, data + off, len);
        spec[len] = 0;
        off += len + (nl ? 1 : 0);
        if (strlen(spec) != len)
            continue;                   /* a NUL: not what a command line can hold */
        err[0] = 0;
        prc = tpmfault_parse(spec, &f, err, sizeof(err));
        if (prc != 0) {
            check(prc == -1 && err[0]);
        } else {
            check(f.rc != 0 && (f.nth == 0 || (f.nth >= 1 && f.nth <= TPMFAULT_NTH_MAX)));
            check(f.has_handle || f.handle == 0);
            check(f.seen == 0);
            /* written back and parsed again: the same fault */
            if (f.has_handle && f.nth)
                snprintf(again, sizeof(again), "0x%x:0x%x@%u=0x%x", f.cc, f.handle, f.nth, f.rc);
            else if (f.has_handle)
                snprintf(again, sizeof(again), "0x%x:%u=0x%x", f.cc, f.handle, f.rc);
            else if (f.nth)
                snprintf(again, sizeof(again), "0x%x@%u=0x%x", f.cc, f.nth, f.rc);
            else
                snprintf(again, sizeof(again), "0x%x=0x%x", f.cc, f.rc);
            check(tpmfault_parse(again, &g, err, sizeof(err)) == 0);
            check(g.cc == f.cc && g.has_handle == f.has_handle && g.handle == f.handle &&
                  g.nth == f.nth && g.rc == f.rc);
            /* a name, when the table has one for the code, parses to the same code */
            if (tpmfault_cc_name(f.cc)) {
                snprintf(again, sizeof(again), "TPM2_%s=0x1", tpmfault_cc_name(f.cc));
                check(tpmfault_parse(again, &g, err, sizeof(err)) == 0 && g.cc == f.cc);
            }
            for (int i = 0; i < nm; i++)
                if (model[i].cc == f.cc && model[i].nth == f.nth &&
                    model[i].has_handle == f.has_handle &&
                    (!f.has_handle || model[i].handle == f.handle))
                    dup = 1;
        }
        err[0] = 0;
        arc = tpmfault_add(&set, spec, err, sizeof(err));
        if (prc != 0 || dup || nm == TPMFAULT_MAX) {
            check(arc == -1 && err[0]);
        } else {
            check(arc == 0);
            model[nm++] = f;
        }
        check(set.n == nm);
    }
    /* the commands */
    while (off + 2 <= size) {
        size_t len = load_be16(data + off);
        uint8_t *cmd;
        uint32_t cc = 0, handle = 0, rc = 0, nth = 0, want_rc = 0, want_nth = 0;
        bool has_h, fault, want = false;
        int first = -1, occ = -1, every = -1;

        off += 2;
        if (len > size - off)
            len = size - off;
        cmd = malloc(len ? len : 1);    /* exactly len bytes: ASan sees reads past them */
        memcpy(cmd, data + off, len);
        off += len;
        if (!tpmfault_command(cmd, len, &cc)) {
            check(len < 10 || (cmd[0] != 0x80 || (cmd[1] != 1 && cmd[1] != 2)) ||
                  load_be32(cmd + 2) != len);
            free(cmd);
            continue;
        }
        check(len >= 10 && cc == load_be32(cmd + 6));
        has_h = tpmfault_first_handle(cmd, len, &handle);
        check(has_h == (len >= 14));
        for (int i = 0; i < nm; i++) {
            if (model[i].cc != cc || (model[i].has_handle && (!has_h || handle != model[i].handle)))
                continue;
            seen[i]++;
            if (first < 0)
                first = i;
            if (occ < 0 && model[i].nth && model[i].nth == seen[i])
                occ = i;
            if (every < 0 && !model[i].nth)
                every = i;
        }
        if (occ >= 0) {
            want = true;
            want_rc = model[occ].rc;
            want_nth = seen[occ];
        } else if (every >= 0) {
            want = true;
            want_rc = model[every].rc;
            want_nth = seen[every];
        }
        fault = tpmfault_check(&set, cc, has_h ? &handle : NULL, &rc, &nth);
        check(fault == want);
        if (want)
            check(rc == want_rc && nth == want_nth);
        else if (first >= 0)
            check(nth == seen[first]);
        for (int i = 0; i < nm; i++)
            check(set.f[i].seen == seen[i]);
        if (fault) {
            uint8_t ans[TPMFAULT_RESPONSE_SIZE];

            tpmfault_response(ans, rc);
            check(ans[0] == 0x80 && ans[1] == 1 && ans[5] == 10 && !ans[2] && !ans[3] && !ans[4]);
            check(load_be32(ans + 6) == rc);
        }
        free(cmd);
    }
    return 0;
}
