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

/* The fields of the page that vtboot writes and Linux only reads (Linux 6.1 reads
 * shutdown_entry on every call): kept across S3 and compared at resume. */
struct shared_page_fixed {
    uint8_t uuid[16];
    uint32_t version;
    uint32_t log_addr;
    uint32_t shutdown_entry;
    uint32_t tboot_base;
    uint32_t tboot_size;
    uint32_t flags;
    uint64_t ap_wake_addr;
    uint32_t ap_wake_trigger;
};

void shared_page_fixed_get(const struct tboot_shared *sp, struct shared_page_fixed *out);
/* The name of the first field of `sp` that differs from `was`, or NULL. */
const char *shared_page_fixed_diff(const struct shared_page_fixed *was,
                                   const struct tboot_shared *sp);

/* True if page carries the shared page UUID. */
bool shared_page_valid(const struct tboot_shared *sp);

const char *shutdown_type_name(uint32_t type);

/*
 * The one CPU that ends (or sleeps) the machine: the first to claim it. *owner starts 0 (.bss)
 * and holds the claiming CPU's APIC ID + 1. True if apic_id holds the claim (now or already);
 * false: another CPU does, and this one must park.
 */
bool shutdown_claim(uint32_t *owner, uint32_t apic_id);

/*
 * What a CPU that entered shutdown_entry does with the shutdown_type it read. That field is
 * one for all CPUs, and Linux reports an offlined CPU dead before that CPU calls
 * shutdown_entry (with vtboot's num_in_wfs one too high, docs/s3.md, the kernel does not wait
 * for it): the boot CPU may already have written its request when the late CPU reads the field,
 * or the late CPU's TB_SHUTDOWN_WFS may land over the boot CPU's request before the boot CPU
 * reads it. Linux and Xen suspend on the boot CPU and never park it.
 */
enum shutdown_action {
    SHUTDOWN_ENDS,              /* this CPU ends (or sleeps) the machine */
    SHUTDOWN_PARKS,             /* an offlined CPU: it parks (wait-for-SIPI) */
    SHUTDOWN_LATE_BEHIND_OWNER, /* another CPU claimed the machine: this late one parks */
    SHUTDOWN_LATE_S3_ON_AP,     /* an AP read S3, the boot CPU's request: it parks */
    SHUTDOWN_BOOT_CPU_WFS,      /* the boot CPU read wait-for-SIPI: its own request is lost */
};

enum shutdown_action shutdown_decide(uint32_t type, bool boot_cpu, uint32_t *owner,
                                     uint32_t apic_id);

#endif
