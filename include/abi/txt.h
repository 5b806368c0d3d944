/* SPDX-License-Identifier: MIT */
/*
 * Intel TXT as tboot 1.10.5 and the SINIT ACM see it: the chipset's configuration registers
 * (tboot's txt/config_regs.h), the ERRORCODE layout (txt/errorcode.h), the TXT heap and its
 * four regions (txt/heap.h), and the authenticated code module's header, information table and
 * ID lists (txt/acmod.h). docs/txt-platform.md section 3 says which values vtboot's SINIT and
 * the emulated chipset use; ../shared/reference/txt-platform-surface.md which program reads what.
 *
 * Everything is little-endian and, as in tboot, packed (the i386 ABI places every field of
 * these structures at the same offset anyway, except the event-log pointer element 2.1 whose
 * tboot layout is natural and 20 bytes either way). The static asserts pin each size and the
 * offsets programs read; pure code (src/txt/) loads fields with lib/bytes.h at these offsets.
 */
#ifndef ABI_TXT_H
#define ABI_TXT_H

#include <stddef.h>
#include <stdint.h>

/* ---- configuration registers (SDM vol. 3 / MLE DG "TXT configuration registers") ---- */

#define TXT_PRIV_CONFIG_REGS_BASE 0xfed20000u
#define TXT_PUB_CONFIG_REGS_BASE 0xfed30000u
#define TXT_CONFIG_REGS_SIZE 0x10000u

/* offsets from either base; each register is 64 bits wide */
#define TXTCR_STS 0x000u
#define TXTCR_ESTS 0x008u
#define TXTCR_ERRORCODE 0x030u
#define TXTCR_CMD_RESET 0x038u
#define TXTCR_CMD_OPEN_PRIVATE 0x040u   /* not in Intel's published table: our chipset's choice */
#define TXTCR_CMD_CLOSE_PRIVATE 0x048u
#define TXTCR_VER_FSBIF 0x100u
#define TXTCR_DIDVID 0x110u
#define TXTCR_VER_QPIIF 0x200u          /* a.k.a. VER.EMIF */
#define TXTCR_CMD_UNLOCK_MEM_CONFIG 0x218u
#define TXTCR_SINIT_BASE 0x270u
#define TXTCR_SINIT_SIZE 0x278u
#define TXTCR_MLE_JOIN 0x290u
#define TXTCR_HEAP_BASE 0x300u
#define TXTCR_HEAP_SIZE 0x308u
#define TXTCR_MSEG_BASE 0x310u
#define TXTCR_MSEG_SIZE 0x318u
#define TXTCR_DPR 0x330u
#define TXTCR_CMD_OPEN_LOCALITY1 0x380u
#define TXTCR_CMD_CLOSE_LOCALITY1 0x388u
#define TXTCR_CMD_OPEN_LOCALITY2 0x390u
#define TXTCR_CMD_CLOSE_LOCALITY2 0x398u
#define TXTCR_PUBLIC_KEY 0x400u         /* 32 bytes: SHA-256 of the ACM signing key */
#define TXTCR_PUBLIC_KEY_SIZE 32u
#define TXTCR_CMD_SECRETS 0x8e0u
#define TXTCR_CMD_NO_SECRETS 0x8e8u
#define TXTCR_E2STS 0x8f0u

/* STS */
#define TXT_STS_SENTER_DONE (1u << 0)
#define TXT_STS_SEXIT_DONE (1u << 1)
#define TXT_STS_MEM_CONFIG_LOCK (1u << 6)
#define TXT_STS_PRIVATE_OPEN (1u << 7)
#define TXT_STS_LOCALITY1_OPEN (1u << 15)
#define TXT_STS_LOCALITY2_OPEN (1u << 16)
/* ESTS */
#define TXT_ESTS_TXT_RESET (1u << 0)
#define TXT_ESTS_WAKE_ERROR (1u << 6)           /* a sleep state was entered with secrets */
/* E2STS */
#define TXT_E2STS_SLP_ENTRY_ERROR (1u << 0)     /* ... and the entry it was */
#define TXT_E2STS_SECRETS (1u << 1)
/* VER.FSBIF / VER.QPIIF: 1 = production fused (must equal !ACM flags.debug_signed) */
#define TXT_VER_PROD_FUSED (1u << 31)

/* DIDVID: u16 vendor, u16 device, u16 revision, u16 reserved */
#define TXT_DIDVID(vendor, device, rev) \
    ((uint64_t)(uint16_t)(vendor) | (uint64_t)(uint16_t)(device) << 16 | \
     (uint64_t)(uint16_t)(rev) << 32)
