/* SPDX-License-Identifier: MIT */
/*
 * SMRAM as our SINIT requires it before a launch (docs/txt-platform.md 3.4 step 2): the SMI
 * handler keeps running after the launch, so only a handler nobody after the firmware could
 * replace is acceptable. The MCH's SMRAM control register (SMRAMC, device 0:0.0 offset 0x9D in
 * Intel's 3 Series/Q35 datasheets; QEMU's q35 models it) must say SMRAM is enabled, closed to
 * code outside SMM and locked until the next platform reset (D_LCK also locks the TSEG
 * control, ESMRAMC).
 */
#ifndef TXT_SMRAM_H
#define TXT_SMRAM_H

#include <stdint.h>

#define MCH_SMRAMC 0x9du
#define MCH_SMRAMC_D_OPEN (1u << 6)     /* SMRAM open to non-SMM accesses */
#define MCH_SMRAMC_D_CLS (1u << 5)      /* SMM data accesses go to the bus */
#define MCH_SMRAMC_D_LCK (1u << 4)      /* SMRAMC and ESMRAMC locked, D_OPEN forced clear */
#define MCH_SMRAMC_G_SMRAME (1u << 3)   /* SMRAM enabled */

/* 0 if smramc says enabled, closed and locked; else -1 with the reason. */
int txt_smram_check(uint8_t smramc, char *err, unsigned errlen);

#endif
