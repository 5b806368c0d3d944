/* SPDX-License-Identifier: MIT */
/*
 * SinitMleData as our SINIT writes it into the heap's fourth region (docs/txt-platform.md 3.4
 * step 8): version 9, the launch's EDX, LCP policy control and S-CRTM status, an END element,
 * the memory descriptor records, then the copy of the platform's DMAR table. MDRs: GOOD for
 * each RAM range the caller read from QEMU's etc/e820 minus the legacy hole [0xA0000,
 * 0x100000) (tboot turns RAM that no GOOD record covers into reserved memory), PROTECTED for
 * DPR, PCIE_CONFIG for MCFG. What tboot, Linux and Xen then read is what
 * txt_sinit_mle_data_check (src/txt/heap.h) accepts; the builder's output must pass it.
 */
#ifndef TXT_SINIT_MLE_H
#define TXT_SINIT_MLE_H

#include <stdint.h>

#define TXT_SINIT_MLE_MAX_RAM 16u

struct txt_sinit_mle_in {
    uint32_t edx_senter_flags;
    uint32_t lcp_policy_control;
    uint32_t proc_scrtm_status;
    unsigned nr_ram;
    struct { uint64_t base, size; } ram[TXT_SINIT_MLE_MAX_RAM];
    uint64_t dpr_base, dpr_size;
    uint64_t mcfg_base, mcfg_size;   /* 0 size: no record */
    const uint8_t *dmar;             /* the ACPI DMAR table, checksum already verified */
    uint32_t dmar_len;
};

/* QEMU's fw_cfg file etc/e820 (packed {u64 address, u64 length, u32 type} entries, little-
 * endian): its RAM entries (type 1) into in->ram. -1 with the reason: a partial entry, more
 * than TXT_SINIT_MLE_MAX_RAM RAM ranges, none. */
int txt_ram_from_fw_cfg_e820(const uint8_t *e820, uint32_t len, struct txt_sinit_mle_in *in,
                             char *err, unsigned errlen);

/* Writes the region (its u64 size field first) into out[0, cap); *size: the region's bytes.
 * 0, or -1 with the reason (too many or empty ranges, no DMAR, out too small). */
int txt_sinit_mle_data_build(const struct txt_sinit_mle_in *in, uint8_t *out, uint64_t cap,
                             uint64_t *size, char *err, unsigned errlen);

#endif
