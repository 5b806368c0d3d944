/* SPDX-License-Identifier: MIT */
/* Filling the tboot shared page the way tboot 1.10's post_launch does. */
#ifndef TBOOT_SHARED_PAGE_H
#define TBOOT_SHARED_PAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/tboot_shared.h"

struct shared_page_args {
    uint32_t log_addr;               /* the memory log, 0 if none */
    uint32_t shutdown_entry;
    uint32_t tboot_base;             /* what Linux identity-maps for the shutdown call */
    uint32_t tboot_size;
};

/* Clears the page (the whole 4 KiB) and writes a version 6 header. */
void shared_page_init(void *page, const struct shared_page_args *a);

/* True if page carries the shared page UUID. */
bool shared_page_valid(const struct tboot_shared *sp);

const char *shutdown_type_name(uint32_t type);

#endif
