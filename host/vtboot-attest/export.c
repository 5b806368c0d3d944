/* SPDX-License-Identifier: MIT */
/*
 * vtboot-attest export EVIDENCE DIR: the evidence's parts as files other tools read:
 * quote.msg, quote.sig, quote.pcrs (tpm2_checkquote -m, -s, -f), ak.pub (-u), evtlog.bin
 * (tpm2_eventlog), and prints the tpm2_checkquote command that checks them.
 */
#include "attest.h"
#include "evidence.h"
#include "tpmquote.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_export(int argc, char **argv)
{
    static const struct { unsigned type; const char *file; } parts[] = {
        { EVID_QUOTE, "quote.msg" },
        { EVID_SIGNATURE, "quote.sig" },
        { EVID_PCR_VALUES, "quote.pcrs" },
        { EVID_AK_PUBLIC, "ak.pub" },
        { EVID_EVENT_LOG, "evtlog.bin" },
    };
    struct evidence ev;
    TPML_PCR_SELECTION sel;
    TPMS_ATTEST q;
    char err[512], list[256], nonce[2 * 64 + 1] = "";
    uint8_t *buf;
    size_t len;
    int rc = 1;

    if (argc != 3) {
        fprintf(stderr, "usage: vtboot-attest export EVIDENCE DIR\n");
        return 2;
    }
    buf = file_read_all(argv[1], &len, EVIDENCE_MAX_SIZE);
    if (!buf) {
        fprintf(stderr, "vtboot-attest: cannot read %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    if (evidence_parse(buf, len, &ev, err, sizeof(err)) ||
        !ev.rec[EVID_PCR_SELECTION].data ||
        pcrsel_parse(ev.rec[EVID_PCR_SELECTION].data, ev.rec[EVID_PCR_SELECTION].len, &sel, err,
                     sizeof(err))) {
        fprintf(stderr, "vtboot-attest: %s: %s\n", argv[1],
                ev.rec[EVID_PCR_SELECTION].data ? err : "no PCR selection");
        goto out;
    }
    if (mkdir_p(argv[2], 0755)) {
        fprintf(stderr, "vtboot-attest: cannot make %s: %s\n", argv[2], strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        char *path = xasprintf("%s/%s", argv[2], parts[i].file);
        const struct evidence_rec *r = &ev.rec[parts[i].type];

        if (r->data && file_write_all(path, r->data, r->len)) {
            fprintf(stderr, "vtboot-attest: cannot write %s: %s\n", path, strerror(errno));
            free(path);
            goto out;
        }
        free(path);
    }
    if (ev.rec[EVID_QUOTE].data &&
        quote_parse(ev.rec[EVID_QUOTE].data, ev.rec[EVID_QUOTE].len, &q, err, sizeof(err)) == 0)
        hex_encode(q.extraData.buffer, q.extraData.size, nonce);
    pcrsel_tools_str(&sel, list, sizeof(list));
    printf("tpm2_checkquote -u %s/ak.pub -m %s/quote.msg -s %s/quote.sig -f %s/quote.pcrs "
           "-l %s -g sha256 -q %s\n", argv[2], argv[2], argv[2], argv[2], list,
           nonce[0] ? nonce : "NONCE");
    rc = fflush(stdout) == 0 ? 0 : 1;
out:
    free(buf);
    return rc;
}
