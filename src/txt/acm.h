/* SPDX-License-Identifier: MIT */
/*
 * The SINIT authenticated code module as a file (include/abi/txt.h): parsing it the way tboot
 * 1.10.5 selects one (txt/acmod.c is_sinit_acmod, does_acmod_match_platform, verify_acmod),
 * every offset and count read from the file bounded by the module, and building one from
 * values (docs/txt-platform.md 3.2), leaving the signature to the caller, who signs the bytes
 * acm_signed_ranges() names (3.3).
 */
#ifndef TXT_ACM_H
#define TXT_ACM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/txt.h"

#define ACM_MAX_IDS 8u               /* entries acm_build lays out per list */
#define ACM_MAX_ALGS 8u

/* What acm_parse found; offsets are from the module's first byte. */
struct acm_info {
    struct txt_acm_hdr hdr;
    struct txt_acm_info_table info;  /* fields beyond the table's version read as 0 */
    uint32_t size;                   /* hdr.size * 4: the module */
    uint32_t padding;                /* file bytes after the module (0 or tboot's 64-256 KiB) */
    uint32_t info_off;
    uint32_t nr_chipsets, chipsets_off;        /* entries: chipsets_off + 16 * i */
    uint32_t nr_procs, procs_off;              /* version >= 4, else 0 */
    bool has_tpm_info;                         /* version >= 5 */
    uint32_t tpm_caps, nr_algs, algs_off;      /* u16 alg IDs from algs_off */
};

/* is_sinit_acmod plus every list tboot reads within the module: 0, or -1 with the reason.
 * The lists are those tboot reads (chipset always, processor from info version 4, TPM info
 * from 5); a list tboot would find out of bounds is refused here already. */
int acm_parse(const uint8_t *file, size_t len, struct acm_info *a, char *err, unsigned errlen);

/* The NV index tboot reads its verified launch policy from with this SINIT: the 0x01C1xxxx set
 * when the ACM's TPM info sets tpm_nv_index_set, else 0x01200001. */
uint32_t acm_tb_policy_index(const struct acm_info *a);

void acm_chipset(const uint8_t *file, const struct acm_info *a, uint32_t i,
                 struct txt_acm_chipset_id *out);
void acm_processor(const uint8_t *file, const struct acm_info *a, uint32_t i,
                   struct txt_acm_processor_id *out);
uint16_t acm_tpm_alg(const uint8_t *file, const struct acm_info *a, uint32_t i);

/* What does_acmod_match_platform reads from the platform. */
struct acm_platform {
    uint64_t ver_fsbif, ver_qpiif;   /* VER.QPIIF is used if FSBIF's low dword is 0 or ~0 */
    uint64_t didvid;
    uint32_t fms;                    /* CPUID.1:EAX */
    uint64_t platform_id;            /* MSR 0x17 */
    uint32_t bios_data_version;      /* BiosData: client/server match from version 6 */
    uint64_t bios_data_flags;
};

/* does_acmod_match_platform on a parsed module: 0, or -1 with the reason. */
int acm_match_platform(const uint8_t *file, const struct acm_info *a,
                       const struct acm_platform *p, char *err, unsigned errlen);

/* verify_acmod's checks before SENTER (acm_max_size: GETSEC[PARAMETERS]; 0 = no limit). */
int acm_check_launch(const struct acm_info *a, uint32_t acm_max_size, char *err,
                     unsigned errlen);

/* The signed bytes of a module of `size` bytes: [0, 0x184) and [0x4C0, size). */
struct acm_range {
    uint32_t off, len;
};
#define ACM_NR_SIGNED_RANGES 2u
void acm_signed_ranges(uint32_t size, struct acm_range r[ACM_NR_SIGNED_RANGES]);

/* What acm_build lays out: docs/txt-platform.md 3.2's values come from acm_values_default. */
struct acm_values {
    uint16_t module_subtype;
    uint16_t chipset_id;
    uint16_t flags;
    uint32_t date;                   /* BCD 0xYYYYMMDD */
    uint16_t txt_svn;
    uint32_t code_control;
    uint32_t error_entry_point;
    uint32_t seg_sel;
    /* offsets in the payload; acm_build adds where it puts the payload. gdt_in_payload
     * false: acm_build lays out a flat 4-entry GDT itself (null, code 0x08, data 0x10, null) */
    bool gdt_in_payload;
    uint32_t gdt_base, gdt_limit;
    uint32_t entry_point;
    uint32_t pub_exp;
    /* the information table */
    uint8_t info_version;            /* 3-7; lists beyond the version are not laid out */
    uint32_t os_sinit_data_ver;
    uint32_t min_mle_hdr_ver;
    uint32_t capabilities;
    uint8_t acm_ver;
    uint8_t acm_revision[3];
    uint32_t nr_chipsets;
    struct txt_acm_chipset_id chipsets[ACM_MAX_IDS];
    uint32_t nr_procs;
    struct txt_acm_processor_id procs[ACM_MAX_IDS];
    uint32_t tpm_caps;
    uint32_t nr_algs;
    uint16_t algs[ACM_MAX_ALGS];
};

/* docs 3.2: SINIT for chipset 0x8086:0xB00F rev 1, processor `fms` (mask 0x0FFF3FF0),
 * platform ID 0x0004000000000000/0x001C000000000000, caps 0x261, TPM 2.0 with SHA-1 and
 * SHA-256 and the 2.0 NV index set, info table version 5, OsSinitData 7, MLE header 2.0+. */
void acm_values_default(struct acm_values *v, uint32_t fms, uint32_t date);

/* Where acm_build puts the payload for these values (64-byte aligned after the lists). */
uint32_t acm_payload_offset(const struct acm_values *v);

/* Lays out header, information table, lists, (GDT,) payload, zero padding to a multiple of
 * 64 bytes; rsa2048_pubkey/rsa2048_sig zero (the signer fills them). out_len: the module's
 * size. 0, or -1 with the reason (values out of range, out too small). */
int acm_build(const struct acm_values *v, const uint8_t *payload, uint32_t payload_len,
              uint8_t *out, uint32_t out_cap, uint32_t *out_len, char *err, unsigned errlen);

#endif