#define TXT_DIDVID_VENDOR(v) ((uint16_t)(v))
#define TXT_DIDVID_DEVICE(v) ((uint16_t)((v) >> 16))
#define TXT_DIDVID_REVISION(v) ((uint16_t)((v) >> 32))

/* DPR: bit 0 lock, bits 11:4 size in MiB, bits 31:20 top (1 MiB units: top address >> 20) */
#define TXT_DPR_LOCK (1u << 0)
#define TXT_DPR_SIZE_MB(v) ((uint32_t)(((v) >> 4) & 0xffu))
#define TXT_DPR_TOP(v) ((uint32_t)(v) & 0xfff00000u)
#define TXT_DPR(top, size_mb, lock) \
    ((uint64_t)(((uint32_t)(top) & 0xfff00000u) | ((uint32_t)(size_mb) & 0xffu) << 4 | \
                ((lock) ? TXT_DPR_LOCK : 0u)))

/* The MLE join structure MLE.JOIN points to (GETSEC[WAKEUP]; cs = seg_sel, ds/es/ss +8). */
struct txt_mle_join {
    uint32_t gdt_limit;
    uint32_t gdt_base;
    uint32_t seg_sel;
    uint32_t entry_point;            /* physical */
} __attribute__((packed));
_Static_assert(sizeof(struct txt_mle_join) == 16, "mle_join_t");

/* ---- ERRORCODE (txt/config_regs.h txt_errorcode_t, txt/errorcode.h) ---- */

#define TXT_ERRORCODE_VALID (1u << 31)
#define TXT_ERRORCODE_EXTERNAL (1u << 30)  /* 0: from the processor, 1: from software (ACM) */
#define TXT_ERRORCODE_TYPE_MASK 0x3fffffffu

/* processor errors (external = 0): the type field */
#define TXT_ERR_PROC_LEGACY_SHUTDOWN 0u
#define TXT_ERR_PROC_INVALID_ACM_MEM_TYPE 5u
#define TXT_ERR_PROC_UNSUPPORTED_ACM 6u
#define TXT_ERR_PROC_AUTH_FAIL 7u
#define TXT_ERR_PROC_INVALID_ACM_FORMAT 8u
#define TXT_ERR_PROC_UNEXPECTED_HITM 9u
#define TXT_ERR_PROC_INVALID_EVENT 10u
#define TXT_ERR_PROC_INVALID_JOIN_FORMAT 11u
#define TXT_ERR_PROC_UNRECOVERABLE_MCE 12u
#define TXT_ERR_PROC_VMX_ABORT 13u
#define TXT_ERR_PROC_ACM_CORRUPT 14u
#define TXT_ERR_PROC_INVALID_VIDB_RATIO 15u

/* software errors (external = 1, txt_errorcode_sw_t): src is bit 15, 0 = an ACM; for an ACM
 * (acmod_error_t): acm_type 3:0 (0 BIOS, 1 SINIT), progress 9:4, error 14:10, src 15,
 * sub-error 29:16 (progress 0x0d: tpm_err 24:16; progress 0x10: lcp_minor 21:16,
 * lcp_index 24:22) */
#define TXT_ERR_SRC_OTHER (1u << 15)
#define TXT_ACM_ERR_TYPE_BIOS 0u
#define TXT_ACM_ERR_TYPE_SINIT 1u
#define TXT_ACM_ERROR(acm_type, progress, error, sub)                                        \
    (TXT_ERRORCODE_VALID | TXT_ERRORCODE_EXTERNAL | ((uint32_t)(acm_type) & 0xfu) |           \
     ((uint32_t)(progress) & 0x3fu) << 4 | ((uint32_t)(error) & 0x1fu) << 10 |               \
     ((uint32_t)(sub) & 0x3fffu) << 16)
#define TXT_ACM_ERR_TPM_SUB(tpm_err) ((uint32_t)(tpm_err) & 0x1ffu)
#define TXT_ACM_ERR_LCP_SUB(minor, index) \
    (((uint32_t)(minor) & 0x3fu) | ((uint32_t)(index) & 0x7u) << 6)
#define TXT_ACM_ERR_ACM_TYPE(e) ((e) & 0xfu)
#define TXT_ACM_ERR_PROGRESS(e) (((e) >> 4) & 0x3fu)
#define TXT_ACM_ERR_ERROR(e) (((e) >> 10) & 0x1fu)
#define TXT_ACM_ERR_SUB(e) (((e) >> 16) & 0x3fffu)

