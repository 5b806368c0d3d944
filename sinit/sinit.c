/* SPDX-License-Identifier: MIT */
/*
 * The SINIT's flow (docs/txt-platform.md 3.4): every step a call into src/ (the checks and
 * builders the host tests) or into a driver here; every failure an ERRORCODE and a TXT
 * reset, never a return into the caller and never the MLE.
 */
#include <stdarg.h>

#include "abi/lcp.h"
#include "abi/mle.h"
#include "abi/txt.h"
#include "acpi/acpi.h"
#include "acpi/tables.h"
#include "arch/x86/io.h"
#include "crypto/hash.h"
#include "crypto/sha256.h"
#include "drivers/timer.h"
#include "drivers/tis.h"
#include "drivers/uart.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/phys.h"
#include "lib/string.h"
#include "log/printk.h"
#include "measure.h"
#include "sinit.h"
#include "tpm/eventlog.h"
#include "tpm/tpm2.h"
#include "txt/acm.h"
#include "txt/drtm.h"
#include "txt/heap.h"
#include "txt/lcp.h"
#include "txt/mle_walk.h"
#include "txt/mtrr.h"
#include "txt/sinit_mle.h"
#include "txt/smram.h"
#include "txt/vtd_units.h"

#define COM1 0x3f8
/* the error field of a failure to find an ACPI table, under each step's progress code (the
 * other error numbers are listed in docs/txt-platform.md 3.4) */
#define SINIT_ERR_NO_TABLE 4u
_Static_assert(SINIT_ERR_NO_TABLE == SINIT_PMR_ERR_NO_DMAR, "progress 0x06 error 4: no DMAR");
#define LCP_NV_MAX 1024u
#define E820_MAX 4096u
/* room for the records measure_drtm writes: the Spec ID event and 7 events of at most 4 banks
 * (280 bytes each without data) and their data (the largest a PO policy, 102 bytes): about
 * 2.3 KiB */
#define EVTLOG_MIN_SIZE 4096u

static uint8_t acm_digest[SHA256_DIGEST_SIZE];
static struct tis tis;
static struct tpm2 tpm;
static bool tpm_up;                      /* locality 3 held: a failure caps PCRs 17 and 18 */

/* ---- failures ---- */

static void cap_pcrs(void)
{
    struct tpm_banks banks;
    if (!tpm_up || tpm2_get_pcr_banks(&tpm, &banks))
        return;
    struct tpm_digest_list d = { .count = banks.count };
    for (unsigned b = 0; b < banks.count; b++) {
        d.d[b].alg = banks.alg[b];
        memset(d.d[b].bytes, 0xff, sizeof(d.d[b].bytes));
    }
    tpm2_pcr_extend(&tpm, 17, &d);
    tpm2_pcr_extend(&tpm, 18, &d);
}

__attribute__((noreturn, format(printf, 4, 5)))
static void fail(unsigned progress, unsigned error, unsigned sub, const char *fmt, ...)
{
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    fmt_vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    uint32_t code = TXT_ACM_ERROR(TXT_ACM_ERR_TYPE_SINIT, progress, error, sub);
    pr_err("%s; ERRORCODE 0x%08x, TXT reset\n", msg, code);
    cap_pcrs();
    txt_error_reset(code);
}

void sinit_exception(uint32_t vector, uint32_t w1, uint32_t w2)
{
    fail(SINIT_PROGRESS_ENTRY, 1, vector, "exception %u (0x%x, 0x%x)", vector, w1, w2);
}

void sinit_bad_relocation(void)
{
    /* not relocated: no log (its tables hold pointers), only the code */
    txt_error_reset(TXT_ACM_ERROR(TXT_ACM_ERR_TYPE_SINIT, SINIT_PROGRESS_ENTRY, 2, 0));
}

/* The module's digest as the CPU computed it for SENTER (the signed ranges of the file). Our
 * .bss and stack are part of the file (zeros) but no longer zero in ACRAM by the time this
 * runs (acm_digest itself lives there): from sinit_bss_start on, the file's zeros are hashed. */
void sinit_acm_digest(uint32_t acbase)
{
    static const uint8_t zeros[64];
    const uint8_t *m = (const uint8_t *)(uintptr_t)acbase;
    uint32_t size = load_le32(m + offsetof(struct txt_acm_hdr, size)) * 4u;
    uint32_t bss = (uint32_t)((uintptr_t)sinit_bss_start - acbase);
    struct acm_range r[ACM_NR_SIGNED_RANGES];
    struct sha256_ctx c;

    acm_signed_ranges(size, r);
    sha256_init(&c);
    for (unsigned i = 0; i < ACM_NR_SIGNED_RANGES; i++) {
        uint32_t end = r[i].off + r[i].len, file_end = end < bss ? end : bss;
        if (r[i].off < file_end)
            sha256_update(&c, m + r[i].off, file_end - r[i].off);
        for (uint32_t z = r[i].off > bss ? r[i].off : bss; z < end; z += sizeof(zeros))
            sha256_update(&c, zeros, end - z < sizeof(zeros) ? end - z : sizeof(zeros));
    }
    sha256_final(&c, acm_digest);
}

