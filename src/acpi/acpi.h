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

/* Looks for the RSDP in the EBDA and the BIOS area 0xe0000-0xfffff. 0 if absent. */
uint64_t acpi_find_rsdp(void);

/* Reads the tables behind the RSDP at `rsdp`; -1 with a reason in err. */
int acpi_read_platform(uint64_t rsdp, struct acpi_platform *p, char *err, unsigned errlen);

/* Finds Name(_S5, Package(){a, b, ...}) in an AML byte stream; false if absent/malformed. */
bool acpi_aml_find_s5(const uint8_t *aml, uint32_t len, uint8_t *typ_a, uint8_t *typ_b);

#endif