/* vtboot's SINIT progress codes [choice, docs/txt-platform.md 3.4] */
#define SINIT_PROGRESS_ENTRY 0x01u
#define SINIT_PROGRESS_PLATFORM 0x02u
#define SINIT_PROGRESS_HEAP 0x03u
#define SINIT_PROGRESS_MTRRS 0x04u
#define SINIT_PROGRESS_MLE 0x05u
#define SINIT_PROGRESS_PMR 0x06u
#define SINIT_PROGRESS_EVENT_LOG 0x07u
#define SINIT_PROGRESS_SINIT_MLE_DATA 0x08u
#define SINIT_PROGRESS_TPM 0x0du
#define SINIT_PROGRESS_LCP 0x10u

_Static_assert(TXT_ACM_ERROR(TXT_ACM_ERR_TYPE_SINIT, SINIT_PROGRESS_LCP, 1,
                             TXT_ACM_ERR_LCP_SUB(2, 0)) == 0xC0020501u,
               "docs 3.4's example: MLE not allowed by the PO policy");

/* progress 0x06 (VT-d/PMR): the error numbers and sub-errors [choice, docs 3.4 step 9] */
#define SINIT_PMR_ERR_DMAR 1u            /* the DMAR's copy: header, length, checksum, a
                                          * structure */
#define SINIT_PMR_ERR_UNIT 2u            /* a unit: no PLMR/PHMR, or PRS never set; sub: unit */
#define SINIT_PMR_ERR_DMAR_SIZE 3u       /* the DMAR is larger than the SINIT's copy (4 KiB) */
#define SINIT_PMR_ERR_NO_DMAR 4u         /* no DMAR table */
#define SINIT_PMR_ERR_DRHDS 5u           /* the DMAR's DRHDs are not the chipset's units */
#define SINIT_PMR_DRHD_MISSING 1u        /*   sub: a unit no DRHD names */
#define SINIT_PMR_DRHD_UNKNOWN 2u        /*   sub: a DRHD naming no unit of the chipset */
#define SINIT_PMR_DRHD_TWICE 3u          /*   sub: a unit named twice */
#define SINIT_PMR_DRHD_DIFFERS 4u        /*   sub: a unit's segment or flags not the chipset's */
#define SINIT_PMR_ERR_READBACK 6u        /* a PMR register did not hold its write; sub: unit *
                                          * 4 + register (PLMBASE, PLMLIMIT, PHMBASE, PHMLIMIT) */
#define SINIT_PMR_ERR_CHIPSET 7u         /* no VT-d units known for the DIDVID */

_Static_assert(TXT_ACM_ERROR(TXT_ACM_ERR_TYPE_SINIT, SINIT_PROGRESS_PMR, SINIT_PMR_ERR_DRHDS,
                             SINIT_PMR_DRHD_UNKNOWN) == 0xC0021461u,
               "docs 3.4 step 9: a DRHD at a window that is no unit of the chipset");

/* ---- MLE/SINIT capabilities (tboot include/mle.h txt_caps_t; also abi/mle.h) ---- */

#define TXT_CAP_RLP_WAKE_GETSEC (1u << 0)
#define TXT_CAP_RLP_WAKE_MONITOR (1u << 1)
#define TXT_CAP_ECX_PGTBL (1u << 2)
#define TXT_CAP_STM (1u << 3)
#define TXT_CAP_PCR_MAP_NO_LEGACY (1u << 4)
#define TXT_CAP_PCR_MAP_DA (1u << 5)
#define TXT_CAP_PLATFORM_TYPE_SHIFT 6
#define TXT_CAP_PLATFORM_TYPE_MASK (3u << 6)
#define TXT_CAP_MAX_PHY_ADDR (1u << 8)
#define TXT_CAP_TCG_EVENT_LOG_FORMAT (1u << 9)
#define TXT_CAP_CBNT_SUPPORTED (1u << 10)
#define TXT_PLATFORM_TYPE_CLIENT 1u
#define TXT_PLATFORM_TYPE_SERVER 2u
#define TXT_CAP_PLATFORM_TYPE(caps) (((caps) & TXT_CAP_PLATFORM_TYPE_MASK) >> 6)

/* ---- the TXT heap (tboot txt/heap.h) ----
 * [u64 BiosDataSize][BiosData][u64 OsMleDataSize][OsMleData][u64 OsSinitDataSize][OsSinitData]
 * [u64 SinitMleDataSize][SinitMleData]: each size counts its own 8 bytes. */

