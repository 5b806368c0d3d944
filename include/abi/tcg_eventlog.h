/* SPDX-License-Identifier: MIT */
/*
 * The TCG crypto-agile event log (TCG PC Client Platform Firmware Profile 1.05, §10):
 * a TCG_PCR_EVENT header carrying the Spec ID event, then TCG_PCR_EVENT2 records. Event types
 * for a D-RTM log come from Intel TXT (0x400 + n) and tboot (0x501).
 */
#ifndef ABI_TCG_EVENTLOG_H
#define ABI_TCG_EVENTLOG_H

#include <stdint.h>
#include <stddef.h>

#define EV_NO_ACTION 0x00000003u
/* TXT event types (Intel's EVTYPE_*, base 0x400; surface 6.2 lists them from public parsers) */
#define EV_TXT_HASH_START 0x00000402u     /* PCR 17's first extend: H(ACM digest || EDX) */
#define EV_TXT_MLE_HASH 0x00000404u       /* TXT EVTYPE_MLE_HASH: what SENTER measured */
#define EV_TXT_CPU_SCRTM_STAT 0x0000040bu
#define EV_TXT_LCP_CONTROL_HASH 0x0000040cu
#define EV_TXT_OSSINITDATA_CAP_HASH 0x0000040fu
#define EV_TXT_SINIT_PUBKEY_HASH 0x00000410u
#define EV_TXT_LCP_HASH 0x00000411u
#define EV_TXT_CAP_VALUE 0x000004ffu      /* TXT EVTYPE_CAP_VALUE: a PCR capped at shutdown */
#define EV_TB_MEASUREMENT 0x00000501u     /* tboot EVTTYPE_TB_MEASUREMENT (0x400 + 0x101) */

#define TCG_SPEC_ID_SIGNATURE "Spec ID Event03"   /* 16 bytes with the NUL */
#define TCG_SPEC_ID_PLATFORM_CLIENT 0u
#define TCG_SPEC_ID_VERSION_MAJOR 2u
#define TCG_SPEC_ID_VERSION_MINOR 0u
#define TCG_SPEC_ID_ERRATA 2u
#define TCG_SPEC_ID_UINTN_SIZE_64 2u

/* TCG_PCR_EVENT: the SHA-1-format header record (the Spec ID event). */
struct tcg_pcr_event {
    uint32_t pcr_index;
    uint32_t event_type;
    uint8_t digest[20];
    uint32_t event_size;
} __attribute__((packed));

struct tcg_spec_id_header {
    char signature[16];
    uint32_t platform_class;
    uint8_t spec_version_minor;
    uint8_t spec_version_major;
    uint8_t spec_errata;
    uint8_t uintn_size;
    uint32_t number_of_algorithms;
    /* then {u16 algorithm_id; u16 digest_size}[number_of_algorithms], u8 vendor_info_size,
     * vendor_info[] */
} __attribute__((packed));

struct tcg_spec_id_alg {
    uint16_t algorithm_id;
    uint16_t digest_size;
} __attribute__((packed));

/* TCG_PCR_EVENT2: pcr_index, event_type, TPML_DIGEST_VALUES {u32 count; {u16 alg; digest}},
 * u32 event_size, event[]. Little-endian, unlike TPM commands. */
struct tcg_pcr_event2_head {
    uint32_t pcr_index;
    uint32_t event_type;
    uint32_t digest_count;
} __attribute__((packed));

_Static_assert(sizeof(struct tcg_pcr_event) == 32, "TCG_PCR_EVENT");
_Static_assert(sizeof(struct tcg_spec_id_header) == 28, "Spec ID header");

#endif
