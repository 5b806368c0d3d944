/* SPDX-License-Identifier: MIT */
/*
 * The platform's event sources (platstate.h) on real QEMU 7.2 output (data/: `info lapic`,
 * `info pic` and `i /w` through QMP from q35 and pc machines at reset (-S) and after SeaBIOS,
 * and configuration space dumps of every function, with a pci-bridge and an e1000e behind
 * it), mutated one field at a time; every rule both ways, the bus and capability walks over
 * a simulated configuration space, loops and bad bridges included.
 */
#include "unit.h"
#include "platstate.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* text with the first `from` replaced by `to` (free() it) */
static char *subst(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    char *m;

    if (!p)
        return NULL;
    m = malloc(strlen(text) + strlen(to) + 1);
    memcpy(m, text, (size_t)(p - text));
    strcpy(m + (p - text), to);
    strcat(m, p + strlen(from));
    return m;
}

/* ---- local APIC ---- */

static void test_lapic_parse(void)
{
    char *t, err[200] = "";
    struct lapic_state l;

    /* -S: every LVT masked, Fixed */
    t = unit_data("lapic-reset.txt");
    CHECK(platstate_parse_lapic(t, &l, err, sizeof(err)) == 0 && l.cpu == 0, "reset: %s", err);
    for (int k = 0; k < LVT_N; k++)
        CHECK(l.lvt[k] == 0x00010000, "reset LVT %d = %08x", k, l.lvt[k]);
    CHECK(platstate_check_lapic(&l, err, sizeof(err)) == 0, "reset passes: %s", err);
    free(t);
    /* SeaBIOS's BSP: LINT0 ExtINT, LINT1 NMI (the virtual wire), the rest masked */
    t = unit_data("lapic-seabios-bsp.txt");
    CHECK(platstate_parse_lapic(t, &l, err, sizeof(err)) == 0 && l.cpu == 0 &&
          l.lvt[LVT_LINT0] == 0x8700 && l.lvt[LVT_LINT1] == 0x8400 &&
          l.lvt[LVT_PERF] == 0x10000 && l.lvt[LVT_ERROR] == 0x10000 &&
          l.lvt[LVT_THERMAL] == 0x10000 && l.lvt[LVT_TIMER] == 0x10000, "seabios bsp: %s", err);
    CHECK(platstate_check_lapic(&l, err, sizeof(err)) == -1 &&
          !strcmp(err, "LAPIC 0 LINT1: NMI delivery, not masked (LVT 0x00008400)"),
          "seabios bsp refused: %s", err);
    free(t);
    t = unit_data("lapic-seabios-ap.txt");
    CHECK(platstate_parse_lapic(t, &l, err, sizeof(err)) == 0 && l.cpu == 1 &&
          l.lvt[LVT_LINT1] == 0x10000 && platstate_check_lapic(&l, err, sizeof(err)) == 0,
          "seabios ap (INIT: all masked): %s", err);
    free(t);
}

static void lapic_bad(const char *from, const char *to, const char *want)
{
    char *t = unit_data("lapic-seabios-bsp.txt"), *m = subst(t, from, to), err[200] = "";
    struct lapic_state l;

    CHECK(m && platstate_parse_lapic(m, &l, err, sizeof(err)) == -1 && !strcmp(err, want),
          "'%s' -> '%s': '%s', expected '%s'", from, to, err, want);
    free(m);
    free(t);
}

