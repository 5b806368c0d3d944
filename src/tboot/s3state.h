/* SPDX-License-Identifier: MIT */
/*
 * What vtboot keeps across S3, in its persistent area (outside the loaded image: QEMU
 * re-copies a -kernel image on wake-up). The sealed blob holds the MAC key, tboot's s3_key and
 * a digest of everything before `sealed` in this struct, and unseals only in the re-launched
 * state (PCR 17/18 as measured), so neither the state nor the measurements it replays can be
 * changed while the machine sleeps without the resume failing.
 */
#ifndef TBOOT_S3STATE_H
#define TBOOT_S3STATE_H

#include <stdint.h>

#include "boot/bootinfo.h"
#include "boot/options.h"
#include "mem/e820.h"
#include "tboot/integrity.h"
#include "tboot/measure.h"
#include "tpm/tpm2_seal.h"

#define S3_STATE_MAGIC 0x53335456u       /* "VT3S" */
#define S3_STATE_VERSION 1u

struct s3_state {
    uint32_t magic;
    uint32_t version;
    uint32_t size;
    struct vtboot_options opts;
    char cmdline[BOOT_CMDLINE_MAX];      /* vtboot's own: it is part of the MLE */
    uint64_t rsdp;
    struct vl_list vl;                   /* the measurements to extend again */
    struct e820_map linux_map;           /* what Linux was told is RAM */
    uint64_t kernel_resume_vector;
    struct mac_regions regions;
    uint8_t tags[TBOOT_MAX_MAC_REGIONS][MAC_TAG_SIZE];
    uint16_t seal_bank;                  /* PCR bank the secret is sealed to (17 and 18) */
    uint32_t lpc_config[3];              /* q35's ICH9 LPC PMBASE, ACPI_CNTL, RCBA; 0: not q35 */
    /* not covered by the digest */
    struct tpm2_sealed sealed;
};

/* What the sealed blob holds. */
struct s3_secrets {
    uint8_t mac_key[MAC_KEY_SIZE];
    uint8_t s3_key[TBOOT_S3_KEY_SIZE];
    uint8_t state_digest[32];            /* SHA-256 of s3_state up to `sealed` */
};

_Static_assert(sizeof(struct s3_secrets) <= TPM2_SEAL_MAX, "sealed secrets fit the TPM");

#endif