#define TXT_HEAP_NR_REGIONS 4u
#define TXT_HEAP_SIZE_FIELD 8u

/* extended data elements: {u32 type, u32 size incl. this header, data} ..., END */
struct txt_heap_ext_elt {
    uint32_t type;
    uint32_t size;
} __attribute__((packed));
_Static_assert(sizeof(struct txt_heap_ext_elt) == 8, "heap_ext_data_element_t");

#define HEAP_EXTDATA_TYPE_END 0u                      /* size 8 */
#define HEAP_EXTDATA_TYPE_BIOS_SPEC_VER 1u            /* u16 major, minor, rev: size 14 */
#define HEAP_EXTDATA_TYPE_ACM 2u                      /* u32 num_acms, u64 addrs[] */
#define HEAP_EXTDATA_TYPE_STM 3u                      /* not defined by tboot */
#define HEAP_EXTDATA_TYPE_CUSTOM 4u                   /* uuid, data[]: size >= 24 */
#define HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR 5u        /* TPM 1.2: u64 container address */
#define HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR_2 7u      /* TPM 2.0 legacy per-bank logs */
#define HEAP_EXTDATA_TYPE_TPM_EVENT_LOG_PTR_2_1 8u    /* TPM 2.0 TCG (crypto-agile) log */

struct txt_heap_bios_spec_ver_elt {
    uint16_t spec_ver_major;
    uint16_t spec_ver_minor;
    uint16_t spec_ver_rev;
} __attribute__((packed));
_Static_assert(sizeof(struct txt_heap_bios_spec_ver_elt) == 6, "heap_bios_spec_ver_elt_t");

struct txt_heap_event_log_descr {
    uint16_t alg;
    uint16_t reserved;
    uint64_t phys_addr;
    uint32_t size;
    uint32_t pcr_events_offset;
    uint32_t next_event_offset;
} __attribute__((packed));
_Static_assert(sizeof(struct txt_heap_event_log_descr) == 24, "heap_event_log_descr_t");

/* type 8's data (tboot heap_event_log_ptr_elt2_1_t: natural layout, no padding) */
struct txt_heap_event_log_ptr_elt2_1 {
    uint64_t phys_addr;
    uint32_t allocated_event_container_size;
    uint32_t first_record_offset;
    uint32_t next_record_offset;
} __attribute__((packed));
_Static_assert(sizeof(struct txt_heap_event_log_ptr_elt2_1) == 20, "heap_event_log_ptr_elt2_1_t");
#define TXT_EVTLOG_ELT2_1_SIZE (8u + 20u)       /* 28: what tboot writes */

/* BiosData (written by the BIOS: the emulated chipset here) */
struct txt_bios_data {
    uint32_t version;                /* 2-6; tboot refuses < 2 */
    uint32_t bios_sinit_size;
    uint64_t lcp_pd_base;
    uint64_t lcp_pd_size;
    uint32_t num_logical_procs;
    /* version >= 3 */
    uint64_t flags;                  /* low dword SINIT flags; high: bit 0 ppi, bits 2:1 type */
    /* version >= 4: extended elements, END-terminated */
} __attribute__((packed));
_Static_assert(sizeof(struct txt_bios_data) == 36, "bios_data_t");
_Static_assert(offsetof(struct txt_bios_data, bios_sinit_size) == 4, "bios_sinit_size");
_Static_assert(offsetof(struct txt_bios_data, lcp_pd_base) == 8, "lcp_pd_base");
_Static_assert(offsetof(struct txt_bios_data, lcp_pd_size) == 16, "lcp_pd_size");
_Static_assert(offsetof(struct txt_bios_data, num_logical_procs) == 24, "num_logical_procs");
_Static_assert(offsetof(struct txt_bios_data, flags) == 28, "flags");
#define TXT_BIOS_DATA_MIN_VER 2u
#define TXT_BIOS_DATA_MAX_VER 6u          /* newer only warns in tboot */
#define TXT_BIOS_DATA_MAX_PROCS 1024u     /* tboot's NR_CPUS */
#define TXT_BIOS_FLAGS_PPI_SUPPORTED (1ull << 32)
#define TXT_BIOS_FLAGS_PLATFORM_TYPE_SHIFT 33
#define TXT_BIOS_FLAGS_PLATFORM_TYPE(f) ((uint32_t)(((f) >> 33) & 3u))

/* OsMleData: tboot's own (version 3); the size field must be exactly TXT_OS_MLE_DATA_SIZE.
 * mtrr_state_t is tboot's natural-layout struct: u64 mtrr_def_type at +4 within it is
 * 4-byte aligned on i386, so the whole is 268 bytes. */
