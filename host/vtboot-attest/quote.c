/* SPDX-License-Identifier: MIT */
/*
 * vtboot-attest quote: in the guest (or on the host against a swtpm), quotes PCRs 17-19 in
 * every active bank (or --banks) with the verifier's nonce and the enrolled AK, reads the
 * values, collects vtboot's D-RTM event log, and writes one evidence file (evidence.h), plus
 * the quote, signature and PCR values as the files tpm2_checkquote reads.
 *
 * The event log, unless --event-log FILE: /sys/kernel/security/tboot/event_log (vtboot's
 * kernel patch 0009), else through /dev/mem from the address in vtboot's block of the shared
 * page (boot_params.tboot_addr + 0x800), as a stock kernel leaves it; when that shared page
 * has no vtboot block (tboot's page: an Intel TXT launch, vtboot-qemu --txt), the TXT heap's
 * log (the SINIT's records, then tboot's), found as src/txt/heap.c's txt_heap_event_log says
 * and read by mmap of /dev/mem. No log is no error here: the evidence then says why, and the
 * verifier fails it.
 */
#include "attest.h"
#include "evidence.h"
#include "tpm.h"
#include "tpmquote.h"
#include "util.h"
#include "vtbext.h"

#include "abi/txt.h"
#include "abi/vtboot_ext.h"
#include "txt/heap.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <tss2/tss2_mu.h>
#include <unistd.h>

#define SECURITYFS_LOG "/sys/kernel/security/tboot/event_log"
#define BOOT_PARAMS "/sys/kernel/boot_params/data"
#define QUOTE_PCRS ((1u << 17) | (1u << 18) | (1u << 19))
#define QUOTE_TRIES 3

struct quote {
    const char *tcti, *out, *event_log, *msg, *sig, *pcrs, *kernel_cmdline;
    uint32_t ak_handle;
    uint8_t nonce[64];
    size_t nonce_len;
    uint16_t banks[4];
    unsigned nbanks;
    struct tpm tpm;
};

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;

    printf("quote: FAIL: ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    return -1;
}

static int read_phys(uint64_t addr, void *buf, size_t len, char *err, size_t errsz)
{
    int fd = open("/dev/mem", O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return errorf(err, errsz, "cannot open /dev/mem: %s", strerror(errno));
    n = pread(fd, buf, len, (off_t)addr);
    close(fd);
    if (n != (ssize_t)len)
        return errorf(err, errsz, "cannot read %zu bytes at 0x%llx from /dev/mem: %s", len,
                      (unsigned long long)addr, n < 0 ? strerror(errno) : "short read");
    return 0;
}

/* The TXT heap's D-RTM event log (a copy), from the chipset's HEAP.BASE/SIZE; mmap, as read()
 * of /dev/mem refuses addresses above the last RAM page, where the TXT region lies. */
static uint8_t *txt_heap_log(size_t *len, uint64_t *base, char *err, size_t errsz)
{
    int fd = open("/dev/mem", O_RDONLY | O_SYNC | O_CLOEXEC);
    void *pub = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
                                           TXT_PUB_CONFIG_REGS_BASE);
    void *heap = MAP_FAILED;
    uint64_t size = 0, off;
    uint32_t used;
    uint8_t *log = NULL;

    if (pub == MAP_FAILED) {
        errorf(err, errsz, "cannot map the TXT registers at 0x%x: %s", TXT_PUB_CONFIG_REGS_BASE,
               strerror(errno));
        goto out;
    }
    memcpy(base, (uint8_t *)pub + TXTCR_HEAP_BASE, 8);
    memcpy(&size, (uint8_t *)pub + TXTCR_HEAP_SIZE, 8);
    if (size == 0 || size > EVIDENCE_MAX_SIZE * 16 ||
        (heap = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, (off_t)*base)) == MAP_FAILED) {
        errorf(err, errsz, "cannot map the TXT heap at 0x%llx+0x%llx", (unsigned long long)*base,
               (unsigned long long)size);
        goto out;
    }
    if (txt_heap_event_log(heap, *base, size, &off, &used, err, (unsigned)errsz))
        goto out;
    if (used > EVIDENCE_MAX_SIZE / 2) {
        errorf(err, errsz, "the TXT heap's log of %u bytes is too large", used);
        goto out;
    }
    log = xmalloc(used ? used : 1);
    memcpy(log, (uint8_t *)heap + off, used);
    *len = used;
    *base += off;
