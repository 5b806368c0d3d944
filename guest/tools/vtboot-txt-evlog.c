/* SPDX-License-Identifier: MIT */
/*
 * vtboot-txt-evlog: prints, as lowercase hex (32 bytes a line), the D-RTM event log a TXT
 * launch left in the heap: the SINIT's records, then tboot's (docs/txt-platform.md 3.4 step
 * 7). HEAP.BASE/SIZE from the TXT public space, the log found in the heap by src/txt/heap.c
 * (txt_heap_event_log: OsSinitData's event-log element, type 8), [0, next_record_offset)
 * printed.
 * Both are read by mmap of /dev/mem: read() refuses addresses above the last RAM page, where
 * the TXT region lies.
 *
 * Exit status: 0 printed, 1 no heap, no log element or a log outside the heap (one line on
 * stderr).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "abi/txt.h"
#include "txt/heap.h"

static const uint8_t *map(int fd, uint64_t phys, size_t len)
{
    void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)phys);
    return p == MAP_FAILED ? NULL : p;
}

int main(void)
{
    char err[200];
    int fd = open("/dev/mem", O_RDONLY | O_SYNC);
    const uint8_t *pub = fd < 0 ? NULL : map(fd, TXT_PUB_CONFIG_REGS_BASE, 4096);
    if (!pub) {
        perror("vtboot-txt-evlog: /dev/mem");
        return 1;
    }
    uint64_t base, size, off;
    uint32_t len;
    memcpy(&base, pub + TXTCR_HEAP_BASE, 8);
    memcpy(&size, pub + TXTCR_HEAP_SIZE, 8);
    const uint8_t *heap = size ? map(fd, base, size) : NULL;
    if (!heap || txt_heap_event_log(heap, base, size, &off, &len, err, sizeof(err))) {
        fprintf(stderr, "vtboot-txt-evlog: heap at 0x%llx+0x%llx: %s\n", (unsigned long long)base,
                (unsigned long long)size, heap ? err : "cannot map it");
        return 1;
    }
    const uint8_t *log = heap + off;
    for (uint32_t i = 0; i < len; i++)
        printf("%02x%s", log[i], i % 32 == 31 || i + 1 == len ? "\n" : "");
    return fflush(stdout) ? 1 : 0;
}