#define TXT_MTRR_MAX_VAR 16u
struct txt_mtrr_state {
    uint64_t mtrr_def_type;
    uint32_t num_var_mtrrs;
    uint64_t mtrr_physbases[TXT_MTRR_MAX_VAR];
    uint64_t mtrr_physmasks[TXT_MTRR_MAX_VAR];
} __attribute__((packed));
_Static_assert(sizeof(struct txt_mtrr_state) == 268, "mtrr_state_t (i386)");

#define TXT_OS_MLE_LCP_PO_DATA_SIZE 0x10000u
#define TXT_OS_MLE_EVENT_LOG_SIZE 0x5000u
struct txt_os_mle_data {
    uint32_t version;                /* 3 */
    struct txt_mtrr_state saved_mtrr_state;
    uint32_t lctx_addr;              /* tboot's void * (32-bit) */
    uint32_t saved_misc_enable_msr;
    uint8_t lcp_po_data[TXT_OS_MLE_LCP_PO_DATA_SIZE];
    uint8_t event_log_buffer[TXT_OS_MLE_EVENT_LOG_SIZE];
} __attribute__((packed));
_Static_assert(offsetof(struct txt_os_mle_data, lctx_addr) == 272, "lctx_addr");
_Static_assert(offsetof(struct txt_os_mle_data, lcp_po_data) == 280, "lcp_po_data");
_Static_assert(offsetof(struct txt_os_mle_data, event_log_buffer) == 0x10118, "event_log_buffer");
_Static_assert(sizeof(struct txt_os_mle_data) == 0x15118, "os_mle_data_t");
#define TXT_OS_MLE_DATA_VER 3u
#define TXT_OS_MLE_DATA_SIZE (8u + 0x15118u)    /* 0x15120, the size field tboot writes */

/* OsSinitData (written by tboot for SINIT) */
struct txt_os_sinit_data {
    uint32_t version;                /* 4-7 */
    uint32_t flags;                  /* TPM 2.0: bit 0 PCR extend policy */
    uint64_t mle_ptab;
    uint64_t mle_size;
    uint64_t mle_hdr_base;           /* from the MLE's linear 0 */
    uint64_t vtd_pmr_lo_base;
    uint64_t vtd_pmr_lo_size;
    uint64_t vtd_pmr_hi_base;
    uint64_t vtd_pmr_hi_size;
    uint64_t lcp_po_base;
    uint64_t lcp_po_size;
    uint32_t capabilities;           /* TXT_CAP_* */
    /* version >= 5 */
    uint64_t efi_rsdt_ptr;
    /* version >= 6: extended elements */
} __attribute__((packed));
_Static_assert(sizeof(struct txt_os_sinit_data) == 92, "os_sinit_data_t");
_Static_assert(offsetof(struct txt_os_sinit_data, mle_ptab) == 8, "mle_ptab");
_Static_assert(offsetof(struct txt_os_sinit_data, mle_size) == 16, "mle_size");
_Static_assert(offsetof(struct txt_os_sinit_data, mle_hdr_base) == 24, "mle_hdr_base");
_Static_assert(offsetof(struct txt_os_sinit_data, vtd_pmr_lo_base) == 32, "vtd_pmr_lo_base");
_Static_assert(offsetof(struct txt_os_sinit_data, vtd_pmr_hi_base) == 48, "vtd_pmr_hi_base");
_Static_assert(offsetof(struct txt_os_sinit_data, lcp_po_base) == 64, "lcp_po_base");
_Static_assert(offsetof(struct txt_os_sinit_data, capabilities) == 80, "capabilities");
_Static_assert(offsetof(struct txt_os_sinit_data, efi_rsdt_ptr) == 84, "efi_rsdt_ptr");
#define TXT_OS_SINIT_DATA_MIN_VER 4u
#define TXT_OS_SINIT_DATA_MAX_VER 7u
#define TXT_OS_SINIT_FLAGS_EXTPOL (1u << 0)
/* the size field tboot's calc_os_sinit_data_size gives (size field included) */
#define TXT_OS_SINIT_SIZE_V4 (8u + 84u)                     /* 92 */
#define TXT_OS_SINIT_SIZE_V5 (8u + 92u)                     /* 100 */
#define TXT_OS_SINIT_SIZE_V6_TPM12 (8u + 92u + 16u + 8u)    /* 124 */
#define TXT_OS_SINIT_SIZE_V6_TCG (8u + 92u + 16u + 20u)     /* 136: TPM 2.0, TCG log */
#define TXT_OS_SINIT_SIZE_V6_LEGACY(n) (8u + 92u + 16u + 4u + 24u * (n))  /* per-bank logs */
_Static_assert(TXT_OS_SINIT_SIZE_V6_TCG == 0x88, "tboot writes 0x88");

