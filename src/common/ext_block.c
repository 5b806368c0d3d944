/* SPDX-License-Identifier: MIT */
#include "common/ext_block.h"
#include "common/pcr_cap.h"
#include "layout.h"
#include "lib/string.h"

struct vtboot_ext *ext_block(void)
{
    return (struct vtboot_ext *)(_shared_page + VTBOOT_EXT_OFFSET);
}

void ext_block_init(uint32_t memlog_addr)
{
    static const uint8_t uuid[16] = VTBOOT_EXT_UUID_BYTES;
    struct vtboot_ext *x = ext_block();
    memset(x, 0, sizeof(*x));
    memcpy(x->uuid, uuid, sizeof(uuid));
    x->version = VTBOOT_EXT_VERSION;
    x->size = sizeof(*x);
    x->memlog_addr = memlog_addr;
    if (pcr_cap_armed())
        x->flags |= VTBOOT_EXT_TPM | VTBOOT_EXT_LAUNCHED;
}
