/* SPDX-License-Identifier: MIT */
/* vtboot's own block in the tboot shared page (abi/vtboot_ext.h): what the launch did, where
 * its logs are; the kernel and vtboot-attest read it. */
#ifndef COMMON_EXT_BLOCK_H
#define COMMON_EXT_BLOCK_H

#include <stdint.h>

#include "abi/vtboot_ext.h"

/* Once the shared page is written: the block, with LAUNCHED|TPM if PCR 17 holds the launch. */
void ext_block_init(uint32_t memlog_addr);
struct vtboot_ext *ext_block(void);

#endif
