/* SPDX-License-Identifier: MIT */
/*
 * Our SINIT ACM (docs/txt-platform.md 3): the flow (sinit.c) and the small drivers it calls.
 * Everything that parses or decides lives in src/ (txt/, acpi/, tpm/, crypto/) and is tested
 * on the host; these files only touch the platform.
 */
#ifndef SINIT_SINIT_H
#define SINIT_SINIT_H

/* entry.S's exception stubs, each padded to this; cpu.c builds the IDT from it */
#define SINIT_STUB_SIZE 16

#ifndef __ASSEMBLER__
#include <stdarg.h>
#include <stdint.h>

#include "txt/mtrr.h"

/* entry.S */
extern const char sinit_exception_stubs[];
extern const char sinit_bss_start[];          /* sinit.ld: the image's zeros start here */
__attribute__((noreturn)) void sinit_exitac(uint32_t target, uint32_t ecx);
/* called by entry.S: the module's SHA-256 over its signed ranges, before relocation */
void sinit_acm_digest(uint32_t acbase);
__attribute__((noreturn)) void sinit_bad_relocation(void);
__attribute__((noreturn)) void sinit_main(uint32_t acbase, uint32_t senter_edx);
__attribute__((noreturn)) void sinit_exception(uint32_t vector, uint32_t w1, uint32_t w2);

/* chipset.c: the TXT configuration spaces (private: open to us in AC mode), the MCH */
uint64_t txt_priv_read(uint32_t off);
uint64_t txt_pub_read(uint32_t off);
void txt_priv_cmd(uint32_t off);
/* ERRORCODE := code, then CMD.RESET; waits for the reset */
__attribute__((noreturn)) void txt_error_reset(uint32_t code);
/* the MCH's SMRAM control register (txt/smram.h) */
uint8_t mch_smramc(void);

/* cpu.c */
void cpu_load_idt(void);
uint32_t cpu_fms(void);                       /* CPUID.1:EAX */
void cpu_read_mtrrs(struct txt_mtrrs *m);

/* fwcfg.c: a named fw_cfg file (QEMU's statement of the platform); -1 if absent or larger
 * than cap */
int fwcfg_read_file(const char *name, uint8_t *buf, uint32_t cap, uint32_t *len);

/* vtd.c: the protected memory regions of the remapping unit at `unit`, each range register
 * read back after it is written, then enabled (PMEN.EPM) and waited for (PRS). A size of 0
 * leaves that region empty. 0, or the ERRORCODE error number (enum txt_dmar_result:
 * TXT_VTD_UNIT_BAD, TXT_PMR_NOT_HELD with *reg the register's index) and the reason. */
int vtd_set_pmrs(uint32_t unit, uint64_t lo_base, uint64_t lo_size, uint64_t hi_base,
                 uint64_t hi_size, unsigned *reg, char *err, unsigned errlen);

#endif /* __ASSEMBLER__ */
#endif
