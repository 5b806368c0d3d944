/* SPDX-License-Identifier: MIT */
/*
 * What the SINIT reads from three ACPI tables (already found and checksum-checked by
 * acpi_find_table): the MADT's enabled CPUs (BiosData's num_logical_procs is checked against
 * it), the DMAR's remapping units (each gets the PMRs) and the MCFG's PCIe configuration
 * window (a SinitMleData memory record). Pure C over the table's bytes.
 */
#ifndef ACPI_TABLES_H
#define ACPI_TABLES_H

#include <stdint.h>

/* Local APIC (type 0) and x2APIC (type 9) entries with the enabled flag. -1 if an entry's
 * length runs past the table or is shorter than its header. */
int acpi_madt_enabled_cpus(const uint8_t *madt, uint32_t len);

/* A DMAR's remapping unit (DRHD, type 0): its register base, PCI segment and flags (bit 0
 * INCLUDE_PCI_ALL). */
struct acpi_drhd {
    uint64_t base;
    uint16_t segment;
    uint8_t flags;
};
#define ACPI_DRHD_INCLUDE_PCI_ALL 0x01u

/* The DRHDs of a DMAR table, in table order: *n how many there are (0 too), the first
 * min(*n, max) written to drhds; 0, or -1 with the reason (shorter than its header, a
 * structure shorter than 4 bytes or past the table's end, a DRHD shorter than 16). */
int acpi_dmar_drhds(const uint8_t *dmar, uint32_t len, struct acpi_drhd *drhds, unsigned max,
                    unsigned *n, char *err, unsigned errlen);

/* Segment 0's ECAM window of an MCFG table: where its first bus starts and its bytes (buses
 * start..end, 1 MiB each).
 * -1 if the table has no allocation for segment 0. */
int acpi_mcfg_segment0(const uint8_t *mcfg, uint32_t len, uint64_t *base, uint64_t *size);

#endif
