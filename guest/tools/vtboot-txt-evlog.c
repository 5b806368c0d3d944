/* SPDX-License-Identifier: MIT */
/*
 * vtboot-txt-evlog: prints, as lowercase hex (32 bytes a line), the D-RTM event log a TXT
 * launch left in the heap: the SINIT's records, then tboot's (docs/txt-platform.md 3.4 step
 * 7). HEAP.BASE/SIZE from the TXT public space, the heap walked by src/txt/heap.c, the log
 * found through OsSinitData's event-log element (type 8), [0, next_record_offset) printed.
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
    struct txt_heap_view v;
    char err[200];
    int fd = open("/dev/mem", O_RDONLY | O_SYNC);
    const uint8_t *pub = fd < 0 ? NULL : map(fd, TXT_PUB_CONFIG_REGS_BASE, 4096);
    if (!pub) {
        perror("vtboot-txt-evlog: /dev/mem");
        return 1;
    }
    uint64_t base, size;
    memcpy(&base, pub + TXTCR_HEAP_BASE, 8);
    memcpy(&size, pub + TXTCR_HEAP_SIZE, 8);
    const uint8_t *heap = size ? map(fd, base, size) : NULL;
    if (!heap || txt_heap_walk(heap, size, 3, &v, err, sizeof(err))) {
        fprintf(stderr, "vtboot-txt-evlog: heap at 0x%llx+0x%llx: %s\n", (unsigned long long)base,
                (unsigned long long)size, heap ? err : "cannot map it");
        return 1;
    }
    /* OsSinitData's data, its extended elements after the fixed fields (version 6 on) */
    const uint8_t *os = heap + v.off[TXT_HEAP_OS_SINIT_DATA] + TXT_HEAP_SIZE_FIELD;
    const uint8_t *elt = os + sizeof(struct txt_os_sinit_data);
    uint32_t type, esize;
    memcpy(&type, elt, 4);
    memcpy(&esize, elt + 4, 4);
    if (v.size[TXT_HEAP_OS_SINIT_DATA] < TXT_HEAP_SIZE_FIELD + sizeof(struct txt_os_sinit_data) +
                                          TXT_EVTLOG_ELT2_1_SIZE ||
        type != HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR_2_1 || esize != TXT_EVTLOG_ELT2_1_SIZE) {
        fprintf(stderr, "vtboot-txt-evlog: OsSinitData has no TCG event log element\n");
        return 1;
    }
    struct txt_heap_event_log_ptr_elt2_1 l;
    memcpy(&l, elt + 8, sizeof(l));
    if (l.phys_addr < base || l.phys_addr - base > size ||
        l.next_record_offset > size - (l.phys_addr - base) ||
        l.next_record_offset > l.allocated_event_container_size) {
        fprintf(stderr, "vtboot-txt-evlog: log 0x%llx+0x%x (next record 0x%x) not in the heap\n",
                (unsigned long long)l.phys_addr, l.allocated_event_container_size,
                l.next_record_offset);
        return 1;
    }
    const uint8_t *log = heap + (l.phys_addr - base);
    for (uint32_t i = 0; i < l.next_record_offset; i++)
        printf("%02x%s", log[i], i % 32 == 31 || i + 1 == l.next_record_offset ? "\n" : "");
    return fflush(stdout) ? 1 : 0;
}
