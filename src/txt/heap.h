/* SPDX-License-Identifier: MIT */
/*
 * The TXT heap (include/abi/txt.h): the walk over its size-prefixed regions and the checks
 * of BiosData (tboot 1.10.5 txt/heap.c verify_bios_data) and OsSinitData (what vtboot's SINIT
 * accepts, docs/txt-platform.md 3.4 step 3), over a copy of the heap's bytes. Every length
 * read from the heap is bounded by the bytes given; the extended-element chains end or are
 * refused within their region.
 */
#ifndef TXT_HEAP_H
#define TXT_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/txt.h"

/* Region i's size field is at off[i]; its data at off[i] + 8, size[i] - 8 bytes. */
struct txt_heap_view {
    unsigned nr;
    uint64_t off[TXT_HEAP_NR_REGIONS];
    uint64_t size[TXT_HEAP_NR_REGIONS];
};
#define TXT_HEAP_BIOS_DATA 0u
#define TXT_HEAP_OS_MLE_DATA 1u
#define TXT_HEAP_OS_SINIT_DATA 2u
#define TXT_HEAP_SINIT_MLE_DATA 3u

/* The first `nr` regions (3 before SINIT has written SinitMleData, 4 after) of a heap of
 * heap_size bytes (HEAP.SIZE; `heap` holds that many): each size nonzero, at least its own
 * 8 bytes, and their sum within the heap (tboot's verify_txt_heap). 0, or -1 with the reason. */
int txt_heap_walk(const uint8_t *heap, uint64_t heap_size, unsigned nr, struct txt_heap_view *v,
                  char *err, unsigned errlen);

/* tboot's verify_ext_data_elts over `len` bytes: each element's size at least its header and
 * within what is left, the known types' sizes, END-terminated. */
int txt_ext_elts_check(const uint8_t *p, uint64_t len, char *err, unsigned errlen);

/* BiosData, `size` its size field (the data is size - 8 bytes at p): version >= 2, its fields
 * within the region, 1 <= num_logical_procs <= 1024 (== expected_procs unless that is 0),
 * version >= 4 with elements: a valid END-terminated chain. */
int txt_bios_data_check(const uint8_t *p, uint64_t size, uint32_t expected_procs,
                        struct txt_bios_data *out, char *err, unsigned errlen);

/* What OsSinitData is checked against. */
struct txt_os_sinit_expect {
    uint32_t acm_caps;               /* the ACM's info-table capabilities */
    uint32_t acm_os_sinit_ver;       /* its os_sinit_data_ver (the highest it reads) */
    uint32_t tpm_ext_policy;         /* its TPM info list's ext_policy (ACM_TPM_EXT_POLICY_*) */
    uint64_t heap_base, heap_size;   /* physical: lcp_po and the event log must be inside */
    uint64_t os_mle_base, os_mle_size;  /* physical: OsMleData's data (the log's container) */
    uint32_t evtlog_min_size;        /* bytes the SINIT writes into the log */
};

struct txt_os_sinit_info {
    struct txt_os_sinit_data d;      /* fields beyond the version read as 0 */
    bool has_evtlog;
    struct txt_heap_event_log_ptr_elt2_1 evtlog;
    uint32_t evtlog_off;             /* where it is, from OsSinitData's data (the SINIT
                                        writes its record offsets there) */
};

/* The size field tboot's calc_os_sinit_data_size gives for a TPM 2.0 TCG-format log. */
uint64_t txt_os_sinit_data_size(uint32_t version);

/* OsSinitData, `size` its size field: docs 3.4 step 3. 0, or -1 with the reason. */
int txt_os_sinit_data_check(const uint8_t *p, uint64_t size, const struct txt_os_sinit_expect *e,
                            struct txt_os_sinit_info *out, char *err, unsigned errlen);

/* SinitMleData, `size` its size field: version >= 6 (tboot), the fields of its version
 * inside, from version 9 an END-terminated element chain, num_mdrs >= 1 MDRs inside the
 * region (offsets from the size field, as tboot, Linux and Xen count them), none wrapping
 * past 2^64, and the DMAR copy ("DMAR", its length and a zero checksum) inside it too.
 * What tboot, Linux and Xen read after the launch. 0, or -1 with the reason. */
int txt_sinit_mle_data_check(const uint8_t *p, uint64_t size, struct txt_sinit_mle_data *out,
                             char *err, unsigned errlen);

/* What the SINIT knows before it reads the heap (docs 3.4 steps 2-3). */
struct txt_heap_expect {
    uint64_t heap_base;              /* HEAP.BASE; the heap's size is what the caller passes */
    uint32_t expected_procs;         /* MADT's enabled local APICs; 0: not checked */
    uint32_t acm_caps, acm_os_sinit_ver, tpm_ext_policy, evtlog_min_size;
};

struct txt_heap_launch {
    struct txt_heap_view v;          /* 3 regions: SinitMleData is the SINIT's to write */
    struct txt_bios_data bios;
    struct txt_os_sinit_info os_sinit;
};

/* The heap as the SINIT checks it before writing SinitMleData: the walk over three regions,
 * BiosData, OsMleData's size as tboot writes it (0x15120), OsSinitData against the ACM and
 * the heap's own coordinates. 0, or -1 with the reason. */
int txt_heap_check_launch(const uint8_t *heap, uint64_t heap_size,
                          const struct txt_heap_expect *e, struct txt_heap_launch *out,
                          char *err, unsigned errlen);

/* The D-RTM event log of a launched heap (HEAP.BASE heap_base, heap_size bytes at heap): the
 * walk over its first three regions, OsSinitData's TCG event log element (type 8, right after
 * its fixed fields, as tboot writes it) and the log [0, next_record_offset) inside the heap:
 * the SINIT's records, then the MLE's. *off is the log's offset in the heap, *len its used
 * bytes. 0, or -1 with the reason. */
int txt_heap_event_log(const uint8_t *heap, uint64_t heap_base, uint64_t heap_size,
                       uint64_t *off, uint32_t *len, char *err, unsigned errlen);

#endif