static void test_lapic_malformed(void)
{
    char *t = unit_data("lapic-seabios-bsp.txt"), *m, err[200] = "";
    struct lapic_state l;

    CHECK(platstate_parse_lapic("", &l, err, sizeof(err)) == -1 &&
          !strcmp(err, "info lapic: no header line"), "empty: %s", err);
    CHECK(platstate_parse_lapic("No CPU available\r\n", &l, err, sizeof(err)) == -1, "no cpu");
    CHECK(platstate_parse_lapic("local apic state not available\r\n", &l, err, sizeof(err)) == -1,
          "no apic");
    /* two-digit CPU indexes have no padding; "\n" line ends work as "\r\n" */
    m = subst(t, "CPU 0 ", "CPU 12");
    CHECK(platstate_parse_lapic(m, &l, err, sizeof(err)) == 0 && l.cpu == 12, "cpu 12: %s", err);
    free(m);
    {
        char *lf = strdup(t), *o = lf;

        for (const char *p = t; *p; p++)
            if (*p != '\r')
                *o++ = *p;
        *o = 0;
        CHECK(platstate_parse_lapic(lf, &l, err, sizeof(err)) == 0 && l.lvt[LVT_LINT1] == 0x8400,
              "LF only: %s", err);
        free(lf);
    }
    /* every LVT line, each its own way wrong; the values only from their own line */
    lapic_bad("CPU 0 ", "CPU x", "info lapic: no CPU index");
    lapic_bad("CPU 0 ", "CPU 0 x", "info lapic: malformed header");
    lapic_bad("CPU 0 ", "CPU 1234", "info lapic: malformed header");
    lapic_bad("LVT1\t 0x00008400", "LVT1\t 0x00008G00", "info lapic: malformed LVT1 line");
    lapic_bad("LVT1\t 0x00008400", "LVT1\t 0x0008400", "info lapic: malformed LVT1 line");
    lapic_bad("LVT1\t 0x00008400", "LVT1\t 0x000084000", "info lapic: malformed LVT1 line");
    lapic_bad("LVT1\t 0x00008400", "LVT1\t 0X00008400", "info lapic: expected the LVT1 line");
    lapic_bad("LVT1\t 0x00008400", "LVT1 0x00008400", "info lapic: expected the LVT1 line");
    lapic_bad("LVTPC\t", "LVTERR\t", "info lapic: expected the LVTPC line");
    lapic_bad("LVTT\t 0x00010000 active-hi edge  masked         one-shot     Fixed  (vec 0)\r\n",
              "", "info lapic: expected the LVTT line");
    m = strdup(t);
    *strstr(m, "LVTTHMR") = 0;
    CHECK(platstate_parse_lapic(m, &l, err, sizeof(err)) == -1 &&
          !strcmp(err, "info lapic: no LVTTHMR line"), "cut: %s", err);
    free(m);
    free(t);
}

static void test_lapic_rules(void)
{
    static const char *const name[LVT_N] = { "LINT0", "LINT1", "perf", "error", "thermal",
                                             "timer" };
    static const char *const mode[8] = { "Fixed", "reserved mode 1", "SMI", "reserved mode 3",
                                         "NMI", "INIT", "reserved mode 6", "ExtINT" };
    bool all = true;

    for (int k = 0; k < LVT_N; k++)
        for (unsigned dm = 0; dm < 8; dm++)
            for (int masked = 0; masked < 2; masked++) {
                struct lapic_state l = { 3, { 0x10000, 0x10000, 0x10000, 0x10000, 0x10000,
                                              0x10000 } };
                char err[200] = "", want[200];
                bool ok = masked || dm == 0 || (k == LVT_LINT0 && dm == 7);
                int rc;

                l.lvt[k] = (masked ? 0x10000u : 0) | dm << 8 | 0xee | 0x8000u * (dm & 1);
                snprintf(want, sizeof(want), "LAPIC 3 %s: %s delivery, not masked (LVT 0x%08x)",
                         name[k], mode[dm], l.lvt[k]);
                rc = platstate_check_lapic(&l, err, sizeof(err));
                if (ok ? rc != 0 : rc != -1 || strcmp(err, want)) {
                    all = false;
                    printf("LVT %s mode %u masked %d: %d '%s'\n", name[k], dm, masked, rc, err);
                }
            }
    CHECK(all, "every LVT in every mode, masked and not");
    /* the first offending LVT in the dump's order is named */
    {
        struct lapic_state l = { 0, { 0x700, 0x400, 0x10000, 0x10000, 0x10000, 0x200 } };
        char err[200];

        CHECK(platstate_check_lapic(&l, err, sizeof(err)) == -1 &&
              !strcmp(err, "LAPIC 0 LINT1: NMI delivery, not masked (LVT 0x00000400)"), "%s", err);
    }
}

