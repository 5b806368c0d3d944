/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: vtboot's ELF as vtboot-pcr and vtboot-attest read it from a file
 * (host/lib/mle.c: mle_load, mle_check_file; gzip'd or not). Input: byte 0 the length of
 * vtboot's command line (taken from the end), the rest the file. Invariants: a loaded MLE has
 * the size its header gives (at most VSENTER_MLE_MAX), its command line area zero but for the
 * command line, and an MLE header at a 16-byte boundary inside it; check-mle accepts only
 * files mle_load accepts.
 */
#include "mle.h"
#include "abi/mle.h"
#include "abi/vsenter.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz_check.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    stderr = fopen("/dev/null", "w");   /* mle.c's messages; sanitizers use fd 2 */
    stdout = fopen("/dev/null", "w");   /* check-mle's verdict line */
    fd = memfd_create("mle_fuzz", 0);
    check(fd >= 0);
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t uuid[16] = MLE_HDR_UUID_BYTES;
    char cmdline[256];
    size_t clen;
    struct mle m;
    int lrc, crc;

    if (size < 1)
        return 0;
    clen = data[0] < size - 1 ? data[0] : size - 1;
    memcpy(cmdline, data + size - clen, clen);
    cmdline[clen] = 0;
    check(ftruncate(fd, 0) == 0 && pwrite(fd, data + 1, size - 1, 0) == (ssize_t)(size - 1));
    lrc = mle_load(path, cmdline, &m);
    crc = mle_check_file(path);
    if (lrc == 0) {
        check(m.size > 0 && m.size <= VSENTER_MLE_MAX && !(m.base & 0xfff));
        check(memmem(m.bytes, m.size, uuid, 16) != NULL);
        mle_free(&m);
    } else {
        check(crc != 0 || strlen(cmdline) > 0);
    }
    return 0;
}