static void com1_write(const char *s, size_t len)
{
    uart_write(COM1, s, len);
}

/* ---- the steps ---- */

static const uint8_t *table(uint64_t rsdp, const char *sig, uint32_t *len, unsigned progress)
{
    char err[128];
    uint64_t addr;
    if (acpi_find_table(rsdp, sig, &addr, len, err, sizeof(err)))
        fail(progress, SINIT_ERR_NO_TABLE, 0, "%s", err);
    return phys_map(addr, *len);
}

struct mle_hash {
    unsigned n;
    struct hash_ctx ctx[TPM_MAX_BANKS];
};

static int hash_page(void *p, uint64_t phys, uint32_t len)
{
    struct mle_hash *h = p;
    const void *page = phys_map(phys, len);
    if (!page)
        return -1;
    hash_update_multi(h->ctx, h->n, page, len);
    return 0;
}

/* Only GETSEC[SENTER] resets PCR 17 (locality 4) and extends it with our digest and its EDX;
 * entered any other way (ENTERACCS runs a module the same), PCR 17 holds something else and
 * the SINIT does nothing for its caller. */
static void entered_by_senter(const struct tpm_banks *banks, uint32_t senter_edx)
{
    struct tpm_digest_list pcr17;
    uint8_t want[HASH_MAX_DIGEST_SIZE];
    if (tpm2_pcr_read(&tpm, 17, banks, &pcr17))
        fail(SINIT_PROGRESS_TPM, 6, 0, "%s", tpm.err);
    for (unsigned b = 0; b < banks->count; b++)
        if (txt_drtm_senter_pcr17(acm_digest, senter_edx, banks->alg[b], want) ||
            memcmp(want, pcr17.d[b].bytes, tpm_hash_size(banks->alg[b])))
            fail(SINIT_PROGRESS_ENTRY, 5, b, "PCR 17 (bank 0x%04x) is not what GETSEC[SENTER] "
                 "leaves for us: not entered by SENTER", banks->alg[b]);
}

/* PO, else PS: the policy's verdict on the MLE, its control and bytes (NULL: no policy) */
static void launch_policy(const struct txt_os_sinit_data *os, const struct tpm_digest_list *mle,
                          uint8_t acm_ver, uint32_t *control, const uint8_t **bytes,
                          uint32_t *len)
{
    static uint8_t nv[LCP_NV_MAX];
    static const uint32_t index[] = { LCP_PO_NV_INDEX, LCP_PS_NV_INDEX };
    char err[128];

    *control = 0;
    *bytes = NULL;
    *len = 0;
    for (unsigned i = 0; i < sizeof(index) / sizeof(index[0]); i++) {
        uint32_t attr;
        uint16_t size;
        int rc = tpm2_nv_read_public(&tpm, index[i], &attr, &size);
        if (rc > 0 && ((unsigned)rc & ~0x700u) == TPM2_RC_HANDLE)
            continue;                    /* no such index */
        if (rc)
            fail(SINIT_PROGRESS_TPM, 1, TXT_ACM_ERR_TPM_SUB(rc), "%s", tpm.err);
        if (size > sizeof(nv))
            fail(SINIT_PROGRESS_LCP, 1, TXT_ACM_ERR_LCP_SUB(LCP_BAD_POLICY, i),
                 "LCP index 0x%08x holds %u bytes", index[i], size);
        if (tpm2_nv_read(&tpm, index[i], nv, size))
            fail(SINIT_PROGRESS_TPM, 2, 0, "%s", tpm.err);
        struct lcp_policy p;
        enum lcp_result r = lcp_policy_parse(nv, size, &p, err, sizeof(err));
        if (r == LCP_OK) {
            const uint8_t *data = os->lcp_po_size ? phys_map(os->lcp_po_base, os->lcp_po_size)
                                                  : NULL;
            struct lcp_digest d[TPM_MAX_BANKS];
            for (unsigned b = 0; b < mle->count; b++)
                d[b] = (struct lcp_digest){ mle->d[b].alg, mle->d[b].bytes };
            r = lcp_evaluate(&p, data, data ? os->lcp_po_size : 0, d, mle->count, acm_ver, err,
                             sizeof(err));
        }
        if (r != LCP_OK)
            fail(SINIT_PROGRESS_LCP, 1, TXT_ACM_ERR_LCP_SUB(r, i), "LCP index 0x%08x: %s",
                 index[i], err);
        pr_info("launch control policy 0x%08x allows the MLE\n", index[i]);
        *control = p.policy_control;
        *bytes = nv;
        *len = size;
        return;
    }
    pr_info("no launch control policy in TPM NV\n");
}