out:
    if (heap != MAP_FAILED)
        munmap(heap, size);
    if (pub != MAP_FAILED)
        munmap(pub, 4096);
    if (fd >= 0)
        close(fd);
    return log;
}

/* The D-RTM event log and where it came from; NULL (with the reason as the source) if none. */
static uint8_t *event_log(struct quote *q, size_t *len, char *src, size_t srcsz)
{
    char err[256];
    uint8_t *log, *bp, blk[64];
    size_t bplen;
    uint64_t tboot_addr;
    struct vtbext ext;

    if (q->event_log) {
        log = file_read_all(q->event_log, len, EVIDENCE_MAX_SIZE / 2);
        if (!log)
            snprintf(src, srcsz, "none: cannot read %s: %s", q->event_log, strerror(errno));
        else
            snprintf(src, srcsz, "file %s", q->event_log);
        return log;
    }
    log = file_read_all(SECURITYFS_LOG, len, EVIDENCE_MAX_SIZE / 2);
    if (log) {
        snprintf(src, srcsz, "securityfs %s", SECURITYFS_LOG);
        return log;
    }
    /* a stock kernel: from guest memory, where vtboot's block of the shared page says */
    bp = file_read_all(BOOT_PARAMS, &bplen, 1 << 16);
    if (!bp) {
        snprintf(src, srcsz, "none: no %s and cannot read %s: %s", SECURITYFS_LOG, BOOT_PARAMS,
                 strerror(errno));
        return NULL;
    }
    if (vtbext_tboot_addr(bp, bplen, &tboot_addr, err, sizeof(err)) ||
        read_phys(tboot_addr + 0x800, blk, sizeof(blk), err, sizeof(err))) {
        free(bp);
        snprintf(src, srcsz, "none: %s", err);
        return NULL;
    }
    free(bp);
    {
        /* not vtboot's shared page: tboot's, after an Intel TXT launch; its log is the heap's */
        static const uint8_t uuid[16] = VTBOOT_EXT_UUID_BYTES;
        uint64_t at;

        if (memcmp(blk, uuid, sizeof(uuid)) != 0) {
            log = txt_heap_log(len, &at, err, sizeof(err));
            if (log)
                snprintf(src, srcsz, "/dev/mem 0x%08llx (the TXT heap's, OsSinitData's event log "
                         "element; the shared page at 0x%llx is not vtboot's)",
                         (unsigned long long)at, (unsigned long long)tboot_addr);
            else
                snprintf(src, srcsz, "none: the shared page at 0x%llx is not vtboot's, and the "
                         "TXT heap: %s", (unsigned long long)tboot_addr, err);
            return log;
        }
    }
    if (vtbext_parse(blk, sizeof(blk), &ext, err, sizeof(err))) {
        snprintf(src, srcsz, "none: %s", err);
        return NULL;
    }
    log = xmalloc(ext.evtlog_used);
    if (read_phys(ext.evtlog_addr, log, ext.evtlog_used, err, sizeof(err))) {
        free(log);
        snprintf(src, srcsz, "none: %s", err);
        return NULL;
    }
    *len = ext.evtlog_used;
    snprintf(src, srcsz, "/dev/mem 0x%08x (vtboot's block of the shared page at 0x%llx)",
             ext.evtlog_addr, (unsigned long long)tboot_addr);
    return log;
}

