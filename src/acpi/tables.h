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

/* The register base of each DRHD (type 0) of a DMAR table, in table order: 0 with *n, or -1
 * with the reason (a structure past the table's end, more than `max`, none at all). */
int acpi_dmar_drhds(const uint8_t *dmar, uint32_t len, uint64_t *bases, unsigned max,
                    unsigned *n, char *err, unsigned errlen);

/* Segment 0's ECAM window of an MCFG table: where its first bus starts and its bytes (buses
 * start..end, 1 MiB each).
 * -1 if the table has no allocation for segment 0. */
int acpi_mcfg_segment0(const uint8_t *mcfg, uint32_t len, uint64_t *base, uint64_t *size);

#endif