void sinit_main(uint32_t acbase, uint32_t senter_edx)
{
    static struct acm_info ai;
    static struct txt_heap_launch hl;
    static struct txt_sinit_mle_in smi;
    static struct txt_drtm_events events;
    static struct event_log log;
    static uint8_t e820[E820_MAX];
    char err[160];

    cpu_load_idt();
    uart_init(COM1, 115200, 1843200, 0x03);
    printk_set_console(com1_write);
    printk_set_prefix("sinit: ");
    timer_init();

    /* 1. ourselves, as the CPU authenticated us */
    const uint8_t *acm = (const uint8_t *)(uintptr_t)acbase;
    uint32_t acm_size = load_le32(acm + offsetof(struct txt_acm_hdr, size)) * 4u;
    if (acm_parse(acm, acm_size, &ai, err, sizeof(err)))
        fail(SINIT_PROGRESS_ENTRY, 3, 0, "own header: %s", err);
    pr_info("entered at 0x%x, SENTER EDX 0x%x\n", acbase, senter_edx);
    /* the SINIT runs only where the chipset says it lives (GETSEC[ENTERACCS] takes any
     * ACBASE) */
    uint64_t sinit_base = txt_priv_read(TXTCR_SINIT_BASE);
    if (acbase != sinit_base)
        fail(SINIT_PROGRESS_ENTRY, 4, 0, "entered at 0x%x, not at TXT.SINIT.BASE 0x%llx", acbase,
             (unsigned long long)sinit_base);

    /* the TPM at locality 3, which SENTER opened to AC mode */
    if (!tis_probe(&tis, 3, err, sizeof(err)) || !tis_request_locality(&tis, 3, err, sizeof(err)))
        fail(SINIT_PROGRESS_TPM, 3, 0, "TPM: %s", err);
    tpm = (struct tpm2){ .transmit = tis_transmit, .ctx = &tis };
    tpm_up = true;
    struct tpm_banks banks;
    if (tpm2_get_pcr_banks(&tpm, &banks))
        fail(SINIT_PROGRESS_TPM, 4, 0, "%s", tpm.err);
    entered_by_senter(&banks, senter_edx);

    /* 2-3. the heap tboot filled, and BiosData against the MADT */
    uint64_t heap_base = txt_priv_read(TXTCR_HEAP_BASE), heap_size = txt_priv_read(TXTCR_HEAP_SIZE);
    const uint8_t *heap = phys_map(heap_base, heap_size);
    uint64_t rsdp = acpi_find_rsdp();
    if (!heap || !rsdp)
        fail(SINIT_PROGRESS_PLATFORM, 1, 0, "no heap at 0x%llx or no ACPI RSDP",
             (unsigned long long)heap_base);
    uint32_t madt_len, dmar_len, mcfg_len;
    const uint8_t *madt = table(rsdp, "APIC", &madt_len, SINIT_PROGRESS_PLATFORM);
    int cpus = acpi_madt_enabled_cpus(madt, madt_len);
    if (cpus <= 0)
        fail(SINIT_PROGRESS_PLATFORM, 3, 0, "MADT: no enabled CPU or a malformed entry");
    struct txt_heap_expect he = {
        .heap_base = heap_base, .expected_procs = (uint32_t)cpus,
        .acm_caps = ai.info.capabilities, .acm_os_sinit_ver = ai.info.os_sinit_data_ver,
        .tpm_ext_policy = ai.tpm_caps & ACM_TPM_EXT_POLICY_MASK,
        .evtlog_min_size = EVTLOG_MIN_SIZE,
    };
    if (txt_heap_check_launch(heap, heap_size, &he, &hl, err, sizeof(err)))
        fail(SINIT_PROGRESS_HEAP, 1, 0, "heap: %s", err);
    const struct txt_os_sinit_data *os = &hl.os_sinit.d;
    struct acm_platform plat = {
        .ver_fsbif = txt_pub_read(TXTCR_VER_FSBIF), .ver_qpiif = txt_pub_read(TXTCR_VER_QPIIF),
        .didvid = txt_pub_read(TXTCR_DIDVID), .fms = cpu_fms(), .platform_id = rdmsr(0x17),
        .bios_data_version = hl.bios.version, .bios_data_flags = hl.bios.flags,
    };
    if (acm_match_platform(acm, &ai, &plat, err, sizeof(err)))
        fail(SINIT_PROGRESS_PLATFORM, 2, 0, "%s", err);
    /* the SMI handler runs on after the launch: only one the firmware locked in */
    if (txt_smram_check(mch_smramc(), err, sizeof(err)))
        fail(SINIT_PROGRESS_PLATFORM, 5, 0, "%s", err);

    /* 4. caches: nothing but this module's pages WB */
    struct txt_mtrrs mtrrs = { 0 };
    cpu_read_mtrrs(&mtrrs);
    if (txt_mtrrs_check(&mtrrs, acbase, (acm_size + 4095u) & ~4095u, err, sizeof(err)))
        fail(SINIT_PROGRESS_MTRRS, 1, 0, "MTRRs: %s", err);

    /* 9 before 5: the PMRs protect the MLE before it is measured (a DMA after the
     * measurement would otherwise change what runs). The units are the chipset's; the
     * DMAR (RAM the loader owns) is copied once, and the copy must name exactly them. */
    static uint8_t dmar[TXT_DMAR_MAX];
    unsigned nr_units, sub, reg;
    const struct acpi_drhd *units = txt_chipset_vtd_units(plat.didvid, &nr_units);
    if (!units)
        fail(SINIT_PROGRESS_PMR, SINIT_PMR_ERR_CHIPSET, 0,
             "no VT-d units known for chipset 0x%llx", (unsigned long long)plat.didvid);
    const uint8_t *dmar_ram = table(rsdp, "DMAR", &dmar_len, SINIT_PROGRESS_PMR);
    enum txt_dmar_result dr = txt_dmar_take(dmar_ram, dmar_len, dmar, sizeof(dmar), units,
                                            nr_units, &sub, err, sizeof(err));
    if (dr != TXT_DMAR_OK)
        fail(SINIT_PROGRESS_PMR, dr, sub, "%s", err);
    for (unsigned i = 0; i < nr_units; i++) {
        int rc = vtd_set_pmrs((uint32_t)units[i].base, os->vtd_pmr_lo_base,
                              os->vtd_pmr_lo_size, os->vtd_pmr_hi_base, os->vtd_pmr_hi_size,
                              &reg, err, sizeof(err));
        if (rc)
            fail(SINIT_PROGRESS_PMR, (unsigned)rc,
                 rc == TXT_PMR_NOT_HELD ? i * TXT_PMR_REGS + reg : i,
                 "VT-d unit at 0x%llx: %s", (unsigned long long)units[i].base, err);
    }

    /* 5. the MLE: every page inside the low PMR, none in the TXT region; measured in every
     * bank; its header */
    uint64_t dpr = txt_priv_read(TXTCR_DPR);
    struct txt_mle_limits lim = {
        .allowed_base = os->vtd_pmr_lo_base, .allowed_size = os->vtd_pmr_lo_size,
        .nr_forbidden = 3,
        .forbidden = { { heap_base, heap_size },
                       { sinit_base, txt_priv_read(TXTCR_SINIT_SIZE) },
                       { TXT_DPR_TOP(dpr) - ((uint64_t)TXT_DPR_SIZE_MB(dpr) << 20),
                         (uint64_t)TXT_DPR_SIZE_MB(dpr) << 20 } },
    };
    static struct mle_hash mh;
    mh.n = banks.count;
    for (unsigned b = 0; b < banks.count; b++)
        hash_init(&mh.ctx[b], banks.alg[b]);
    if (txt_mle_walk(os->mle_ptab, os->mle_size, &lim, hash_page, &mh, err, sizeof(err)))
        fail(SINIT_PROGRESS_MLE, 1, 0, "MLE: %s", err);
    struct tpm_digest_list mle = { .count = banks.count };
    for (unsigned b = 0; b < banks.count; b++) {
        mle.d[b].alg = banks.alg[b];
        hash_final(&mh.ctx[b], mle.d[b].bytes);
    }
    uint64_t hdr_phys, entry_phys;
    struct mle_hdr hdr;
    if (txt_mle_phys(os->mle_ptab, os->mle_size, &lim, os->mle_hdr_base, &hdr_phys, err,
                     sizeof(err)) ||
        (hdr_phys & 4095u) > 4096u - sizeof(hdr))
        fail(SINIT_PROGRESS_MLE, 2, 0, "MLE header at 0x%llx: %s",
             (unsigned long long)os->mle_hdr_base, err);
    memcpy(&hdr, phys_map(hdr_phys, sizeof(hdr)), sizeof(hdr));
    if (txt_mle_header_check(&hdr, os->mle_hdr_base, os->mle_size, ai.info.min_mle_hdr_ver,
                             err, sizeof(err)) ||
        txt_mle_phys(os->mle_ptab, os->mle_size, &lim, hdr.entry_point, &entry_phys, err,
                     sizeof(err)))
        fail(SINIT_PROGRESS_MLE, 3, 0, "%s", err);

    /* 6. the launch control policy */
    uint32_t control;
    const uint8_t *policy;
    uint32_t policy_len;
    launch_policy(os, &mle, ai.info.acm_ver, &control, &policy, &policy_len);

    /* 7. PCRs 17 and 18, and the event log tboot gave */
    struct txt_drtm_in din = {
        .senter_edx = senter_edx, .proc_scrtm_status = 0, .os_sinit_caps = os->capabilities,
        .lcp_policy_control = control,
        .po_policy = policy, .po_policy_len = policy_len,
    };
    memcpy(din.acm_digest, acm_digest, sizeof(acm_digest));
    sha256_buffer(acm + offsetof(struct txt_acm_hdr, rsa2048_pubkey),
                  sizeof(((struct txt_acm_hdr *)0)->rsa2048_pubkey), din.pubkey_hash);
    txt_drtm_events(&din, &events);
    struct txt_heap_event_log_ptr_elt2_1 *el = hl.os_sinit.has_evtlog
        ? phys_map(heap_base + hl.v.off[TXT_HEAP_OS_SINIT_DATA] + TXT_HEAP_SIZE_FIELD +
                   hl.os_sinit.evtlog_off, sizeof(*el))
        : NULL;
    void *log_mem = el ? phys_map(el->phys_addr, el->allocated_event_container_size) : NULL;
    if (!log_mem || evlog_init(&log, log_mem, el->allocated_event_container_size, &banks))
        fail(SINIT_PROGRESS_EVENT_LOG, 1, 0, "no event log container to write");
    if (measure_drtm(&tpm, &banks, &events, &mle, &log, err, sizeof(err)))
        fail(SINIT_PROGRESS_TPM, 5, 0, "%s", err);
    el->first_record_offset = 0;
    el->next_record_offset = log.used;

    /* 8. SinitMleData after OsSinitData */
    uint32_t e820_len = 0;
    if (fwcfg_read_file("etc/e820", e820, sizeof(e820), &e820_len) ||
        txt_ram_from_fw_cfg_e820(e820, e820_len, &smi, err, sizeof(err)))
        fail(SINIT_PROGRESS_SINIT_MLE_DATA, 1, 0, "RAM map: %s",
             e820_len ? err : "no fw_cfg etc/e820");
    const uint8_t *mcfg = table(rsdp, "MCFG", &mcfg_len, SINIT_PROGRESS_SINIT_MLE_DATA);
    if (acpi_mcfg_segment0(mcfg, mcfg_len, &smi.mcfg_base, &smi.mcfg_size))
        fail(SINIT_PROGRESS_SINIT_MLE_DATA, 2, 0, "MCFG: no segment 0");
    smi.edx_senter_flags = senter_edx;
    smi.lcp_policy_control = control;
    smi.dpr_base = lim.forbidden[2].base;
    smi.dpr_size = lim.forbidden[2].size;
    smi.dmar = dmar;
    smi.dmar_len = dmar_len;
    uint64_t smd_off = hl.v.off[TXT_HEAP_OS_SINIT_DATA] + hl.v.size[TXT_HEAP_OS_SINIT_DATA];
    uint64_t smd_size;
    if (txt_sinit_mle_data_build(&smi, (uint8_t *)heap + smd_off, heap_size - smd_off,
                                 &smd_size, err, sizeof(err)))
        fail(SINIT_PROGRESS_SINIT_MLE_DATA, 3, 0, "%s", err);

    /* 10. into the MLE: locality 2 for it, ours closed; EXITAC sets SENTER.DONE */
    txt_priv_cmd(TXTCR_CMD_OPEN_LOCALITY2);
    tis_release_locality(&tis);
    tpm_up = false;
    pr_info("MLE measured, SinitMleData written (0x%llx bytes); entering the MLE at 0x%llx\n",
            (unsigned long long)smd_size, (unsigned long long)entry_phys);
    sinit_exitac((uint32_t)entry_phys,
                 (os->capabilities & TXT_CAP_ECX_PGTBL) ? (uint32_t)os->mle_ptab : 0);
}