/* SinitMleData (written by SINIT) */
struct txt_sinit_mdr {
    uint64_t base;
    uint64_t length;
    uint8_t mem_type;
    uint8_t reserved[7];
} __attribute__((packed));
_Static_assert(sizeof(struct txt_sinit_mdr) == 24, "sinit_mdr_t");
#define TXT_MDR_GOOD 0u
#define TXT_MDR_SMM_OVERLAY 1u
#define TXT_MDR_SMM_NONOVERLAY 2u
#define TXT_MDR_PCIE_CONFIG 3u
#define TXT_MDR_PROTECTED 4u

struct txt_sinit_mle_data {
    uint32_t version;                /* 6-9 (vtboot's SINIT: 9) */
    uint8_t bios_acm_id[20];
    uint32_t edx_senter_flags;
    uint64_t mseg_valid;
    uint8_t sinit_hash[20];          /* the four hashes: TPM 1.2 only */
    uint8_t mle_hash[20];
    uint8_t stm_hash[20];
    uint8_t lcp_policy_hash[20];
    uint32_t lcp_policy_control;
    uint32_t rlp_wakeup_addr;
    uint32_t reserved;
    uint32_t num_mdrs;
    uint32_t mdrs_off;               /* from the SinitMleDataSize field */
    uint32_t num_vtd_dmars;
    uint32_t vtd_dmars_off;          /* from the SinitMleDataSize field */
    /* version >= 8 */
    uint32_t proc_scrtm_status;
    /* version >= 9: extended elements */
} __attribute__((packed));
_Static_assert(sizeof(struct txt_sinit_mle_data) == 148, "sinit_mle_data_t");
_Static_assert(offsetof(struct txt_sinit_mle_data, edx_senter_flags) == 24, "edx_senter_flags");
_Static_assert(offsetof(struct txt_sinit_mle_data, mseg_valid) == 28, "mseg_valid");
_Static_assert(offsetof(struct txt_sinit_mle_data, sinit_hash) == 36, "sinit_hash");
_Static_assert(offsetof(struct txt_sinit_mle_data, lcp_policy_control) == 116, "lcp_policy_control");
_Static_assert(offsetof(struct txt_sinit_mle_data, rlp_wakeup_addr) == 120, "rlp_wakeup_addr");
_Static_assert(offsetof(struct txt_sinit_mle_data, num_mdrs) == 128, "num_mdrs");
_Static_assert(offsetof(struct txt_sinit_mle_data, mdrs_off) == 132, "mdrs_off");
_Static_assert(offsetof(struct txt_sinit_mle_data, vtd_dmars_off) == 140, "vtd_dmars_off");
_Static_assert(offsetof(struct txt_sinit_mle_data, proc_scrtm_status) == 144, "proc_scrtm_status");
#define TXT_SINIT_MLE_DATA_MIN_VER 6u
#define TXT_SINIT_MLE_DATA_VER 9u

/* ---- the authenticated code module (tboot txt/acmod.h acm_hdr_t, header version 0.0) ---- */

