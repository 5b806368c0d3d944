/* SPDX-License-Identifier: MIT */
/*
 * The host side of the VSENTER line protocol (include/abi/vsenter.h, protocol 4): a bounded
 * line assembler that survives any byte stream, and the request parser.
 */
#ifndef HOST_VSENTER_H
#define HOST_VSENTER_H

#include "abi/vsenter.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vs_lines {
    char buf[VSENTER_LINE_MAX + 1];
    size_t len;
    bool overlong;              /* the current line went past VSENTER_LINE_MAX */
};

/* Feeds one byte. Returns 1 when a line is complete (in l->buf, NUL-terminated, without the
 * '\n' and a '\r' before it), 2 when an over-long line ended, 0 otherwise. */
int vs_lines_feed(struct vs_lines *l, char c);
/* Resets for the next line (after a 1 or 2 from vs_lines_feed). */
void vs_lines_next(struct vs_lines *l);

struct vs_request {
    bool has_id;                /* the id was read (a refusal names it even if the rest failed) */
    uint32_t id;                /* the requester's number for this request */
    uint32_t mle_base;          /* the MLE image's first byte (origin of the header's offsets) */
    uint32_t mle_hdr;           /* its MLE header (abi/mle.h) */
};

/* Parses a protocol-4 request line ("VSENTER 4 id=0x%08x mle_base=0x%08x mle_hdr=0x%08x";
 * each number "0x" and 1 to 8 hex digits) and checks that the header's bytes lie in the
 * guest's RAM below 4 GiB (lowmem bytes). Everything else about the header and the range is
 * mlehdr_check()'s. Returns 0, or -1 with a short reason in err (rq->has_id says whether the
 * refusal can name the request). */
int vs_parse(const char *line, uint64_t lowmem, struct vs_request *rq, char *err, size_t errsz);
/* The refusal line for rq (NULL: a line that named no request) and reason, '\n' included, cut
 * to fit out (at least 32 bytes) with the '\n' kept. */
void vs_refusal(const struct vs_request *rq, const char *reason, char *out, size_t outsz);
/*
 * The gdbstub packet (in QEMU's physical-memory mode) that sends an INIT to the CPU with
 * apic_id: a 4-byte write of an INIT-mode MSI (data 0x500) to 0xfee00000 | apic_id << 12, which
 * QEMU's APIC region delivers as an MSI wherever the write comes from. out: at least 32 bytes.
 * Returns 0, or -1 for an APIC ID an xAPIC MSI cannot name (above 255).
 */
int vs_init_msi_packet(unsigned apic_id, char *out, size_t outsz);
/* RAM below 4 GiB of a QEMU machine ("q35" or "pc") with ram bytes of memory. */
uint64_t vs_lowmem(const char *machine, uint64_t ram);

#endif
