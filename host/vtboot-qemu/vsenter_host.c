/* SPDX-License-Identifier: MIT */
#include "vsenter_host.h"
#include "lib/bytes.h"
#include "cpustate.h"
#include "ev.h"
#include "json.h"
#include "log.h"
#include "mlehdr.h"
#include "platstate.h"
#include "qmp.h"
#include "sig.h"
#include "sock.h"
#include "tpmctrl.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <openssl/evp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define QMP_TIMEOUT_MS 30000
#define GDB_IDLE_WAIT_MS 3000    /* for the debugger's outstanding packet to be answered */
#define TPM_TIMEOUT_MS 10000

/* as much of the queue as the socket takes now */
static void flush(struct vsenter_host *v)
{
    while (v->out_len && v->fd >= 0) {
        ssize_t w = send(v->fd, v->out, v->out_len, MSG_DONTWAIT | MSG_NOSIGNAL);

        if (w > 0) {
            v->out_len -= (size_t)w;
            memmove(v->out, v->out + w, v->out_len);
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && errno == EAGAIN) {
            return;
        } else {
            log_msg("warning: virtual SENTER: cannot answer the guest: %s", strerror(errno));
            v->out_len = 0;
        }
    }
}

/* Logs the refusal of rq (NULL: a line that named no request) and queues its answer line,
 * writing what the socket takes; the rest goes out when the socket is writable (on_io).
 * parse() makes room for one answer before each byte it hands on. */
static void answer_refusal(struct vsenter_host *v, const struct vs_request *rq, const char *why)
{
    char buf[VS_REPLY_MAX];
    size_t n;

    log_msg("virtual SENTER: refused: %s", why);
    vs_refusal(rq, why, buf, sizeof(buf));
    n = strlen(buf);
    log_dbg("vsenter> %.*s", (int)n - 1, buf);
    if (v->fd < 0)
        return;
    if (n > sizeof(v->out) - v->out_len) {
        log_msg("warning: virtual SENTER: answer queue full, answer dropped");
        return;
    }
    memcpy(v->out + v->out_len, buf, n);
    v->out_len += n;
    flush(v);
}

static int sha256(const uint8_t *d, size_t n, uint8_t out[32])
{
    unsigned len = 0;

    return EVP_Digest(d, n, out, &len, EVP_sha256(), NULL) == 1 && len == 32 ? 0 : -1;
}

/* The locality-4 hash sequence over data, through the proxy. */
static int drtm_hash(struct vsenter_host *v, const uint8_t *data, size_t len, char *err,
                     size_t errsz)
{
    uint8_t chunk[4 + TPMCTRL_HASH_CHUNK];
    uint32_t res;
    int rc = -1;

    ctrlproxy_hold(&v->proxy);     /* no QEMU request in between */
    if (ctrlproxy_inject(&v->proxy, CMD_HASH_START, NULL, 0, &res, TPM_TIMEOUT_MS, err, errsz))
        goto out;
    if (res) {
        snprintf(err, errsz, "CMD_HASH_START failed (0x%x)", res);
        goto out;
    }
    for (size_t off = 0; off < len; off += TPMCTRL_HASH_CHUNK) {
        size_t n = len - off < TPMCTRL_HASH_CHUNK ? len - off : TPMCTRL_HASH_CHUNK;

        store_be32(chunk, (uint32_t)n);
        memcpy(chunk + 4, data + off, n);
        if (ctrlproxy_inject(&v->proxy, CMD_HASH_DATA, chunk, 4 + n, &res, TPM_TIMEOUT_MS, err,
                             errsz))
            goto out;
        if (res) {
            snprintf(err, errsz, "CMD_HASH_DATA failed (0x%x)", res);
            goto out;
        }
    }
    if (ctrlproxy_inject(&v->proxy, CMD_HASH_END, NULL, 0, &res, TPM_TIMEOUT_MS, err, errsz))
        goto out;
    if (res) {
        snprintf(err, errsz, "CMD_HASH_END failed (0x%x)", res);
        goto out;
    }
    rc = 0;
out:
    ctrlproxy_release(&v->proxy);
    return rc;
}