struct txt_acm_hdr {
    uint16_t module_type;            /* 2: chipset */
    uint16_t module_subtype;
    uint32_t header_len;             /* dwords: 0xA1 */
    uint32_t header_ver;             /* 0: this 2048-bit layout */
    uint16_t chipset_id;
    uint16_t flags;                  /* bit 14 pre-production, bit 15 debug signed */
    uint32_t module_vendor;          /* 0x8086 */
    uint32_t date;                   /* BCD 0xYYYYMMDD */
    uint32_t size;                   /* dwords, the whole module */
    uint16_t txt_svn;
    uint16_t se_svn;
    uint32_t code_control;
    uint32_t error_entry_point;
    uint32_t gdt_limit;
    uint32_t gdt_base;               /* offset in the module */
    uint32_t seg_sel;
    uint32_t entry_point;            /* offset in the module */
    uint8_t reserved2[64];
    uint32_t key_size;               /* dwords: 64 */
    uint32_t scratch_size;           /* dwords: 0x8F */
    uint8_t rsa2048_pubkey[256];     /* modulus, little-endian */
    uint32_t pub_exp;
    uint8_t rsa2048_sig[256];        /* signature, little-endian */
    uint32_t scratch[143];
} __attribute__((packed));
_Static_assert(sizeof(struct txt_acm_hdr) == 0x4C0, "acm_hdr_t");
_Static_assert(offsetof(struct txt_acm_hdr, header_len) == 4, "header_len");
_Static_assert(offsetof(struct txt_acm_hdr, header_ver) == 8, "header_ver");
_Static_assert(offsetof(struct txt_acm_hdr, chipset_id) == 12, "chipset_id");
_Static_assert(offsetof(struct txt_acm_hdr, flags) == 14, "flags");
_Static_assert(offsetof(struct txt_acm_hdr, module_vendor) == 16, "module_vendor");
_Static_assert(offsetof(struct txt_acm_hdr, date) == 20, "date");
_Static_assert(offsetof(struct txt_acm_hdr, size) == 24, "size");
_Static_assert(offsetof(struct txt_acm_hdr, txt_svn) == 28, "txt_svn");
_Static_assert(offsetof(struct txt_acm_hdr, code_control) == 32, "code_control");
_Static_assert(offsetof(struct txt_acm_hdr, error_entry_point) == 36, "error_entry_point");
_Static_assert(offsetof(struct txt_acm_hdr, gdt_limit) == 40, "gdt_limit");
_Static_assert(offsetof(struct txt_acm_hdr, gdt_base) == 44, "gdt_base");
_Static_assert(offsetof(struct txt_acm_hdr, seg_sel) == 48, "seg_sel");
_Static_assert(offsetof(struct txt_acm_hdr, entry_point) == 52, "entry_point");
_Static_assert(offsetof(struct txt_acm_hdr, key_size) == 120, "key_size");
_Static_assert(offsetof(struct txt_acm_hdr, scratch_size) == 124, "scratch_size");
_Static_assert(offsetof(struct txt_acm_hdr, rsa2048_pubkey) == 0x80, "rsa2048_pubkey");
_Static_assert(offsetof(struct txt_acm_hdr, pub_exp) == 0x180, "pub_exp");
_Static_assert(offsetof(struct txt_acm_hdr, rsa2048_sig) == 0x184, "rsa2048_sig");
_Static_assert(offsetof(struct txt_acm_hdr, scratch) == 0x284, "scratch");

#define ACM_TYPE_CHIPSET 2u
#define ACM_SUBTYPE_RESET 1u
#define ACM_VENDOR_INTEL 0x8086u
#define ACM_FLAG_PRE_PRODUCTION (1u << 14)
#define ACM_FLAG_DEBUG_SIGNED (1u << 15)
#define ACM_HEADER_LEN_V0 0xA1u          /* dwords */
#define ACM_KEY_SIZE_V0 64u              /* dwords */
#define ACM_SCRATCH_SIZE_V0 0x8Fu        /* dwords */
#define ACM_PUB_EXP 65537u
/* tboot accepts a file larger than size*4 by this much padding (is_acmod) */
#define ACM_SIZE_MIN_PADDING 0x10000u
#define ACM_SIZE_MAX_PADDING 0x40000u
_Static_assert((ACM_HEADER_LEN_V0 + ACM_SCRATCH_SIZE_V0) * 4 == 0x4C0, "info table offset");

/* The signed bytes [choice, docs/txt-platform.md 3.3]: the module without rsa2048_sig and
 * scratch: [0, 0x184) and [0x4C0, size*4). RSASSA-PKCS1-v1_5 with SHA-256. */
#define ACM_SIGNED_1_END 0x184u
#define ACM_SIGNED_2_START 0x4C0u

/* uuid_t as tboot stores it: u32, u16, u16, u16, u8[6], each little-endian */
#define ACM_UUID_V3_BYTES \
    { 0xaa, 0x3a, 0xc0, 0x7f, 0xa7, 0x46, 0xdb, 0x18, \
      0x2e, 0xac, 0x69, 0x8f, 0x8d, 0x41, 0x7f, 0x5a }