/* The values of sel, in its order (PCR_Read returns at most 8 digests a call). */
static int read_pcrs(struct quote *q, const TPML_PCR_SELECTION *sel, uint8_t *values,
                     size_t *len)
{
    static uint8_t got[TPM2_NUM_PCR_BANKS][24][64];
    TPML_PCR_SELECTION want = *sel;
    size_t off = 0;
    unsigned left;

    pcrsel_values_size(&want, &left);
    while (left) {
        TPML_PCR_SELECTION *out = NULL;
        TPML_DIGEST *d = NULL;
        UINT32 counter;
        unsigned k = 0;
        TSS2_RC rc = Esys_PCR_Read(q->tpm.esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &want,
                                   &counter, &out, &d);

        if (rc != TSS2_RC_SUCCESS)
            return tpm_fail(&q->tpm, "TPM2_PCR_Read", rc);
        if (d->count == 0) {
            Esys_Free(out);
            Esys_Free(d);
            return tpm_fail(&q->tpm, "TPM2_PCR_Read returned no values", 0);
        }
        for (unsigned i = 0; i < out->count; i++) {
            const TPMS_PCR_SELECTION *s = &out->pcrSelections[i];
            unsigned b;

            for (b = 0; b < want.count && want.pcrSelections[b].hash != s->hash; b++)
                ;
            for (unsigned pcr = 0; pcr < 24 && pcr / 8 < s->sizeofSelect; pcr++) {
                if (!(s->pcrSelect[pcr / 8] & (1u << (pcr % 8))))
                    continue;
                if (b == want.count || k == d->count ||
                    !(want.pcrSelections[b].pcrSelect[pcr / 8] & (1u << (pcr % 8))) ||
                    d->digests[k].size != tpm_hash_size(s->hash)) {
                    Esys_Free(out);
                    Esys_Free(d);
                    return tpm_fail(&q->tpm, "TPM2_PCR_Read answered another selection", 0);
                }
                memcpy(got[b][pcr], d->digests[k++].buffer, tpm_hash_size(s->hash));
                want.pcrSelections[b].pcrSelect[pcr / 8] &= (uint8_t)~(1u << (pcr % 8));
                left--;
            }
        }
        Esys_Free(out);
        Esys_Free(d);
    }
    for (unsigned b = 0; b < sel->count; b++)
        for (unsigned pcr = 0; pcr < 24; pcr++)
            if (pcrsel_has(sel, sel->pcrSelections[b].hash, pcr)) {
                memcpy(values + off, got[b][pcr], tpm_hash_size(sel->pcrSelections[b].hash));
                off += tpm_hash_size(sel->pcrSelections[b].hash);
            }
    *len = off;
    return 0;
}

static int write_file(const char *path, const void *data, size_t len)
{
    if (path && file_write_all(path, data, len))
        return fail("cannot write %s: %s", path, strerror(errno));
    return 0;
}

