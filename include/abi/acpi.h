/* SPDX-License-Identifier: MIT */
/* The ACPI tables vtboot reads (ACPI 6.x, §5.2): RSDP, the SDT header, the FADT fields for
 * sleep and reset, and the FACS waking vector. */
#ifndef ABI_ACPI_H
#define ABI_ACPI_H

#include <stdint.h>
#include <stddef.h>

#define ACPI_RSDP_SIGNATURE "RSD PTR "
#define ACPI_RSDP_V1_LEN 20u
#define ACPI_RSDP_V2_LEN 36u

struct acpi_rsdp {
    char signature[8];
    uint8_t checksum;                /* over the first 20 bytes */
    char oem_id[6];
    uint8_t revision;                /* 0: ACPI 1.0, 2: 2.0+ */
    uint32_t rsdt_address;
    uint32_t length;                 /* 2.0+ */
    uint64_t xsdt_address;
    uint8_t extended_checksum;
    uint8_t reserved[3];
} __attribute__((packed));

struct acpi_sdt_header {
    char signature[4];
    uint32_t length;
    uint8_t revision;
    uint8_t checksum;
    char oem_id[6];
    char oem_table_id[8];
    uint32_t oem_revision;
    uint32_t creator_id;
    uint32_t creator_revision;
} __attribute__((packed));

struct acpi_gas {
    uint8_t space_id;                /* 0 system memory, 1 system I/O */
    uint8_t bit_width;
    uint8_t bit_offset;
    uint8_t access_size;
    uint64_t address;
} __attribute__((packed));

#define ACPI_GAS_MEMORY 0u
#define ACPI_GAS_IO 1u

/* FADT byte offsets (only what vtboot reads; the table grew over revisions). */
#define FADT_FIRMWARE_CTRL 36u       /* u32 FACS */
#define FADT_DSDT 40u
#define FADT_PM1A_EVT_BLK 56u
#define FADT_PM1B_EVT_BLK 60u
#define FADT_PM1A_CNT_BLK 64u
#define FADT_PM1B_CNT_BLK 68u
#define FADT_PM1_EVT_LEN 88u
#define FADT_PM1_CNT_LEN 89u
#define FADT_FLAGS 112u
#define FADT_V1_LEN 116u
#define FADT_RESET_REG 116u          /* GAS, ACPI 2.0+ */
#define FADT_RESET_VALUE 128u
#define FADT_X_FIRMWARE_CTRL 132u
#define FADT_X_DSDT 140u
#define FADT_X_PM1A_EVT_BLK 148u
#define FADT_X_PM1B_EVT_BLK 160u
#define FADT_X_PM1A_CNT_BLK 172u
#define FADT_X_PM1B_CNT_BLK 184u
#define FADT_V2_LEN 244u

#define FADT_FLAG_RESET_REG_SUP (1u << 10)
#define FADT_FLAG_HW_REDUCED (1u << 20)

#define ACPI_PM1_SLP_TYP_SHIFT 10u
#define ACPI_PM1_SLP_TYP_MASK (7u << 10)
#define ACPI_PM1_SLP_EN (1u << 13)
#define ACPI_PM1_WAK_STS (1u << 15)

#define FACS_FIRMWARE_WAKING_VECTOR 12u
#define FACS_X_FIRMWARE_WAKING_VECTOR 24u
#define FACS_GLOBAL_LOCK 16u
#define FACS_OSPM_FLAGS 36u
#define FACS_MIN_LEN 64u

_Static_assert(sizeof(struct acpi_rsdp) == 36, "RSDP");
_Static_assert(sizeof(struct acpi_sdt_header) == 36, "SDT header");
_Static_assert(sizeof(struct acpi_gas) == 12, "GAS");

#endif