/* ---- I/O APIC ---- */

static void ioapic_bad(const char *from, const char *to, const char *want)
{
    char *t = unit_data("pic-q35-reset.txt"), *m = subst(t, from, to), err[200] = "";
    struct ioapic_state s;

    CHECK(m && platstate_parse_ioapic(m, &s, err, sizeof(err)) == -1 && !strcmp(err, want),
          "'%s' -> '%s': '%s', expected '%s'", from, to, err, want);
    free(m);
    free(t);
}

static void test_ioapic(void)
{
    char *t, *m, err[200] = "";
    struct ioapic_state s;
    bool masked = true;

    t = unit_data("pic-q35-reset.txt");
    CHECK(platstate_parse_ioapic(t, &s, err, sizeof(err)) == 0, "q35 reset: %s", err);
    for (int i = 0; i < IOAPIC_PINS; i++)
        masked = masked && s.redir[i] == 0x10000;
    CHECK(masked && platstate_check_ioapic(&s, err, sizeof(err)) == 0, "all masked: %s", err);
    /* one entry changed in the text: read from its own line, the first unmasked one named */
    m = subst(t, "pin 2  0x0000000000010000", "pin 2  0x0000000000000400");
    CHECK(platstate_parse_ioapic(m, &s, err, sizeof(err)) == 0 && s.redir[2] == 0x400 &&
          s.redir[1] == 0x10000 && s.redir[3] == 0x10000, "pin 2: %s", err);
    CHECK(platstate_check_ioapic(&s, err, sizeof(err)) == -1 &&
          !strcmp(err, "IOAPIC pin 2: NMI delivery, not masked (entry 0x0000000000000400)"),
          "pin 2 NMI: %s", err);
    free(m);
    m = subst(t, "pin 23 0x0000000000010000", "pin 23 0xff000000000089ef");
    CHECK(platstate_parse_ioapic(m, &s, err, sizeof(err)) == 0 && s.redir[23] == 0xff000000000089efull,
          "pin 23: %s", err);
    free(m);
    free(t);
    /* pc after SeaBIOS: the 8259s' lines (other values) are skipped */
    t = unit_data("pic-pc-seabios.txt");
    CHECK(platstate_parse_ioapic(t, &s, err, sizeof(err)) == 0 &&
          platstate_check_ioapic(&s, err, sizeof(err)) == 0 && s.redir[0] == 0x10000, "pc: %s", err);
    free(t);
    /* each mode both ways */
    {
        static const char *const mode[8] = { "fixed", "lowest", "SMI", "reserved mode 3", "NMI",
                                             "INIT", "reserved mode 6", "ExtINT" };
        bool all = true;

        for (unsigned pin = 0; pin < IOAPIC_PINS; pin += 23)
            for (unsigned dm = 0; dm < 8; dm++)
                for (int mk = 0; mk < 2; mk++) {
                    struct ioapic_state st;
                    char want[200];
                    bool ok = mk || dm <= 1;
                    int rc;

                    for (int i = 0; i < IOAPIC_PINS; i++)
                        st.redir[i] = 0x10000;
                    st.redir[pin] = 0x0300000000000000ull | (mk ? 0x10000u : 0) | dm << 8 | 0x8031;
                    snprintf(want, sizeof(want),
                             "IOAPIC pin %u: %s delivery, not masked (entry 0x%016llx)", pin,
                             mode[dm], (unsigned long long)st.redir[pin]);
                    rc = platstate_check_ioapic(&st, err, sizeof(err));
                    if (ok ? rc != 0 : rc != -1 || strcmp(err, want)) {
                        all = false;
                        printf("pin %u mode %u masked %d: %d '%s'\n", pin, dm, mk, rc, err);
                    }
                }
        CHECK(all, "pins 0 and 23 in every mode, masked and not");
    }
    ioapic_bad("ioapic0:", "iopic0:", "info pic: malformed pin line");
    ioapic_bad("  pin 5  ", "  pin 6  ", "info pic: pin 6 where pin 5 belongs");
    ioapic_bad("  pin 5  0x0000000000010000", "  pin 5  0x000000000010000",
               "info pic: malformed pin 5 line");
    ioapic_bad("  pin 5  0x0000000000010000", "  pin 5  0x000000000001000G",
               "info pic: malformed pin 5 line");
    ioapic_bad("  pin 5  0x0000000000010000", "  pin 5  0000000000010000",
               "info pic: malformed pin line");
    ioapic_bad("  pin 5  ", "  pin x  ", "info pic: malformed pin line");
    ioapic_bad("  pin 23 0x0000000000010000 dest=0 vec=0   active-hi edge  masked fixed  physical\r\n",
               "", "info pic: 23 I/O APIC pins, expected 24");
    ioapic_bad("  IRR", "  pin 24 0x0000000000010000\r\n  IRR", "info pic: pin 24 where pin 24 belongs");
    ioapic_bad("pic1:", "ioapic1: ver=0x20 id=0x01 sel=0x00\r\npic1:", "info pic: more than one I/O APIC");
    CHECK(platstate_parse_ioapic("pic0: irr=00 imr=00\r\n", &s, err, sizeof(err)) == -1 &&
          !strcmp(err, "info pic: no I/O APIC"), "8259s only: %s", err);
    CHECK(platstate_parse_ioapic("", &s, err, sizeof(err)) == -1 &&
          !strcmp(err, "info pic: no I/O APIC"), "empty: %s", err);
}