static int quote(struct quote *q)
{
    TPML_PCR_SELECTION active, sel;
    TPM2B_PUBLIC *akpub = NULL;
    TPM2B_ATTEST *quoted = NULL;
    TPMT_SIGNATURE *sig = NULL;
    TPMS_ATTEST att;
    ESYS_TR ak;
    static uint8_t values[TPM2_NUM_PCR_BANKS * 24 * 64];
    uint8_t akbuf[sizeof(TPM2B_PUBLIC)], sigbuf[sizeof(TPMT_SIGNATURE)];
    uint8_t selbuf[sizeof(TPML_PCR_SELECTION)], banksbuf[sizeof(TPML_PCR_SELECTION)];
    uint8_t dig[64];
    size_t vlen = 0, aklen = 0, siglen = 0, sellen = 0, bankslen = 0, dlen, loglen = 0, evlen;
    char err[256], src[512], banks[64];
    uint8_t *log = NULL, *ev = NULL, *kcmd = NULL;
    size_t kcmd_len = 0;
    struct evidence e = { 0 };
    int rc = -1;

    if (tpm_open(&q->tpm, q->tcti))
        return fail("%s", q->tpm.err);
    if (tpm_banks(&q->tpm, &active))
        return fail("%s", q->tpm.err);
    if (!q->nbanks) {
        for (unsigned i = 0; i < active.count && q->nbanks < 4; i++)
            if (tpm_hash_name(active.pcrSelections[i].hash))
                q->banks[q->nbanks++] = active.pcrSelections[i].hash;
    } else {
        for (unsigned i = 0; i < q->nbanks; i++)
            if (!pcrsel_has(&active, q->banks[i], 17))
                return fail("the TPM has no active %s bank", tpm_hash_name(q->banks[i]));
    }
    pcrsel_make(&sel, q->banks, q->nbanks, QUOTE_PCRS);
    if (tpm_persistent(&q->tpm, q->ak_handle, &ak, &akpub))
        return fail("no AK at 0x%08x (%s): enroll first", q->ak_handle, q->tpm.err);

    for (int tries = 0;; tries++) {
        TPM2B_DATA nonce = { .size = (UINT16)q->nonce_len };
        TPMT_SIG_SCHEME scheme = { .scheme = TPM2_ALG_NULL };
        TSS2_RC r;

        memcpy(nonce.buffer, q->nonce, q->nonce_len);
        Esys_Free(quoted);
        Esys_Free(sig);
        quoted = NULL;
        sig = NULL;
        r = Esys_Quote(q->tpm.esys, ak, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &nonce,
                       &scheme, &sel, &quoted, &sig);
        if (r != TSS2_RC_SUCCESS) {
            tpm_fail(&q->tpm, "TPM2_Quote", r);
            fail("%s", q->tpm.err);
            goto out;
        }
        if (quote_parse(quoted->attestationData, quoted->size, &att, err, sizeof(err))) {
            fail("the TPM's quote: %s", err);
            goto out;
        }
        if (read_pcrs(q, &att.attested.quote.pcrSelect, values, &vlen)) {
            fail("%s", q->tpm.err);
            goto out;
        }
        /* the values must be the quoted ones: a PCR extended in between means quoting again */
        if (pcr_digest(sig->signature.rsassa.hash, values, vlen, dig, &dlen) == 0 &&
            dlen == att.attested.quote.pcrDigest.size &&
            !memcmp(dig, att.attested.quote.pcrDigest.buffer, dlen))
            break;
        if (tries + 1 == QUOTE_TRIES) {
            fail("the PCRs changed under %d quotes", QUOTE_TRIES);
            goto out;
        }
    }

    if (Tss2_MU_TPM2B_PUBLIC_Marshal(akpub, akbuf, sizeof(akbuf), &aklen) ||
        Tss2_MU_TPMT_SIGNATURE_Marshal(sig, sigbuf, sizeof(sigbuf), &siglen) ||
        Tss2_MU_TPML_PCR_SELECTION_Marshal(&att.attested.quote.pcrSelect, selbuf, sizeof(selbuf),
                                           &sellen) ||
        Tss2_MU_TPML_PCR_SELECTION_Marshal(&active, banksbuf, sizeof(banksbuf), &bankslen)) {
        fail("cannot marshal the evidence");
        goto out;
    }
    log = event_log(q, &loglen, src, sizeof(src));
    e.rec[EVID_AK_PUBLIC] = (struct evidence_rec){ akbuf, aklen };
    e.rec[EVID_QUOTE] = (struct evidence_rec){ quoted->attestationData, quoted->size };
    e.rec[EVID_SIGNATURE] = (struct evidence_rec){ sigbuf, siglen };
    e.rec[EVID_PCR_SELECTION] = (struct evidence_rec){ selbuf, sellen };
    e.rec[EVID_PCR_VALUES] = (struct evidence_rec){ values, vlen };
    e.rec[EVID_TPM_BANKS] = (struct evidence_rec){ banksbuf, bankslen };
    e.rec[EVID_NONCE] = (struct evidence_rec){ q->nonce, q->nonce_len };
    e.rec[EVID_EVENT_LOG_SOURCE] = (struct evidence_rec){ (uint8_t *)src, strlen(src) };
    if (log)
        e.rec[EVID_EVENT_LOG] = (struct evidence_rec){ log, loglen };
    /* the kernel's command line: how the verifier tells a changed command line from a changed
     * kernel (it checks the claim against the measurement) */
    kcmd = file_read_all(q->kernel_cmdline, &kcmd_len, 1 << 16);
    while (kcmd && kcmd_len && (kcmd[kcmd_len - 1] == '\n' || kcmd[kcmd_len - 1] == 0))
        kcmd_len--;
    if (kcmd)
        e.rec[EVID_KERNEL_CMDLINE] = (struct evidence_rec){ kcmd, kcmd_len };
    ev = evidence_build(&e, &evlen);
    if (!ev) {
        fail("the evidence is larger than %u bytes", EVIDENCE_MAX_SIZE);
        goto out;
    }
    if (write_file(q->out, ev, evlen) || write_file(q->msg, quoted->attestationData, quoted->size) ||
        write_file(q->sig, sigbuf, siglen) || write_file(q->pcrs, values, vlen))
        goto out;
    pcrsel_banks_str(&att.attested.quote.pcrSelect, banks, sizeof(banks));
    printf("quote: PCRs 17-19 of %s quoted by the AK at 0x%08x over a %zu-byte nonce\n", banks,
           q->ak_handle, q->nonce_len);
    if (log)
        printf("quote: event log: %zu bytes from %s\n", loglen, src);
    else
        printf("quote: event log: %s\n", src);
    printf("quote: evidence: %zu bytes in %s\n", evlen, q->out);
    rc = 0;
out:
    free(ev);
    free(log);
    free(kcmd);
    Esys_Free(quoted);
    Esys_Free(sig);
    Esys_Free(akpub);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f,
"usage: vtboot-attest quote --nonce HEX -o EVIDENCE [--tpm TCTI] [--ak-handle 0x81010002]\n"
"                           [--banks LIST] [--event-log FILE] [--msg F] [--sig F] [--pcrs F]\n"
"Quotes PCRs 17-19 of every active bank (or LIST, e.g. sha256) with the AK enroll made,\n"
"over the verifier's nonce (1 to 64 bytes), reads the PCR values and vtboot's D-RTM event\n"
"log (securityfs, else guest memory through /dev/mem: vtboot's block of the shared page or,\n"
"after tboot's Intel TXT launch, the TXT heap; or FILE), and writes the evidence.\n"
"--msg, --sig, --pcrs: also the quote (TPMS_ATTEST), its TPMT_SIGNATURE and the PCR values,\n"
"the files tpm2_checkquote -m, -s and -f read. TCTI: device:/dev/tpmrm0 (default) or\n"
"swtpm:path=SOCKET. Exit 0, or 1 with a \"quote: FAIL: ...\" line, 2 usage.\n");
}

