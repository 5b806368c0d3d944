/* SPDX-License-Identifier: MIT */
/* QEMU's fw_cfg through its I/O ports (docs/specs/fw_cfg.rst): the file directory, a file. */
#include "arch/x86/io.h"
#include "lib/bytes.h"
#include "lib/string.h"
#include "sinit.h"

#define FW_CFG_SELECTOR 0x510
#define FW_CFG_DATA 0x511
#define FW_CFG_FILE_DIR 0x19
#define FW_CFG_NAME_LEN 56u

static void read_bytes(uint8_t *p, uint32_t n)
{
    while (n--)
        *p++ = inb(FW_CFG_DATA);
}

int fwcfg_read_file(const char *name, uint8_t *buf, uint32_t cap, uint32_t *len)
{
    uint8_t b[4 + 2 + 2 + FW_CFG_NAME_LEN];

    outw(FW_CFG_SELECTOR, FW_CFG_FILE_DIR);
    read_bytes(b, 4);
    uint32_t count = load_be32(b);
    for (uint32_t i = 0; i < count && i < 4096; i++) {
        read_bytes(b, sizeof(b));           /* size, select, reserved, name: big-endian */
        b[sizeof(b) - 1] = 0;
        if (strcmp((const char *)b + 8, name))
            continue;
        uint32_t size = load_be32(b);
        if (size > cap)
            return -1;
        outw(FW_CFG_SELECTOR, load_be16(b + 4));
        read_bytes(buf, size);
        *len = size;
        return 0;
    }
    return -1;
}