/* len bytes of guest-physical memory at addr (QMP pmemsave into the temp dir) */
static uint8_t *read_guest(struct vsenter_host *v, uint64_t addr, uint64_t len, char *err,
                           size_t errsz)
{
    char qerr[256], fname[512], args[700];
    uint8_t *buf;
    size_t got = 0;

    unlink(v->dumpfile);
    if (!json_quote(v->dumpfile, fname, sizeof(fname))) {
        snprintf(err, errsz, "cannot read guest memory");
        return NULL;
    }
    snprintf(args, sizeof(args), "{\"val\":%llu,\"size\":%llu,\"filename\":%s}",
             (unsigned long long)addr, (unsigned long long)len, fname);
    if (qmp_exec(v->qmp, "pmemsave", args, qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0) {
        snprintf(err, errsz, "cannot read guest memory");
        log_msg("warning: virtual SENTER: %s", qerr);
        return NULL;
    }
    buf = file_read_all(v->dumpfile, &got, (size_t)VSENTER_MLE_MAX + 1);
    unlink(v->dumpfile);
    if (!buf || got != len) {
        free(buf);
        snprintf(err, errsz, "cannot read guest memory");
        return NULL;
    }
    return buf;
}

/* every CPU's state; with -v the text is kept in the temp dir (cpus-<request>-<what>.txt) */
static int read_cpus(struct vsenter_host *v, const char *what, struct cpu_set *s, char *err,
                     size_t errsz)
{
    char qerr[256];
    char *text;
    int rc;

    if (qmp_hmp(v->qmp, "info registers -a", &text, qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0) {
        snprintf(err, errsz, "cannot read the CPU state: %.160s", qerr);
        return -1;
    }
    if (log_verbose) {
        char *f = xasprintf("%s/cpus-%u-%s.txt", v->tmpdir, v->requests, what);

        if (file_write_all(f, text, strlen(text)) == 0)
            log_dbg("virtual SENTER: CPU state %s", f);
        free(f);
    }
    rc = cpustate_parse(text, s, err, errsz);
    free(text);
    if (rc == 0 && s->n != v->ncpus) {
        snprintf(err, errsz, "info registers shows %d CPUs, QEMU has %d", s->n, v->ncpus);
        rc = -1;
    }
    return rc;
}

/* how many CPUs QEMU has (query-cpus-fast): what info registers must show */
static int count_cpus(struct vsenter_host *v, char *err, size_t errsz)
{
    char qerr[256], *reply;
    int n = 0;

    if (qmp_call(v->qmp, "query-cpus-fast", NULL, &reply, qerr, sizeof(qerr),
                 QMP_TIMEOUT_MS) != 0) {
        snprintf(err, errsz, "cannot read the CPU state: %.160s", qerr);
        return -1;
    }
    for (const char *p = reply; (p = strstr(p, "\"cpu-index\"")); p++)
        n++;
    free(reply);
    v->ncpus = n;
    return 0;
}

/* ---- step 1a: the platform's event sources (platstate.h has the rules and says why the
 * launcher's own devices pass them) ---- */

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA 0xcfc

static int hmp(struct vsenter_host *v, const char *cmd, char **out, char *err, size_t errsz)
{
    char qerr[256];

    if (qmp_hmp(v->qmp, cmd, out, qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0) {
        snprintf(err, errsz, "cannot read the platform state (%s): %.160s", cmd, qerr);
        return -1;
    }
    return 0;
}

/* a 32-bit port read or write as the guest's CPU would do it (HMP i /w, o /w) */
static int port_in(struct vsenter_host *v, unsigned port, uint32_t *val, char *err, size_t errsz)
{
    char cmd[32], *text;
    int rc;

    snprintf(cmd, sizeof(cmd), "i /w 0x%x", port);
    if (hmp(v, cmd, &text, err, errsz) != 0)
        return -1;
    rc = platstate_parse_inl(text, port, val, err, errsz);
    free(text);
    return rc;
}

static int port_out(struct vsenter_host *v, unsigned port, uint32_t val, char *err, size_t errsz)
{
    char cmd[48], *text;
    int rc = 0;

    snprintf(cmd, sizeof(cmd), "o /w 0x%x 0x%x", port, val);
    if (hmp(v, cmd, &text, err, errsz) != 0)
        return -1;
    if (*text) {                /* HMP answers a write with nothing, or with its complaint */
        snprintf(err, errsz, "cannot write port 0x%x: %.120s", port, text);
        rc = -1;
    }
    free(text);
    return rc;
}

/* platstate's configuration reader: mechanism #1 through the ports */
static int cfg_read(void *ctx, unsigned bus, unsigned dev, unsigned fn, unsigned reg,
                    uint32_t *val, char *err, size_t errsz)
{
    struct vsenter_host *v = ctx;

    v->cfg_reads++;
    if (port_out(v, PCI_CONFIG_ADDRESS, 0x80000000u | bus << 16 | dev << 11 | fn << 8 | reg, err,
                 errsz) != 0)
        return -1;
    return port_in(v, PCI_CONFIG_DATA, val, err, errsz);
}

/* every local APIC, the I/O APIC, the HPET, every PCI function; 0, or -1 with the reason */
static int check_platform(struct vsenter_host *v, char *err, size_t errsz)
{
    char cmd[32], qerr[256], *text;
    struct lapic_state l;
    struct ioapic_state io;
    uint32_t cf8;
    unsigned nfn = 0;
    bool hpet;
    int rc;
    int64_t t0 = now_ms();

    /* QEMU gives the CPUs of -smp n the APIC IDs 0..n-1; the dump names the CPU it shows */
    for (int i = 0; i < v->ncpus; i++) {
        snprintf(cmd, sizeof(cmd), "info lapic %d", i);
        if (hmp(v, cmd, &text, err, errsz) != 0)
            return -1;
        rc = platstate_parse_lapic(text, &l, err, errsz);
        free(text);
        if (rc != 0)
            return -1;
        if (l.cpu != i)
            return errorf(err, errsz, "info lapic %d shows CPU %d", i, l.cpu);
        if (platstate_check_lapic(&l, err, errsz) != 0)
            return -1;
    }
    if (hmp(v, "info pic", &text, err, errsz) != 0)
        return -1;
    rc = platstate_parse_ioapic(text, &io, err, errsz);
    free(text);
    if (rc != 0 || platstate_check_ioapic(&io, err, errsz) != 0)
        return -1;
    if (qmp_call(v->qmp, "qom-get", "{\"path\":\"/machine\",\"property\":\"hpet\"}", &text,
                 qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0)
        return errorf(err, errsz, "cannot read the platform state (qom-get hpet): %.160s", qerr);
    rc = platstate_parse_qom_bool(text, &hpet, err, errsz);
    free(text);
    if (rc != 0 || platstate_check_hpet(hpet, err, errsz) != 0)
        return -1;
    /* the guest may be between its own write of CONFIG_ADDRESS and its data access: it finds
     * its address again */
    v->cfg_reads = 0;
    if (port_in(v, PCI_CONFIG_ADDRESS, &cf8, err, errsz) != 0)
        return -1;
    rc = platstate_pci_scan(cfg_read, v, &nfn, err, errsz);
    /* the scan's own reason (a refusal) comes first if both fail */
    if (port_out(v, PCI_CONFIG_ADDRESS, cf8, qerr, sizeof(qerr)) != 0) {
        log_msg("warning: virtual SENTER: %s", qerr);
        if (rc == 0)
            snprintf(err, errsz, "%s", qerr);
        return -1;
    }
    if (rc != 0)
        return -1;
    log_dbg("virtual SENTER: event sources of %d CPUs, the I/O APIC, the HPET and %u PCI "
            "functions (%u configuration reads) checked in %lld ms", v->ncpus, nfn, v->cfg_reads,
            (long long)(now_ms() - t0));
    return 0;
}

static void le_hex(uint64_t v, int bytes, char *out)
{
    for (int i = 0; i < bytes; i++, v >>= 8)
        sprintf(out + 2 * i, "%02x", (unsigned)(v & 0xff));
}

/* A gdbstub command that must answer OK. */
static int gdb_ok(struct vsenter_host *v, const char *cmd, char *err, size_t errsz)
{
    char reply[64];

    if (gdbmux_cmd(v->gdb, cmd, reply, sizeof(reply), err, errsz) != 0)
        return -1;
    if (strcmp(reply, "OK")) {
        snprintf(err, errsz, "gdbstub: %s answered '%s'", cmd, reply);
        return -1;
    }
    return 0;
}

/* P<reg>=<value>: one register of the selected CPU */
static int set_reg(struct vsenter_host *v, unsigned reg, uint64_t val, int bytes, char *err,
                   size_t errsz)
{
    char cmd[48];

    snprintf(cmd, sizeof(cmd), "P%x=", reg);
    le_hex(val, bytes, cmd + strlen(cmd));
    return gdb_ok(v, cmd, err, errsz);
}

/*
 * An INIT for every CPU but the launching one, left pending while the VM is paused, as SENTER
 * puts the other processors to sleep. HMP cannot show an NMI or SMI that reached a halted CPU
 * just before the pause (QEMU takes it when the CPU runs again); QEMU handles a pending INIT
 * before anything else when a CPU wakes (cpu_handle_interrupt), and the INIT drops every other
 * pending request (do_cpu_init), so such an NMI never runs the handler a loader set. The CPU
 * then waits for the MLE's SIPI. APIC IDs are the CPU indexes (QEMU's default topology, as
 * `info lapic N` shows).
 */
static int init_other_cpus(struct vsenter_host *v, int launching, char *err, size_t errsz)
{
    char mode[8], cmd[40];
    int rc = -1;

    /* the stub's address mode is the debugger's too: put back what it was */
    if (gdbmux_cmd(v->gdb, "qqemu.PhyMemMode", mode, sizeof(mode), err, errsz) != 0)
        return -1;
    if (strcmp(mode, "0") && strcmp(mode, "1")) {
        snprintf(err, errsz, "gdbstub: qqemu.PhyMemMode answered '%s'", mode);
        return -1;
    }
    if (gdb_ok(v, "Qqemu.PhyMemMode:1", err, errsz) != 0)
        return -1;
    for (int cpu = 0; cpu < v->ncpus; cpu++) {
        if (cpu == launching)
            continue;
        if (vs_init_msi_packet((unsigned)cpu, cmd, sizeof(cmd)) != 0) {
            snprintf(err, errsz, "CPU %d: no INIT message for its APIC ID", cpu);
            goto out;
        }
        if (gdb_ok(v, cmd, err, errsz) != 0)
            goto out;
    }
    rc = 0;
out:
    snprintf(cmd, sizeof(cmd), "Qqemu.PhyMemMode:%s", mode);
    if (rc == 0)
        return gdb_ok(v, cmd, err, errsz);
    char later[128];           /* the first failure is the one reported */
    (void)gdb_ok(v, cmd, later, sizeof(later));
    return rc;
}

/* QEMU 7.2 x86_64 gdbstub register numbers */
enum { GDB_RAX = 0, GDB_RIP = 16, GDB_EFLAGS, GDB_CS, GDB_SS, GDB_DS, GDB_ES, GDB_FS, GDB_GS,
       GDB_CR0 = 27, GDB_CR3 = 29, GDB_CR4 = 30, GDB_EFER = 32 };

/* Step 5: the launching CPU into the entry state, through the gdbstub. */
static int transfer(struct vsenter_host *v, const struct vs_entry *e, char *err, size_t errsz)
{
    char cmd[32], reply[64];
    static const unsigned segs[] = { GDB_CS, GDB_SS, GDB_DS, GDB_ES, GDB_FS, GDB_GS };
    uint32_t gpr[8] = { e->eax, e->ebx, e->ecx, e->edx, 0, 0, 0, 0 };   /* rax rbx rcx rdx rsi rdi rbp rsp */
    int rc = -1;

    if (gdbmux_begin(v->gdb, err, errsz) != 0)
        goto out;
    snprintf(cmd, sizeof(cmd), "Hg%x", e->cpu + 1);
    if (gdb_ok(v, cmd, err, errsz) != 0)
        goto out;
    /* paging and long mode off before anything is loaded: descriptors are read through the
     * CPU's current translation (cpu_x86_get_descr_debug) */
    if (set_reg(v, GDB_EFER, 0, 8, err, errsz) || set_reg(v, GDB_CR4, 0, 8, err, errsz) ||
        set_reg(v, GDB_CR0, VSENTER_ENTRY_CR0, 8, err, errsz) ||
        set_reg(v, GDB_CR3, 0, 8, err, errsz))
        goto out;
    /* QEMU loads a descriptor only when the selector changes: the null selector first (it
     * loads GDT entry 0, whatever it holds), then the real one */
    for (size_t i = 0; i < sizeof(segs) / sizeof(segs[0]); i++) {
        uint32_t sel = segs[i] == GDB_CS ? VSENTER_SEL_CODE : VSENTER_SEL_DATA;

        if (set_reg(v, segs[i], 0, 4, err, errsz) || set_reg(v, segs[i], sel, 4, err, errsz))
            goto out;
    }
    if (set_reg(v, GDB_EFLAGS, VSENTER_ENTRY_EFLAGS, 4, err, errsz) ||
        set_reg(v, GDB_RIP, e->eip, 8, err, errsz))
        goto out;
    for (unsigned r = 0; r < 8; r++)
        if (set_reg(v, GDB_RAX + r, gpr[r], 8, err, errsz))
            goto out;
    /* the raw EFLAGS (the dump shows stale lazily computed flags, cpustate.h) */
    snprintf(cmd, sizeof(cmd), "p%x", GDB_EFLAGS);
    if (gdbmux_cmd(v->gdb, cmd, reply, sizeof(reply), err, errsz) != 0)
        goto out;
    if (strcmp(reply, "02000000")) {
        snprintf(err, errsz, "gdbstub: EFLAGS reads '%s' after the write", reply);
        goto out;
    }
    if (init_other_cpus(v, e->cpu, err, errsz) != 0)
        goto out;
    rc = 0;
out:
    gdbmux_end(v->gdb);
    return rc;
}

/* A refusal before the measurement: the CPUs run on where they were, the guest gets the
 * reason. */
static void refuse(struct vsenter_host *v, const struct vs_request *rq, bool stopped,
                   bool was_running, const char *why)
{
    char qerr[256];

    if (stopped && was_running &&
        qmp_exec(v->qmp, "cont", NULL, qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0)
        log_msg("warning: virtual SENTER: cannot resume the guest: %s", qerr);
    gdbmux_release(v->gdb);
    answer_refusal(v, rq, why);
}

/* A failure once the measurement has begun: PCR 17 may be reset, and no guest code but the
 * MLE's entry may run after that. QEMU quits, the run ends with this as its outcome. */
static void fatal(struct vsenter_host *v, const char *why)
{
    char qerr[256];

    v->dead = true;
    log_msg("virtual SENTER failed after the measurement: %s", why);
    if (!sig_terminating())
        fate_set(v->fate, OUT_CRASH, "virtual SENTER failed after the measurement: %s", why);
    if (qmp_exec(v->qmp, "quit", NULL, qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0)
        log_dbg("QMP quit: %s", qerr);
}

static struct cpu_set cpus_before, cpus_after;     /* 64 CPUs' worth each: not on the stack */

static void launch(struct vsenter_host *v, const struct vs_request *rq)
{
    char err[256], qerr[256], status[32], hex[65];
    struct mle_hdr hdr;
    struct mle_range r;
    struct vs_entry e;
    uint8_t *buf, *mle = NULL, digest[32];
    bool was_running;
    unsigned stops0;
    int cpu;
    int64_t t0 = now_ms(), t_checked, t_hashed, t_moved;

    v->requests++;
    /* 1. the debugger's bytes wait, the CPUs stop, their state */
    if (gdbmux_hold(v->gdb, GDB_IDLE_WAIT_MS, err, sizeof(err)) != 0) {
        refuse(v, rq, false, false, err);
        return;
    }
    stops0 = v->gdb->stops_passed;
    if (qmp_status(v->qmp, status, sizeof(status), qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0) {
        log_msg("warning: virtual SENTER: %s", qerr);
        refuse(v, rq, false, false, "cannot pause the guest");
        return;
    }
    was_running = !strcmp(status, "running");
    /* QEMU writes the stop reply to the gdbstub connection before it answers "stop" */
    gdbmux_swallow_stops(v->gdb);
    if (qmp_exec(v->qmp, "stop", NULL, qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0) {
        log_msg("warning: virtual SENTER: %s", qerr);
        refuse(v, rq, false, false, "cannot pause the guest");
        return;
    }
    if (count_cpus(v, err, sizeof(err)) != 0 || read_cpus(v, "before", &cpus_before, err, sizeof(err)) != 0) {
        refuse(v, rq, true, was_running, err);
        return;
    }
    cpu = cpustate_launch_cpu(&cpus_before, err, sizeof(err));
    if (cpu < 0 || check_platform(v, err, sizeof(err)) != 0) {
        refuse(v, rq, true, was_running, err);
        return;
    }
    /* 2. the MLE header */
    buf = read_guest(v, rq->mle_hdr, sizeof(hdr), err, sizeof(err));
    if (!buf) {
        refuse(v, rq, true, was_running, err);
        return;
    }
    memcpy(&hdr, buf, sizeof(hdr));
    free(buf);
    if (mlehdr_check(&hdr, rq->mle_base, rq->mle_hdr, v->lowmem, &r, err, sizeof(err)) != 0) {
        refuse(v, rq, true, was_running, err);
        return;
    }
    /* 3. the measured range, holding that header, and the GDT in it */
    mle = read_guest(v, r.start, r.end - r.start, err, sizeof(err));
    if (!mle) {
        refuse(v, rq, true, was_running, err);
        return;
    }
    if (memcmp(mle + (r.hdr - r.start), &hdr, sizeof(hdr))) {
        snprintf(err, sizeof(err), "the MLE header at 0x%08x changed while it was read",
                 rq->mle_hdr);
        goto refused;
    }
    if (cpustate_check_gdt(&cpus_before.cpu[cpu], r.start, mle, r.end - r.start, &e.gdt, err,
                           sizeof(err)) != 0)
        goto refused;
    if (sha256(mle, r.end - r.start, digest) != 0) {
        snprintf(err, sizeof(err), "hash failed");
        goto refused;
    }
    t_checked = now_ms();
    /* 4. the measurement: from here on there is no way back */
    if (drtm_hash(v, mle, r.end - r.start, err, sizeof(err)) != 0)
        goto failed;
    t_hashed = now_ms();
    /* 5. the transfer */
    e.cpu = cpu;
    e.eip = (uint32_t)r.entry;
    e.eax = VSENTER_ENTRY_MAGIC;
    e.ebx = rq->mle_base;
    e.ecx = rq->mle_hdr;
    e.edx = (uint32_t)v->ncpus;
    e.gdt_base = cpus_before.cpu[cpu].gdt_base;
    e.gdt_limit = cpus_before.cpu[cpu].gdt_limit;
    if (transfer(v, &e, err, sizeof(err)) != 0)
        goto failed;
    /* 6. the result */
    if (read_cpus(v, "after", &cpus_after, err, sizeof(err)) != 0 ||
        cpustate_verify_entry(&cpus_before, &cpus_after, &e, err, sizeof(err)) != 0 ||
        check_platform(v, err, sizeof(err)) != 0)
        goto failed;
    t_moved = now_ms();
    /* 7. resume, unless somebody else had paused the VM (or a debugger got a stop since) */
    if (was_running && v->gdb->stops_passed == stops0 &&
        qmp_exec(v->qmp, "cont", NULL, qerr, sizeof(qerr), QMP_TIMEOUT_MS) != 0) {
        snprintf(err, sizeof(err), "cannot resume the guest: %.160s", qerr);
        goto failed;
    }
    gdbmux_release(v->gdb);
    free(mle);
    hex_encode(digest, 32, hex);
    v->launches++;
    log_msg("virtual SENTER: launched CPU %d at 0x%08x: MLE 0x%08x+0x%08x sha256=%s", cpu,
            e.eip, (uint32_t)r.start, (uint32_t)(r.end - r.start), hex);
    log_dbg("virtual SENTER took %lld ms: checks %lld, measurement %lld, transfer and check "
            "%lld%s", (long long)(now_ms() - t0), (long long)(t_checked - t0),
            (long long)(t_hashed - t_checked), (long long)(t_moved - t_hashed),
            was_running ? "" : "; the VM stays paused (it was paused before)");
    return;
refused:
    free(mle);
    refuse(v, rq, true, was_running, err);
    return;
failed:
    free(mle);
    fatal(v, err);
}

static void handle_line(struct vsenter_host *v, const char *line)
{
    struct vs_request rq;
    char err[160];

    log_dbg("vsenter< %s", line);
    if (v->dead)
        return;
    if (vs_parse(line, v->lowmem, &rq, err, sizeof(err)) != 0) {
        answer_refusal(v, &rq, err);
        return;
    }
    if (!v->have_tpm) {
        answer_refusal(v, &rq, "no TPM");
        return;
    }
    launch(v, &rq);
}

/* the buffered guest bytes, as long as the queue has room for one more answer */
static void parse(struct vsenter_host *v)
{
    while (v->in_off < v->in_len && v->fd >= 0 && sizeof(v->out) - v->out_len >= VS_REPLY_MAX) {
        int r = vs_lines_feed(&v->lines, v->in[v->in_off++]);

        if (r == 1)
            handle_line(v, v->lines.buf);
        else if (r == 2 && !v->dead)
            answer_refusal(v, NULL, "line too long");
        if (r)
            vs_lines_next(&v->lines);
    }
    if (v->in_off == v->in_len)
        v->in_off = v->in_len = 0;
}

/* new bytes only once the last ones are parsed; POLLOUT while answers wait */
static void arm(struct vsenter_host *v)
{
    if (v->fd < 0 || v->busy || v->eof)
        return;
    ev_set_events(v->fd, (short)((v->in_len ? 0 : POLLIN) | (v->out_len ? POLLOUT : 0)));
}

static void on_io(void *ctx, int fd, short revents)
{
    struct vsenter_host *v = ctx;

    if (v->busy)
        return;
    if (revents & (POLLOUT | POLLERR | POLLHUP))
        flush(v);
    if ((revents & (POLLIN | POLLERR | POLLHUP)) && !v->in_len) {
        ssize_t n = read(fd, v->in, sizeof(v->in));

        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            v->eof = true;
            ev_del(fd);
            return;
        }
        v->in_len = n > 0 ? (size_t)n : 0;
    }
    /* no re-entry while a request runs the event loop */
    v->busy = true;
    ev_set_events(fd, 0);
    parse(v);
    v->busy = false;
    arm(v);
}

/* the guest's UART connects once */
static int take_uart(void *ctx, int fd)
{
    struct vsenter_host *v = ctx;

    if (v->fd >= 0)
        return -1;
    v->fd = fd;
    ev_add(fd, POLLIN, on_io, v);
    return 0;
}

int vsenter_host_init(struct vsenter_host *v, const char *sock, const char *tmpdir,
                      struct qmp *qmp, int tpm_lfd, int swtpm_fd, uint64_t ram,
                      const char *machine, struct gdbmux *gdb, struct fate *fate)
{
    memset(v, 0, sizeof(*v));
    v->fd = -1;
    v->qmp = qmp;
    v->gdb = gdb;
    v->fate = fate;
    v->lowmem = vs_lowmem(machine, ram);
    v->dumpfile = xasprintf("%s/mle.bin", tmpdir);
    v->tmpdir = xstrdup(tmpdir);
    v->proxy.lfd = v->proxy.qfd = v->proxy.sfd = -1;
    v->lfd = sock_listen(sock);
    if (v->lfd < 0)
        return -1;
    listener_add(&v->listener, v->lfd, take_uart, v);
    if (tpm_lfd >= 0 && swtpm_fd >= 0) {
        ctrlproxy_init(&v->proxy, tpm_lfd, swtpm_fd);
        v->have_tpm = true;
    }
    return 0;
}

void vsenter_host_quiet(struct vsenter_host *v)
{
    if (v->fd >= 0)
        ev_del(v->fd);
    if (v->lfd >= 0)
        ev_del(v->lfd);
    v->eof = true;              /* arm() leaves the channel off */
}

void vsenter_host_close(struct vsenter_host *v)
{
    if (v->fd >= 0) {
        ev_del(v->fd);
        close(v->fd);
        v->fd = -1;
    }
    if (v->lfd >= 0) {
        ev_del(v->lfd);
        close(v->lfd);
        v->lfd = -1;
    }
    if (v->have_tpm)
        ctrlproxy_close(&v->proxy);
    v->have_tpm = false;
    free(v->dumpfile);
    v->dumpfile = NULL;
    free(v->tmpdir);
    v->tmpdir = NULL;
}