int cmd_quote(int argc, char **argv)
{
    enum { O_TPM = 256, O_NONCE, O_AK_HANDLE, O_BANKS, O_EVENT_LOG, O_MSG, O_SIG, O_PCRS };
    static const struct option lo[] = {
        { "tpm", required_argument, NULL, O_TPM },
        { "nonce", required_argument, NULL, O_NONCE },
        { "ak-handle", required_argument, NULL, O_AK_HANDLE },
        { "banks", required_argument, NULL, O_BANKS },
        { "event-log", required_argument, NULL, O_EVENT_LOG },
        { "msg", required_argument, NULL, O_MSG },
        { "sig", required_argument, NULL, O_SIG },
        { "pcrs", required_argument, NULL, O_PCRS },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct quote q = { .ak_handle = ATTEST_AK_HANDLE, .kernel_cmdline = "/proc/cmdline" };
    char err[256];
    bool have_nonce = false;
    int c, rc;

    while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
        switch (c) {
        case O_TPM: q.tcti = optarg; break;
        case O_NONCE:
            if (parse_hex(optarg, q.nonce, sizeof(q.nonce), &q.nonce_len)) {
                fprintf(stderr, "vtboot-attest: --nonce: 1 to 64 bytes in hex, got '%s'\n",
                        optarg);
                return 2;
            }
            have_nonce = true;
            break;
        case O_AK_HANDLE:
            if (parse_handle(optarg, &q.ak_handle)) {
                fprintf(stderr, "vtboot-attest: --ak-handle: a persistent handle 0x81xxxxxx\n");
                return 2;
            }
            break;
        case O_BANKS:
            if (pcrsel_parse_banks(optarg, q.banks, &q.nbanks, err, sizeof(err))) {
                fprintf(stderr, "vtboot-attest: --banks %s\n", err);
                return 2;
            }
            break;
        case O_EVENT_LOG: q.event_log = optarg; break;
        case O_MSG: q.msg = optarg; break;
        case O_SIG: q.sig = optarg; break;
        case O_PCRS: q.pcrs = optarg; break;
        case 'o': q.out = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc || !q.out || !have_nonce) {
        usage(stderr);
        return 2;
    }
    rc = quote(&q);
    tpm_close(&q.tpm);
    fflush(stdout);
    return rc ? 1 : 0;
}