/* ---- HPET, QOM, port reads ---- */

static void test_small(void)
{
    char err[200] = "", *t;
    bool b = true;
    uint32_t v = 0;

    CHECK(platstate_check_hpet(false, err, sizeof(err)) == 0, "no HPET");
    CHECK(platstate_check_hpet(true, err, sizeof(err)) == -1 &&
          !strcmp(err, "HPET: present in the machine"), "HPET: %s", err);
    CHECK(platstate_parse_qom_bool("{\"return\": false, \"id\": 12}", &b, err, sizeof(err)) == 0 &&
          !b, "false with id");
    CHECK(platstate_parse_qom_bool("{\"return\": true}", &b, err, sizeof(err)) == 0 && b, "true");
    CHECK(platstate_parse_qom_bool("{\"return\":false}", &b, err, sizeof(err)) == 0 && !b,
          "no space");
    CHECK(platstate_parse_qom_bool("{\"return\": \"false\"}", &b, err, sizeof(err)) == -1 &&
          !strcmp(err, "qom-get: not a boolean answer"), "a string");
    CHECK(platstate_parse_qom_bool("{\"return\": falsey}", &b, err, sizeof(err)) == -1, "falsey");
    CHECK(platstate_parse_qom_bool("{\"error\": {}}", &b, err, sizeof(err)) == -1, "error");
    t = unit_data("inl-cfc.txt");
    CHECK(platstate_parse_inl(t, 0xcfc, &v, err, sizeof(err)) == 0 && v == 0x29c08086,
          "i /w 0xcfc: %s", err);
    CHECK(platstate_parse_inl(t, 0xcf8, &v, err, sizeof(err)) == -1 &&
          !strcmp(err, "i /w 0xcf8: unexpected answer"), "another port: %s", err);
    free(t);
    CHECK(platstate_parse_inl("portl[0x0cf8] = 0x80000000\n", 0xcf8, &v, err, sizeof(err)) == 0 &&
          v == 0x80000000, "LF");
    CHECK(platstate_parse_inl("portl[0x0cf8] = 0x8000000\r\n", 0xcf8, &v, err, sizeof(err)) == -1,
          "7 digits");
    CHECK(platstate_parse_inl("portl[0x0cf8] = 0x80000000 \r\n", 0xcf8, &v, err, sizeof(err)) == -1,
          "trailing");
    CHECK(platstate_parse_inl("portb[0x0cf8] = 0x80\r\n", 0xcf8, &v, err, sizeof(err)) == -1,
          "byte read");
    CHECK(platstate_parse_inl("invalid char in format: 'l'\r\n", 0xcf8, &v, err, sizeof(err)) == -1,
          "complaint");
}

