/* SPDX-License-Identifier: MIT */
/*
 * What vtboot keeps across S3, in its persistent area (outside the loaded image: QEMU
 * re-copies a -kernel image on wake-up). Everything before `sealed` is the resume state; its
 * SHA-256 (the state digest) is sealed with the MAC key and tboot's s3_key, and it is also the
 * sealed object's outsideInfo, which the TPM's creation ticket binds to the object together
 * with PCR 17/18 at its creation: so the resume accepts only a state this TPM sealed in this
 * launch, and the TPM reset and restart counts in it make it good for the next resume only.
 */
#ifndef TBOOT_S3STATE_H
#define TBOOT_S3STATE_H

#include <stdint.h>

#include "acpi/acpi.h"
#include "boot/bootinfo.h"
#include "boot/options.h"
#include "mem/e820.h"
#include "tboot/integrity.h"
#include "tboot/measure.h"
#include "tboot/shared_page.h"
#include "tpm/tpm2_seal.h"

#define S3_STATE_MAGIC 0x53335456u       /* "VT3S" */
#define S3_STATE_VERSION 2u

struct s3_state {
    uint32_t magic;
    uint32_t version;
    uint32_t size;
    struct vtboot_options opts;
    char cmdline[BOOT_CMDLINE_MAX];      /* vtboot's own: it is part of the MLE */
    uint32_t rsdp_len;                   /* the RSDP vtboot used, by its bytes (20 or 36) */
    uint8_t rsdp[BOOT_RSDP_MAX];
    struct vl_list vl;                   /* the measurements to extend again */
    struct e820_map linux_map;           /* what Linux was told is RAM */
    uint64_t kernel_resume_vector;
    struct mac_regions regions;
    uint8_t tags[TBOOT_MAX_MAC_REGIONS][MAC_TAG_SIZE];
    uint16_t seal_bank;                  /* PCR bank the secret is sealed to (17 and 18) */
    uint32_t lpc_config[3];              /* q35's ICH9 LPC PMBASE, ACPI_CNTL, RCBA; 0: not q35 */
    uint32_t ext_flags;                  /* vtboot's block of the shared page */
    struct shared_page_fixed shared;     /* what vtboot wrote into the shared page */
    struct acpi_digests acpi;            /* the tables the kernel uses after the wake-up */
    uint32_t reset_count;                /* the TPM's, as the next resume must find them */
    uint32_t restart_count;
    /* not covered by the digest */
    struct tpm2_sealed sealed;
    struct tpm2_creation creation;       /* outsideInfo: the state digest */
};

/* What the sealed blob holds. */
struct s3_secrets {
    uint8_t mac_key[MAC_KEY_SIZE];
    uint8_t s3_key[TBOOT_S3_KEY_SIZE];
    uint8_t state_digest[32];            /* SHA-256 of s3_state up to `sealed` */
};

_Static_assert(sizeof(struct s3_secrets) <= TPM2_SEAL_MAX, "sealed secrets fit the TPM");

#endif
