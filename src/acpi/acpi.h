/* SPDX-License-Identifier: MIT */
/*
 * What vtboot needs from the platform's ACPI tables to power off, reset and sleep by itself:
 * found and checksum-validated here (pure C), used by drivers/acpi_pm.c.
 */
#ifndef ACPI_ACPI_H
#define ACPI_ACPI_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/acpi.h"

struct acpi_platform {
    uint64_t rsdp;
    uint64_t facs;
    uint64_t dsdt;
    uint32_t fadt_flags;
    struct acpi_gas pm1a_cnt;        /* address 0: absent */
    struct acpi_gas pm1b_cnt;
    struct acpi_gas pm1a_evt;
    struct acpi_gas pm1b_evt;
    bool reset_supported;
    struct acpi_gas reset_reg;
    uint8_t reset_value;
    bool s5_known;                   /* \_S5 found in the DSDT */
    uint8_t s5_typ_a;
    uint8_t s5_typ_b;
};

/* The byte sum of `len` bytes: 0 for a table with a valid checksum. */
uint8_t acpi_checksum(const void *bytes, uint32_t len);

/* Looks for the RSDP in the EBDA and the BIOS area 0xe0000-0xfffff. 0 if absent. */
uint64_t acpi_find_rsdp(void);

/* The first table with signature `sig` that the RSDT/XSDT behind `rsdp` lists, with a valid
 * header, length and checksum, below 4 GiB: its address and length; -1 with a reason. */
int acpi_find_table(uint64_t rsdp, const char *sig, uint64_t *addr, uint32_t *len, char *err,
                    unsigned errlen);

/* Reads the tables behind the RSDP at `rsdp`; -1 with a reason in err. */
int acpi_read_platform(uint64_t rsdp, struct acpi_platform *p, char *err, unsigned errlen);

/* What the kernel runs or reads of ACPI after an S3 resume, hashed at suspend and compared at
 * resume: the RSDP, the RSDT/XSDT, every table they list, the DSDT and the FACS. */
#define ACPI_DIGESTS_MAX 32u

struct acpi_table_digest {
    char signature[4];
    uint32_t length;
    uint64_t addr;
    uint8_t sha256[32];
};

struct acpi_digests {
    unsigned n;
    struct acpi_table_digest t[ACPI_DIGESTS_MAX];
};

/* Hashes each table as it is (header length, checksum or not: a changed byte must show as a
 * changed digest); the FACS with the fields firmware and OS write while running (waking
 * vectors, global lock, OSPM flags) counted as zero. -1 with a reason if the RSDP or the
 * root table cannot be read, or a table lies outside 4 GiB or is longer than 1 MiB. */
int acpi_digest_tables(uint64_t rsdp, struct acpi_digests *out, char *err, unsigned errlen);

/* The index of the first entry where `was` and `now` differ (a table changed or moved, one
 * more or one fewer), or -1 if they are the same. */
int acpi_digests_compare(const struct acpi_digests *was, const struct acpi_digests *now);

/* Where vtboot points the firmware at its S3 resume: the 32-bit FIRMWARE_WAKING_VECTOR of the
 * FACS vtboot found itself (facs + 12), whatever the kernel's acpi_sinfo says. field 0: no S3
 * (no FACS, or its vector not below 4 GiB, where vtboot cannot write it). kernel_differs: the
 * kernel's wakeup_vector (of vector_width bits) is not that field; vtboot says so. */
struct acpi_waking_vector {
    uint64_t field;
    bool kernel_differs;
};

struct acpi_waking_vector acpi_waking_vector(uint64_t facs, uint64_t kernel_vector,
                                             uint32_t kernel_width);

/* Finds Name(_S5, Package(){a, b, ...}) in an AML byte stream; false if absent/malformed. */
bool acpi_aml_find_s5(const uint8_t *aml, uint32_t len, uint8_t *typ_a, uint8_t *typ_b);

#endif
