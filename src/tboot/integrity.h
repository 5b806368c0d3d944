/* SPDX-License-Identifier: MIT */
/*
 * Memory integrity across S3: the kernel names its memory in the shared page (mac_regions);
 * vtboot MACs it before sleeping and checks it on wake-up. Each kernel region gets its own
 * Poly1305 tag under its own one-time key (derived from one random key per suspend), so a
 * failure names the region. Only bytes the e820 map handed to Linux calls RAM are MACed:
 * a region that strays into reserved memory (the EBDA, firmware areas the BIOS rewrites on
 * resume) is clipped, never extended. Nor is the first 64 KiB MACed: the firmware writes
 * there while the machine resumes (SeaBIOS's AP start-up pushes on a stack at 0x10000, seen
 * in one resume in two), and Linux keeps nothing there (CONFIG_X86_RESERVE_LOW, 64 KiB by
 * default, is reserved for the BIOS for that very reason).
 */
#ifndef TBOOT_INTEGRITY_H
#define TBOOT_INTEGRITY_H

#include <stdint.h>

#include "abi/tboot_shared.h"
#include "mem/e820.h"
#include "tboot/progress.h"

#define MAC_KEY_SIZE 32u
#define MAC_TAG_SIZE 16u
#define MAC_LOW_BIOS_END 0x10000u        /* the first 64 KiB: the firmware's while resuming */

struct mac_region {
    uint64_t start;
    uint32_t size;
};

struct mac_regions {
    unsigned n;
    struct mac_region r[TBOOT_MAX_MAC_REGIONS];
};

/* Copies and validates the kernel's regions (count <= 32, no wrap, below 4 GiB: vtboot runs
 * without paging). -1 with a reason naming the region. */
int mac_regions_from_shared(const struct tboot_shared *sp, struct mac_regions *out, char *err,
                            unsigned errlen);

/* Both passes report their progress over all regions' RAM bytes (mac_regions_covered) to cb
 * (tboot/progress.h: item 0); cb NULL: quiet. */

/* The tag of each region, over its RAM bytes per `ram` (through phys_map). */
void mac_regions_compute(const uint8_t key[MAC_KEY_SIZE], const struct mac_regions *regs,
                         const struct e820_map *ram, uint8_t tags[][MAC_TAG_SIZE],
                         const struct progress_cb *cb);

/* The first region whose tag differs from `tags`, or -1 if all match (constant-time compare). */
int mac_regions_verify(const uint8_t key[MAC_KEY_SIZE], const struct mac_regions *regs,
                       const struct e820_map *ram, const uint8_t tags[][MAC_TAG_SIZE],
                       const struct progress_cb *cb);

/* Bytes of regs that are RAM per `ram` (what the tags cover). */
uint64_t mac_regions_covered(const struct mac_regions *regs, const struct e820_map *ram);

#endif