/* ---- PCI: a configuration space simulated from a dump ---- */

#define SIM_FNS 16

struct sim {
    struct {
        unsigned bus, dev, fn;
        uint32_t cfg[64];
    } f[SIM_FNS];
    int n;
    unsigned reads, fail_at;    /* fail_at: the read that fails (0: none) */
};

static struct sim *sim_load(const char *name)
{
    char *t = unit_data(name), *line = t;
    struct sim *s = calloc(1, sizeof(*s));

    while (line && *line && s->n < SIM_FNS) {
        char *p = line;

        s->f[s->n].bus = (unsigned)strtoul(p, &p, 16);
        s->f[s->n].dev = (unsigned)strtoul(p + 1, &p, 16);
        s->f[s->n].fn = (unsigned)strtoul(p + 1, &p, 16);
        for (int i = 0; i < 64; i++)
            s->f[s->n].cfg[i] = (uint32_t)strtoul(p, &p, 16);
        s->n++;
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    free(t);
    return s;
}

static uint32_t *sim_cfg(struct sim *s, unsigned bus, unsigned dev, unsigned fn)
{
    for (int i = 0; i < s->n; i++)
        if (s->f[i].bus == bus && s->f[i].dev == dev && s->f[i].fn == fn)
            return s->f[i].cfg;
    return NULL;
}

/* QEMU's view: bus numbers are the bridges' secondary registers, reached only along the
 * path of ranges (pci_find_bus_nr); a simulator of that is the scan itself, so the bus number
 * in the dump is taken as routed, and the tests that break the routing check the refusal */
static int sim_read(void *ctx, unsigned bus, unsigned dev, unsigned fn, unsigned reg,
                    uint32_t *val, char *err, size_t errsz)
{
    struct sim *s = ctx;
    uint32_t *c;

    if (++s->reads == s->fail_at) {
        snprintf(err, errsz, "simulated read failure");
        return -1;
    }
    CHECK(reg % 4 == 0 && reg < 256, "aligned read %x", reg);
    c = sim_cfg(s, bus, dev, fn);
    *val = c ? c[reg / 4 % 64] : 0xffffffffu;
    return 0;
}

/* every function quiet: bus mastering, MSI and MSI-X enable off */
static void sim_quiesce(struct sim *s)
{
    for (int i = 0; i < s->n; i++) {
        uint32_t *c = s->f[i].cfg;
        unsigned ptr = c[0x34 / 4] & 0xfc;

        c[1] &= ~4u;
        for (int k = 0; k < 48 && ptr && (c[1] & (1u << 20)); k++) {
            if ((c[ptr / 4] & 0xff) == 0x05)
                c[ptr / 4] &= ~(1u << 16);
            if ((c[ptr / 4] & 0xff) == 0x11)
                c[ptr / 4] &= ~(1u << 31);
            ptr = (c[ptr / 4] >> 8) & 0xfc;
        }
    }
}

static void expect_scan(struct sim *s, int want_rc, unsigned want_fn, const char *want,
                        const char *what)
{
    char err[200] = "";
    unsigned nfn = 99;
    int rc;

    s->reads = 0;
    rc = platstate_pci_scan(sim_read, s, &nfn, err, sizeof(err));
    if (want_rc == 0)
        CHECK(rc == 0 && nfn == want_fn, "%s: %d %u '%s'", what, rc, nfn, err);
    else
        CHECK(rc == -1 && nfn == want_fn && !strcmp(err, want), "%s: %d %u '%s', expected '%s'",
              what, rc, nfn, err, want);
}

static void test_pci_caps(void)
{
    struct sim *s = sim_load("pci-q35-seabios-bridge.txt");
    struct pci_fn f = { 0, 0x1f, 2, 0, 0, 0, 0, false };
    char err[200] = "";

    /* ich9-ahci: MSI at 0x80 (control 0x0080: 64-bit, off), SATA at 0xa8 */
    CHECK(platstate_pci_caps(sim_read, s, &f, err, sizeof(err)) == 0 && f.msi_ctl == 0x0080 &&
          f.msix_ctl == 0 && !f.cap_overflow, "ahci caps: %x %x %s", f.msi_ctl, f.msix_ctl, err);
    /* e1000e behind the bridge: PM, MSI (0x0080), PCIe, MSI-X (control 0x0004: 5 vectors) */
    f = (struct pci_fn){ 1, 3, 0, 0, 0, 0, 0, false };
    CHECK(platstate_pci_caps(sim_read, s, &f, err, sizeof(err)) == 0 && f.msi_ctl == 0x0080 &&
          f.msix_ctl == 0x0004, "e1000e caps: %x %x", f.msi_ctl, f.msix_ctl);
    /* virtio-blk: MSI-X 0x0002 and five vendor capabilities */
    f = (struct pci_fn){ 0, 1, 0, 0, 0, 0, 0, false };
    s->reads = 0;
    CHECK(platstate_pci_caps(sim_read, s, &f, err, sizeof(err)) == 0 && f.msix_ctl == 0x0002 &&
          f.msi_ctl == 0 && s->reads == 7, "virtio caps: %x, %u reads", f.msix_ctl, s->reads);
    /* a list that points at itself: 48 entries read, then given up */
    sim_cfg(s, 0, 0x1f, 2)[0x80 / 4] = 0x00808005 | 1u << 16;       /* MSI, next = itself, on */
    f = (struct pci_fn){ 0, 0x1f, 2, 0, 0, 0, 0, false };
    s->reads = 0;
    CHECK(platstate_pci_caps(sim_read, s, &f, err, sizeof(err)) == 0 && f.cap_overflow &&
          f.msi_ctl == 0x0081 && s->reads == 1 + PCI_CAP_MAX, "loop: %u reads", s->reads);
    CHECK(platstate_check_pci_fn(&f, err, sizeof(err)) == -1 &&
          !strcmp(err, "PCI 00:1f.2: MSI enabled"), "loop with MSI on: %s", err);
    f.msi_ctl = 0;
    CHECK(platstate_check_pci_fn(&f, err, sizeof(err)) == -1 &&
          !strcmp(err, "PCI 00:1f.2: capability list longer than 48 entries"), "loop: %s", err);
    /* a read that fails */
    s->reads = 0;
    s->fail_at = 2;
    CHECK(platstate_pci_caps(sim_read, s, &f, err, sizeof(err)) == -1 &&
          !strcmp(err, "simulated read failure"), "read failure: %s", err);
    free(s);
}

static void test_pci_fn_rules(void)
{
    char err[200] = "";
    struct pci_fn f = { 0xab, 0x1c, 7, 0, 0, 0, 0, false };

    CHECK(platstate_check_pci_fn(&f, err, sizeof(err)) == 0, "quiet");
    f.command = 0x0103;                 /* I/O, memory, SERR: no bus mastering */
    f.msi_ctl = 0x0180;                 /* per-vector masking, 64-bit: not enabled */
    f.msix_ctl = 0x4007;                /* function mask, table size: not enabled */
    CHECK(platstate_check_pci_fn(&f, err, sizeof(err)) == 0, "other bits: %s", err);
    f.command = 0x0004;
    f.msi_ctl = 0x0001;
    f.msix_ctl = 0x8000;
    f.cap_overflow = true;
    CHECK(platstate_check_pci_fn(&f, err, sizeof(err)) == -1 &&
          !strcmp(err, "PCI ab:1c.7: bus mastering enabled"), "bme first: %s", err);
    f.command = 0;
    CHECK(platstate_check_pci_fn(&f, err, sizeof(err)) == -1 &&
          !strcmp(err, "PCI ab:1c.7: MSI enabled"), "msi: %s", err);
    f.msi_ctl = 0;
    CHECK(platstate_check_pci_fn(&f, err, sizeof(err)) == -1 &&
          !strcmp(err, "PCI ab:1c.7: MSI-X enabled"), "msix: %s", err);
    f.msix_ctl = 0;
    CHECK(platstate_check_pci_fn(&f, err, sizeof(err)) == -1 &&
          !strcmp(err, "PCI ab:1c.7: capability list longer than 48 entries"), "overflow: %s", err);
}

static void test_pci_scan(void)
{
    struct sim *s = sim_load("pci-q35-seabios-bridge.txt");
    uint32_t *c;

    CHECK(s->n == 7, "7 functions in the dump (%d)", s->n);
    /* as SeaBIOS left it: virtio-blk, AHCI and the e1000e master */
    expect_scan(s, -1, 2, "PCI 00:01.0: bus mastering enabled", "seabios");
    sim_quiesce(s);
    expect_scan(s, 0, 7, NULL, "quiesced");
    /* bus 0: 28 absent devices (1 read each), 00:00.0 (ID, header, command), 00:01.0 (and
     * its capability pointer and 6 capabilities), 00:02.0 (3 capabilities, its buses), 00:1f
     * (functions 0-7: 3 present, 5 absent); bus 1: 31 absent, 01:03.0 with 4 capabilities */
    CHECK(s->reads == 28 + 3 + 10 + 8 + (3 + 1 + 6 + 3 + 4) + 31 + 8, "configuration reads: %u",
          s->reads);
    /* each source once, behind the bridge too */
    sim_cfg(s, 1, 3, 0)[1] |= 4;
    expect_scan(s, -1, 7, "PCI 01:03.0: bus mastering enabled", "e1000e bme");
    sim_cfg(s, 1, 3, 0)[1] &= ~4u;
    sim_cfg(s, 1, 3, 0)[0xa0 / 4] |= 1u << 31;
    expect_scan(s, -1, 7, "PCI 01:03.0: MSI-X enabled", "e1000e msix");
    sim_cfg(s, 1, 3, 0)[0xa0 / 4] &= ~(1u << 31);
    sim_cfg(s, 1, 3, 0)[0xd0 / 4] |= 1u << 16;
    expect_scan(s, -1, 7, "PCI 01:03.0: MSI enabled", "e1000e msi");
    sim_cfg(s, 1, 3, 0)[0xd0 / 4] &= ~(1u << 16);
    sim_cfg(s, 0, 2, 0)[0x4c / 4] |= 1u << 16;     /* the bridge's own MSI */
    expect_scan(s, -1, 3, "PCI 00:02.0: MSI enabled", "bridge msi");
    sim_cfg(s, 0, 2, 0)[0x4c / 4] &= ~(1u << 16);
    sim_cfg(s, 0, 0x1f, 3)[1] |= 4;                 /* function 3 of the multi-function 00:1f */
    expect_scan(s, -1, 6, "PCI 00:1f.3: bus mastering enabled", "smbus");
    sim_cfg(s, 0, 0x1f, 3)[1] &= ~4u;
    expect_scan(s, 0, 7, NULL, "quiet again");
    /* the bridge's buses: every way of hiding bus 1 */
    c = sim_cfg(s, 0, 2, 0);
    c[0x18 / 4] = 0x00000000;
    expect_scan(s, -1, 3, "PCI 00:02.0: bridge to buses 00-00 cannot be scanned", "secondary 0");
    c[0x18 / 4] = 0x00000200;
    expect_scan(s, -1, 3, "PCI 00:02.0: bridge to buses 02-00 cannot be scanned", "sub < sec");
    c[0x18 / 4] = 0x00050200;           /* buses 2-5: the simulator keeps the e1000e on 1 */
    expect_scan(s, 0, 6, NULL, "bus 2 empty");
    c[0x18 / 4] = 0x00010100;
    /* a second bridge claiming bus 1 (a copy of 00:02.0 at 00:03.0) */
    memcpy(&s->f[s->n], &s->f[2], sizeof(s->f[0]));
    s->f[s->n].dev = 3;
    s->n++;
    expect_scan(s, -1, 4, "PCI 00:03.0: bridge to buses 01-01 cannot be scanned", "twice");
    /* nested: at 01:04.0, to bus 2 inside 00:02.0's 1-2, then outside it, then back up */
    s->f[s->n - 1].bus = 1;
    s->f[s->n - 1].dev = 4;
    c[0x18 / 4] = 0x00020100;
    s->f[s->n - 1].cfg[0x18 / 4] = 0x00020201;
    expect_scan(s, 0, 8, NULL, "nested bridge");
    s->f[s->n - 1].cfg[0x18 / 4] = 0x00030301;
    expect_scan(s, -1, 8, "PCI 01:04.0: bridge to buses 03-03 cannot be scanned", "outside");
    s->f[s->n - 1].cfg[0x18 / 4] = 0x00010101;
    expect_scan(s, -1, 8, "PCI 01:04.0: bridge to buses 01-01 cannot be scanned", "loop to 1");
    s->f[s->n - 1].cfg[0x18 / 4] = 0x00000001;
    expect_scan(s, -1, 8, "PCI 01:04.0: bridge to buses 00-00 cannot be scanned", "loop to 0");
    s->n--;
    c[0x18 / 4] = 0x00010100;
    /* functions 1-7 only behind a multi-function function 0 */
    memcpy(&s->f[s->n], &s->f[5], sizeof(s->f[0]));           /* 00:1f.3 as 00:05.1, on */
    s->f[s->n].dev = 5;
    s->f[s->n].fn = 1;
    s->f[s->n].cfg[1] |= 4;
    s->n++;
    expect_scan(s, 0, 7, NULL, "no function 0: not a device");
    memcpy(&s->f[s->n], &s->f[0], sizeof(s->f[0]));           /* 00:00.0 as 00:05.0 */
    s->f[s->n].dev = 5;
    s->n++;
    expect_scan(s, 0, 8, NULL, "single-function 00:05.0");
    s->f[s->n - 1].cfg[0x0c / 4] |= 1u << 23;
    expect_scan(s, -1, 5, "PCI 00:05.1: bus mastering enabled", "multi-function 00:05.0");
    s->n -= 2;
    /* every read that can fail, fails the scan with its reason */
    {
        bool all = true;

        for (unsigned k = 1; k <= 105; k++) {
            char err[200] = "";
            unsigned nfn;

            s->reads = 0;
            s->fail_at = k;
            all = all && platstate_pci_scan(sim_read, s, &nfn, err, sizeof(err)) == -1 &&
                  !strcmp(err, "simulated read failure");
        }
        s->fail_at = 0;
        CHECK(all, "each of the 105 reads failing");
    }
    free(s);
    /* pc after SeaBIOS: PIIX3, its IDE and PM, nothing mastering */
    s = sim_load("pci-pc-seabios.txt");
    expect_scan(s, 0, 4, NULL, "pc");
    free(s);
    /* an empty bus (every read ~0): nothing to check */
    s = calloc(1, sizeof(*s));
    expect_scan(s, 0, 0, NULL, "empty");
    CHECK(s->reads == 32, "32 vendor reads: %u", s->reads);
    free(s);
}

void test_platstate(void)
{
    test_lapic_parse();
    test_lapic_malformed();
    test_lapic_rules();
    test_ioapic();
    test_small();
    test_pci_caps();
    test_pci_fn_rules();
    test_pci_scan();
}