struct txt_acm_info_table {
    uint8_t uuid[16];                /* ACM_UUID_V3 */
    uint8_t chipset_acm_type;        /* 1: SINIT */
    uint8_t version;                 /* >= 3; 4: processor list; 5: TPM info list */
    uint16_t length;                 /* bytes of this table */
    uint32_t chipset_id_list;        /* offset from the module's base */
    uint32_t os_sinit_data_ver;
    uint32_t min_mle_hdr_ver;
    uint32_t capabilities;           /* TXT_CAP_* */
    uint8_t acm_ver;
    uint8_t acm_revision[3];         /* tboot: reserved[3] */
    /* version >= 4 */
    uint32_t processor_id_list;
    /* version >= 5 */
    uint32_t tpm_info_list_off;
} __attribute__((packed));
/* 48 bytes (docs 3.2 and the surface reference say 52; tboot's packed struct is 48) */
_Static_assert(sizeof(struct txt_acm_info_table) == 48, "acm_info_table_t");
_Static_assert(offsetof(struct txt_acm_info_table, chipset_acm_type) == 16, "chipset_acm_type");
_Static_assert(offsetof(struct txt_acm_info_table, version) == 17, "version");
_Static_assert(offsetof(struct txt_acm_info_table, length) == 18, "length");
_Static_assert(offsetof(struct txt_acm_info_table, chipset_id_list) == 20, "chipset_id_list");
_Static_assert(offsetof(struct txt_acm_info_table, os_sinit_data_ver) == 24, "os_sinit_data_ver");
_Static_assert(offsetof(struct txt_acm_info_table, min_mle_hdr_ver) == 28, "min_mle_hdr_ver");
_Static_assert(offsetof(struct txt_acm_info_table, capabilities) == 32, "capabilities");
_Static_assert(offsetof(struct txt_acm_info_table, acm_ver) == 36, "acm_ver");
_Static_assert(offsetof(struct txt_acm_info_table, processor_id_list) == 40, "processor_id_list");
_Static_assert(offsetof(struct txt_acm_info_table, tpm_info_list_off) == 44, "tpm_info_list_off");

#define ACM_CHIPSET_TYPE_BIOS 0x00u
#define ACM_CHIPSET_TYPE_SINIT 0x01u
#define ACM_CHIPSET_TYPE_BIOS_REVOC 0x08u
#define ACM_CHIPSET_TYPE_SINIT_REVOC 0x09u
#define ACM_INFO_MIN_VER 3u
#define ACM_INFO_MAX_VER 7u              /* newer only warns in tboot */
#define ACM_MAX_MLE_HDR_VER 0x00020001u  /* tboot's MLE header: min_mle_hdr_ver must be <= */

/* chipset ID list: u32 count, then entries */
struct txt_acm_chipset_id {
    uint32_t flags;                  /* bit 0: revision_id is a mask */
    uint16_t vendor_id;
    uint16_t device_id;
    uint16_t revision_id;
    uint16_t reserved;
    uint32_t extended_id;
} __attribute__((packed));
_Static_assert(sizeof(struct txt_acm_chipset_id) == 16, "acm_chipset_id_t (the surface says 20)");
#define ACM_CHIPSET_FLAG_REVISION_MASK (1u << 0)

/* processor ID list: u32 count, then entries */
struct txt_acm_processor_id {
    uint32_t fms;
    uint32_t fms_mask;
    uint64_t platform_id;
    uint64_t platform_mask;
} __attribute__((packed));
_Static_assert(sizeof(struct txt_acm_processor_id) == 24, "acm_processor_id_t");

/* TPM info list: u32 capabilities, u16 count, u16 alg_id[count] */
struct txt_acm_tpm_info_list {
    uint32_t capabilities;
    uint16_t count;
} __attribute__((packed));
_Static_assert(sizeof(struct txt_acm_tpm_info_list) == 6, "tpm_info_list_t (packed part)");
#define ACM_LIST_COUNT_SIZE 4u           /* the u32 count in front of the chipset/processor lists */
/* capabilities: ext_policy bits 1:0, tpm_family bits 5:2, tpm_nv_index_set bit 6 */
#define ACM_TPM_EXT_POLICY_MASK 3u
#define ACM_TPM_EXT_POLICY_ALG_AGILE 1u  /* tboot's 0x01 */
#define ACM_TPM_EXT_POLICY_EMBEDDED 2u   /* tboot's "0x10": binary 10 */
#define ACM_TPM_FAMILY_SHIFT 2
#define ACM_TPM_FAMILY_MASK (0xfu << 2)
#define ACM_TPM_FAMILY_DTPM_12 1u        /* tboot's "0x0001", binary */
#define ACM_TPM_FAMILY_DTPM_20 2u        /* tboot's "0x0010", binary */
#define ACM_TPM_FAMILY_PTT_20 8u         /* tboot's "0x1000", binary */
#define ACM_TPM_NV_INDEX_SET (1u << 6)   /* tboot then uses the 0x01C1xxxx NV indices */
#define ACM_TPM_FAMILY(caps) (((caps) >> 2) & 0xfu)

#endif
