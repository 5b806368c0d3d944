/* SPDX-License-Identifier: MIT */
#include "platstate.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

/* ---- lines ---- */

struct text {
    const char *p;              /* the rest of the input */
    const char *l, *end;        /* the current line, without its "\r\n" */
};

static bool next_line(struct text *t)
{
    const char *nl;

    if (!*t->p)
        return false;
    nl = strchr(t->p, '\n');
    if (!nl)
        nl = t->p + strlen(t->p);
    t->l = t->p;
    t->end = nl;
    if (nl > t->l && nl[-1] == '\r')
        t->end--;
    t->p = *nl ? nl + 1 : nl;
    return true;
}

static bool starts(const struct text *t, const char *s)
{
    size_t n = strlen(s);

    return (size_t)(t->end - t->l) >= n && !memcmp(t->l, s, n);
}

/* exactly digits lower-case hex digits at *p (QEMU prints lower case) */
static bool hexn(const char **p, const char *end, int digits, uint64_t *v)
{
    uint64_t x = 0;

    if (end - *p < digits)
        return false;
    for (int i = 0; i < digits; i++) {
        char c = (*p)[i];

        if (c >= '0' && c <= '9')
            x = x << 4 | (uint64_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            x = x << 4 | (uint64_t)(c - 'a' + 10);
        else
            return false;
    }
    *p += digits;
    *v = x;
    return true;
}

/* 1 to 3 decimal digits at *p */
static bool dec(const char **p, const char *end, unsigned *v)
{
    unsigned x = 0;
    int n = 0;

    while (*p < end && **p >= '0' && **p <= '9' && n < 3) {
        x = x * 10 + (unsigned)(*(*p)++ - '0');
        n++;
    }
    *v = x;
    return n > 0;
}

/* ---- local APIC ---- */

static const char *const lvt_dump_name[LVT_N] = { "LVT0", "LVT1", "LVTPC", "LVTERR", "LVTTHMR",
                                                  "LVTT" };
static const char *const lvt_name[LVT_N] = { "LINT0", "LINT1", "perf", "error", "thermal",
                                             "timer" };

#define LVT_MASKED (1u << 16)
#define DM_FIXED 0
#define DM_LOWEST 1
#define DM_EXTINT 7

static const char *const dm_name[8] = { "Fixed", "reserved mode 1", "SMI", "reserved mode 3",
                                        "NMI", "INIT", "reserved mode 6", "ExtINT" };

int platstate_parse_lapic(const char *text, struct lapic_state *out, char *err, size_t errsz)
{
    static const char hdr[] = "dumping local APIC state for CPU ";
    struct text t = { text, NULL, NULL };
    const char *p;
    unsigned cpu;

    memset(out, 0, sizeof(*out));
    if (!next_line(&t) || !starts(&t, hdr))
        return errorf(err, errsz, "info lapic: no header line");
    p = t.l + sizeof(hdr) - 1;
    if (!dec(&p, t.end, &cpu))
        return errorf(err, errsz, "info lapic: no CPU index");
    while (p < t.end && *p == ' ')
        p++;
    if (p != t.end)
        return errorf(err, errsz, "info lapic: malformed header");
    out->cpu = (int)cpu;
    for (int k = 0; k < LVT_N; k++) {
        uint64_t v;

        do {
            if (!next_line(&t))
                return errorf(err, errsz, "info lapic: no %s line", lvt_dump_name[k]);
        } while (t.l == t.end);
        p = t.l + strlen(lvt_dump_name[k]);
        if (!starts(&t, lvt_dump_name[k]) || t.end - p < 4 || memcmp(p, "\t 0x", 4))
            return errorf(err, errsz, "info lapic: expected the %s line", lvt_dump_name[k]);
        p += 4;
        if (!hexn(&p, t.end, 8, &v) || (p < t.end && *p != ' '))
            return errorf(err, errsz, "info lapic: malformed %s line", lvt_dump_name[k]);
        out->lvt[k] = (uint32_t)v;
    }
    return 0;
}

int platstate_check_lapic(const struct lapic_state *l, char *err, size_t errsz)
{
    for (int k = 0; k < LVT_N; k++) {
        uint32_t v = l->lvt[k], dm = (v >> 8) & 7;

        if ((v & LVT_MASKED) || dm == DM_FIXED || (k == LVT_LINT0 && dm == DM_EXTINT))
            continue;
        return errorf(err, errsz, "LAPIC %d %s: %s delivery, not masked (LVT 0x%08x)", l->cpu,
                      lvt_name[k], dm_name[dm], v);
    }
    return 0;
}

/* ---- I/O APIC ---- */

int platstate_parse_ioapic(const char *text, struct ioapic_state *out, char *err, size_t errsz)
{
    struct text t = { text, NULL, NULL };
    int ioapics = 0;
    unsigned pins = 0;

    memset(out, 0, sizeof(*out));
    while (next_line(&t)) {
        const char *p;
        unsigned pin;
        uint64_t v;

        if (starts(&t, "ioapic")) {
            if (++ioapics > 1)
                return errorf(err, errsz, "info pic: more than one I/O APIC");
            continue;
        }
        if (!starts(&t, "  pin "))
            continue;
        p = t.l + 6;
        if (!ioapics || !dec(&p, t.end, &pin))
            return errorf(err, errsz, "info pic: malformed pin line");
        while (p < t.end && *p == ' ')
            p++;
        if (t.end - p < 2 || memcmp(p, "0x", 2))
            return errorf(err, errsz, "info pic: malformed pin line");
        p += 2;
        if (!hexn(&p, t.end, 16, &v) || (p < t.end && *p != ' '))
            return errorf(err, errsz, "info pic: malformed pin %u line", pin);
        if (pin != pins || pins == IOAPIC_PINS)
            return errorf(err, errsz, "info pic: pin %u where pin %u belongs", pin, pins);
        out->redir[pins++] = v;
    }
    if (!ioapics)
        return errorf(err, errsz, "info pic: no I/O APIC");
    if (pins != IOAPIC_PINS)
        return errorf(err, errsz, "info pic: %u I/O APIC pins, expected %d", pins, IOAPIC_PINS);
    return 0;
}

int platstate_check_ioapic(const struct ioapic_state *s, char *err, size_t errsz)
{
    for (unsigned i = 0; i < IOAPIC_PINS; i++) {
        uint64_t v = s->redir[i];
        unsigned dm = (unsigned)(v >> 8) & 7;

        if ((v & LVT_MASKED) || dm == DM_FIXED || dm == DM_LOWEST)
            continue;
        return errorf(err, errsz, "IOAPIC pin %u: %s delivery, not masked (entry 0x%016llx)", i,
                      dm_name[dm], (unsigned long long)v);
    }
    return 0;
}

/* ---- HPET ---- */

int platstate_parse_qom_bool(const char *reply, bool *val, char *err, size_t errsz)
{
    const char *p = strstr(reply, "\"return\":");

    if (p) {
        p += 9;
        while (*p == ' ')
            p++;
        size_t n = !strncmp(p, "true", 4) ? 4 : !strncmp(p, "false", 5) ? 5 : 0;

        /* the answer's "id" may follow */
        if (n && (p[n] == ',' || p[n] == '}' || p[n] == ' ')) {
            *val = n == 4;
            return 0;
        }
    }
    return errorf(err, errsz, "qom-get: not a boolean answer");
}

int platstate_check_hpet(bool hpet, char *err, size_t errsz)
{
    return hpet ? errorf(err, errsz, "HPET: present in the machine") : 0;
}

/* ---- PCI ---- */

int platstate_parse_inl(const char *text, unsigned port, uint32_t *val, char *err, size_t errsz)
{
    char want[32];
    const char *p = text;
    size_t n = (size_t)snprintf(want, sizeof(want), "portl[0x%04x] = 0x", port);
    uint64_t v;

    if (strncmp(p, want, n))
        return errorf(err, errsz, "i /w 0x%x: unexpected answer", port);
    p += n;
    if (!hexn(&p, p + strlen(p), 8, &v) || (strcmp(p, "\r\n") && strcmp(p, "\n")))
        return errorf(err, errsz, "i /w 0x%x: unexpected answer", port);
    *val = (uint32_t)v;
    return 0;
}

#define PCI_COMMAND 0x04                /* command (low 16 bits), status (high 16) */
#define PCI_HEADER 0x0c                 /* header type: bits 16-22, multi-function: bit 23 */
#define PCI_BUSES 0x18                  /* type 1: primary, secondary, subordinate bus */
#define PCI_CAP_PTR 0x34
#define PCI_STATUS_CAP_LIST (1u << 20)  /* in the COMMAND dword */
#define PCI_COMMAND_MASTER 0x4
#define PCI_CAP_ID_MSI 0x05
#define PCI_CAP_ID_MSIX 0x11
#define PCI_MSI_ENABLE 0x1
#define PCI_MSIX_ENABLE 0x8000
#define PCI_HEADER_BRIDGE 1

int platstate_pci_caps(pci_cfg_read rd, void *ctx, struct pci_fn *f, char *err, size_t errsz)
{
    uint32_t v;
    unsigned ptr;

    if (rd(ctx, f->bus, f->dev, f->fn, PCI_CAP_PTR, &v, err, errsz))
        return -1;
    ptr = v & 0xfc;
    for (int i = 0; i < PCI_CAP_MAX && ptr; i++) {
        if (rd(ctx, f->bus, f->dev, f->fn, ptr, &v, err, errsz))
            return -1;
        if ((v & 0xff) == PCI_CAP_ID_MSI)
            f->msi_ctl |= (uint16_t)(v >> 16);
        else if ((v & 0xff) == PCI_CAP_ID_MSIX)
            f->msix_ctl |= (uint16_t)(v >> 16);
        ptr = (v >> 8) & 0xfc;
    }
    f->cap_overflow = ptr != 0;
    return 0;
}

static const char *bdf(const struct pci_fn *f, char buf[16])
{
    snprintf(buf, 16, "%02x:%02x.%x", f->bus, f->dev, f->fn);
    return buf;
}

int platstate_check_pci_fn(const struct pci_fn *f, char *err, size_t errsz)
{
    char b[16];

    if (f->command & PCI_COMMAND_MASTER)
        return errorf(err, errsz, "PCI %s: bus mastering enabled", bdf(f, b));
    if (f->msi_ctl & PCI_MSI_ENABLE)
        return errorf(err, errsz, "PCI %s: MSI enabled", bdf(f, b));
    if (f->msix_ctl & PCI_MSIX_ENABLE)
        return errorf(err, errsz, "PCI %s: MSI-X enabled", bdf(f, b));
    if (f->cap_overflow)
        return errorf(err, errsz, "PCI %s: capability list longer than %d entries", bdf(f, b),
                      PCI_CAP_MAX);
    return 0;
}

/* A bus to scan: its number and the bridge whose buses it heads (0: the root). */
struct pci_bus {
    uint8_t nr;
    uint16_t owner;
};

struct scan {
    pci_cfg_read rd;
    void *ctx;
    char *err;
    size_t errsz;
    unsigned nfn;
    uint16_t owner[256];        /* which bridge each bus number is routed to (0: the root) */
    uint16_t bridges;
    struct pci_bus queue[256];  /* each bus number enters once */
    unsigned nq;
};

/* One present function: read, checked; a bridge's buses queued. */
static int scan_fn(struct scan *s, const struct pci_bus *bus, unsigned dev, unsigned fn,
                   uint32_t header)
{
    struct pci_fn f = { bus->nr, (uint8_t)dev, (uint8_t)fn, (uint8_t)((header >> 16) & 0x7f),
                        0, 0, 0, false };
    uint32_t v;
    unsigned sec, sub;
    bool ok;
    char b[16];

    if (s->rd(s->ctx, f.bus, dev, fn, PCI_COMMAND, &v, s->err, s->errsz))
        return -1;
    f.command = (uint16_t)v;
    if ((v & PCI_STATUS_CAP_LIST) && platstate_pci_caps(s->rd, s->ctx, &f, s->err, s->errsz))
        return -1;
    s->nfn++;
    if (platstate_check_pci_fn(&f, s->err, s->errsz))
        return -1;
    if (f.header_type != PCI_HEADER_BRIDGE)
        return 0;
    if (s->rd(s->ctx, f.bus, dev, fn, PCI_BUSES, &v, s->err, s->errsz))
        return -1;
    sec = (v >> 8) & 0xff;
    sub = (v >> 16) & 0xff;
    /* QEMU routes a bus number to the first bridge on a bus whose range holds it: each
     * bridge's range must be its own, above its bus, and inside its parent bridge's */
    ok = sec > bus->nr && sec <= sub;

    for (unsigned n = sec; ok && n <= sub; n++)
        ok = s->owner[n] == bus->owner;
    if (!ok)
        return errorf(s->err, s->errsz, "PCI %s: bridge to buses %02x-%02x cannot be scanned",
                      bdf(&f, b), sec, sub);
    s->bridges++;
    for (unsigned n = sec; n <= sub; n++)
        s->owner[n] = s->bridges;
    s->queue[s->nq].nr = (uint8_t)sec;
    s->queue[s->nq++].owner = s->bridges;
    return 0;
}

int platstate_pci_scan(pci_cfg_read rd, void *ctx, unsigned *nfn, char *err, size_t errsz)
{
    struct scan s;
    int rc = 0;

    memset(&s, 0, sizeof(s));
    s.rd = rd;
    s.ctx = ctx;
    s.err = err;
    s.errsz = errsz;
    s.owner[0] = 0xffff;        /* bus 0 is the root's own, no bridge's */
    s.nq = 1;                   /* bus 0, owned by the root */
    for (unsigned q = 0; q < s.nq && !rc; q++) {
        struct pci_bus bus = s.queue[q];

        for (unsigned dev = 0; dev < 32 && !rc; dev++) {
            for (unsigned fn = 0; fn < 8 && !rc; fn++) {
                uint32_t id, header;

                if (rd(ctx, bus.nr, dev, fn, 0, &id, err, errsz) ||
                    ((id & 0xffff) != 0xffff &&
                     rd(ctx, bus.nr, dev, fn, PCI_HEADER, &header, err, errsz))) {
                    rc = -1;
                    break;
                }
                if ((id & 0xffff) == 0xffff) {
                    if (fn == 0)
                        break;      /* no device */
                    continue;
                }
                rc = scan_fn(&s, &bus, dev, fn, header);
                if (fn == 0 && !(header & (1u << 23)))
                    break;          /* a single-function device */
            }
        }
    }
    *nfn = s.nfn;
    return rc;
}
