/* SPDX-License-Identifier: MIT */
/*
 * The VT-d remapping units our SINIT protects (docs/txt-platform.md 3.4 step 9, issue 38
 * item 1). The units come from the platform, never from RAM: a table of the chipsets the ACM
 * is built for, keyed by the TXT device's DIDVID (as Intel's SINITs know the chipset they
 * were built for and read its locked VT-d BARs). The ACPI DMAR, which lies in RAM the loader
 * owns, is copied once into the SINIT's own memory; the copy is checked (signature, length,
 * checksum, structures), its DRHD set must be exactly the platform's units, and the copy is
 * what SinitMleData hands over. Then the PMR registers each unit is given, and which of their
 * bits must read back what was written (a window that is no remapping unit, e.g. one that
 * reads all-ones, does not hold them).
 */
#ifndef TXT_VTD_UNITS_H
#define TXT_VTD_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/txt.h"
#include "acpi/tables.h"

#define TXT_DMAR_MAX 4096u                   /* the SINIT's copy; QEMU's DMAR is 80 bytes */
#define TXT_VTD_MAX_UNITS 8u

/* The chipset's remapping units (base, segment, flags as the DMAR must state them) for the
 * TXT device's DIDVID (vendor and device; any revision); NULL with *n = 0 for a chipset the
 * SINIT does not know. */
const struct acpi_drhd *txt_chipset_vtd_units(uint64_t didvid, unsigned *n);

/* The ERRORCODE error numbers under progress 0x06 (include/abi/txt.h); txt_dmar_take
 * returns the DMAR's */
enum txt_dmar_result {
    TXT_DMAR_OK = 0,
    TXT_DMAR_MALFORMED = SINIT_PMR_ERR_DMAR,
    TXT_VTD_UNIT_BAD = SINIT_PMR_ERR_UNIT,
    TXT_DMAR_TOO_BIG = SINIT_PMR_ERR_DMAR_SIZE,
    TXT_DMAR_UNITS = SINIT_PMR_ERR_DRHDS,
    TXT_PMR_NOT_HELD = SINIT_PMR_ERR_READBACK,
};
/* The sub-error of TXT_DMAR_UNITS: what differs first (DRHDs in table order, then the
 * platform's units in order) */
enum txt_dmar_units_sub {
    TXT_DMAR_UNIT_MISSING = SINIT_PMR_DRHD_MISSING,
    TXT_DMAR_UNIT_UNKNOWN = SINIT_PMR_DRHD_UNKNOWN,
    TXT_DMAR_UNIT_TWICE = SINIT_PMR_DRHD_TWICE,
    TXT_DMAR_UNIT_DIFFERS = SINIT_PMR_DRHD_DIFFERS,
};

/* Copies the DMAR found at `ram` (`len` bytes by its header as read when it was found) into
 * copy[0, cap) once, and checks only the copy: signature "DMAR", a length field equal to
 * len, a zero byte sum, valid structures (acpi_dmar_drhds), and DRHDs that are exactly
 * units[0, n) (each named once, with its segment and flags; RMRRs, ATSRs, device scopes and
 * the rest are handed over as they are). TXT_DMAR_OK, or the result with *sub (for
 * TXT_DMAR_UNITS) and the reason in err. */
enum txt_dmar_result txt_dmar_take(const uint8_t *ram, uint32_t len, uint8_t *copy,
                                   uint32_t cap, const struct acpi_drhd *units, unsigned n,
                                   unsigned *sub, char *err, unsigned errlen);

/* A remapping unit's protected-memory range registers as the SINIT writes them, in order
 * (PLMBASE, PLMLIMIT, PHMBASE, PHMLIMIT), with the bits that must read back as written:
 * 31:21 of the low registers and MGAW-1:21 of the high ones (bits 20:0 are below the 2 MiB
 * the heap check requires of every base and size; CAP.MGAW bits 21:16 give the width). */
#define TXT_PMR_REGS 4u
struct txt_pmr_reg {
    uint32_t off;                            /* from the unit's base */
    uint8_t bytes;                           /* 4 or 8 */
    uint64_t value, holds;                   /* written; the bits that must read it back */
};

/* The registers for the low and high ranges (a size of 0: an empty region, limit below
 * base) given the unit's CAP: 0, or -1 with the reason if CAP has no PLMR or PHMR. */
int txt_pmr_regs(uint64_t cap, uint64_t lo_base, uint64_t lo_size, uint64_t hi_base,
                 uint64_t hi_size, struct txt_pmr_reg r[TXT_PMR_REGS], char *err,
                 unsigned errlen);

/* Whether `readback` holds what r wrote. */
bool txt_pmr_holds(const struct txt_pmr_reg *r, uint64_t readback);

#endif
