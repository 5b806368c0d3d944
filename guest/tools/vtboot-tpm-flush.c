/* SPDX-License-Identifier: MIT */
/*
 * vtboot-tpm-flush: flushes every loaded transient object from the TPM over /dev/tpm0, one
 * line "flushed 0x<handle> rc=0x<rc>" each, then "transient-objects=<n left>".
 *
 * Why: Debian's tboot 1.10.5 loads its sealed S3 blobs on each resume and never flushes them
 * (fixed in tboot 1.11.0, "flush objects after integrity measurement"); a TPM with three
 * object slots (Intel PTT, swtpm) is then full and tboot's seal at the next S3 fails with
 * TPM_RC_OBJECT_MEMORY. Nothing else is loaded between the OS's resume and its next suspend
 * that the OS would not load again (tboot's own primary is loaded again from its saved
 * context at each S3), so a flush from the OS after each resume is the user's workaround.
 * Exit status 0 if the TPM lists no transient object afterwards, 1 if one is left, 2 if the
 * TPM could not be used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "tpm/tpm2.h"
#include "tpm/tpm2_seal.h"
#include "tpmdev.h"

#define MAX_OBJECTS 64u

int main(void)
{
    int fd = open("/dev/tpm0", O_RDWR);
    struct tpm2 t = { .transmit = tpmdev_transmit, .ctx = &fd };
    uint32_t h[MAX_OBJECTS];
    unsigned n = 0;
    if (fd < 0)
        return fprintf(stderr, "/dev/tpm0: %s\n", strerror(errno)), 2;
    if (tpm2_transient_handles(&t, h, MAX_OBJECTS, &n))
        return fprintf(stderr, "vtboot-tpm-flush: %s\n", t.err), 2;
    for (unsigned i = 0; i < n; i++)
        printf("flushed 0x%x rc=0x%x\n", (unsigned)h[i], (unsigned)tpm2_flush_context(&t, h[i]));
    if (tpm2_transient_handles(&t, h, MAX_OBJECTS, &n))
        return fprintf(stderr, "vtboot-tpm-flush: %s\n", t.err), 2;
    printf("transient-objects=%u\n", n);
    return n ? 1 : 0;
}
